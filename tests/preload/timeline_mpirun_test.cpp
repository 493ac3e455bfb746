// Issue 20 item 3 under a real mpirun: a program that computes for 0.6 s, then only calls MPI
// for 0.6 s, then only writes a file for 0.3 s. Each rank's timeline must show the switches
// where the program says they happened (within one bin), its bins must add up to the rank's own
// totals, and the MPI_Pcontrol marks must sit at the switches. The report shows the same bins:
// tidy CSV, the phase table of the text report, and the HTML heat map as Chromium drew it.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/chromium_page.h"
#include "process.h"
#include "tests/preload/mpirun_fixture.h"

using nlohmann::json;

namespace {

class TimelineMpirun : public hpcsens::test::MpirunFixture {};

double sum(const json& a) {
  double s = 0;
  for (const auto& v : a) s += v.get<double>();
  return s;
}

// "compute", "mpi" or "io": what took most of bin i.
std::string dominant(const json& t, std::size_t i) {
  const double c = t["compute_s"][i], m = t["mpi_s"][i], o = t["io_s"][i];
  return c >= m && c >= o ? "compute" : m >= o ? "mpi" : "io";
}

// The share of bins in [from, to) where `what` took most of the time.
double share_of_bins(const json& t, const std::string& what, int from, int to) {
  int n = 0;
  for (int i = from; i < to; ++i) n += dominant(t, static_cast<std::size_t>(i)) == what;
  return to > from ? static_cast<double>(n) / (to - from) : 1.0;
}

// The sum of the named arrays' values in bin i.
double sum_at(const json& t, std::initializer_list<const char*> keys, int i) {
  double s = 0;
  for (const char* k : keys) s += t[k][static_cast<std::size_t>(i)].get<double>();
  return s;
}

// One letter per bin (c, m, i: what took most of it), for failure messages.
std::string dominant_letters(const json& t) {
  std::string s;
  for (std::size_t i = 0; i < t.at("compute_s").size(); ++i) s += dominant(t, i)[0];
  return s;
}

TEST_F(TimelineMpirun, ThreePhasesSwitchWhereTheProgramSays) {
  ASSERT_EQ(mpirun(2, PROG_TIMELINE), 0) << log();
  const std::string l = log();
  const json rec = record();
  for (const json& r : rec.at("ranks")) {
    const int rank = r.at("rank");
    SCOPED_TRACE("rank " + std::to_string(rank));
    double switch_mpi = -1, switch_io = -1;
    const auto at = l.find("rank " + std::to_string(rank) + " switch_mpi_s=");
    ASSERT_NE(at, std::string::npos) << l;
    ASSERT_EQ(std::sscanf(l.c_str() + at + 7, "switch_mpi_s=%lf switch_io_s=%lf", &switch_mpi, &switch_io), 2) << l;
    const json& t = r.at("timeline");
    const int bins = t.at("bins");
    const double w = t.at("bin_s");
    ASSERT_GT(bins, 64);  // merged down to between 1/256 and 1/128 of the run per bin
    ASSERT_LE(bins, 256);
    // The bins start after the tick clock's set-up, some 0.05-0.1 ms after t1 (see `covered`
    // below): whole bins cover the rest of the wall span, rounded up, which is the wall span
    // itself unless the last bin's unused part is shorter than that set-up. At load 8 on 2 cores
    // the set-up can be preempted for a few time slices: `setup_s` allows for that.
    const double setup_s = 0.025;
    EXPECT_GE(w * bins, r.at("wall_s").get<double>() - setup_s);
    EXPECT_LT(w * (bins - 1), r.at("wall_s").get<double>());
    for (const char* k : {"compute_s", "mpi_s", "io_s", "top_mpi"}) ASSERT_EQ(t.at(k).size(), bins) << k;
    // The bins are the rank's own totals spread over time (values rounded to 100 ns per bin).
    EXPECT_NEAR(sum(t["mpi_s"]), r.at("mpi_s").get<double>(), 1e-7 * bins + 1e-9);
    EXPECT_NEAR(sum(t["io_s"]), r.at("io_s").get<double>(), 1e-7 * bins + 1e-9);
    // The bins cover the wall span but for the tick clock's set-up between t1 and the first bin
    // (reading /proc/cpuinfo: well under a millisecond).
    const double covered = sum(t["compute_s"]) + sum(t["mpi_s"]) + sum(t["io_s"]);
    EXPECT_LE(covered, r.at("wall_s").get<double>() + 3e-7 * bins);
    EXPECT_GE(covered, r.at("wall_s").get<double>() - setup_s);
    // The program's clock starts when MPI_Init returns, some ms after the timeline's start (the
    // rest of MPI_Init: counters, a loaded machine). The Pcontrol marks, taken by the preload at
    // the program's switches, give that offset; between them both clocks must agree.
    ASSERT_EQ(t.at("marks").size(), 2u) << t["marks"];
    EXPECT_EQ(t["marks"][0]["phase"], "pcontrol:1");
    EXPECT_EQ(t["marks"][1]["phase"], "pcontrol:2");
    const double mark_mpi = t["marks"][0]["t_s"], mark_io = t["marks"][1]["t_s"];
    const double offset = mark_mpi - switch_mpi;
    EXPECT_GE(offset, 0.0);
    EXPECT_LT(offset, 0.05);
    EXPECT_NEAR(mark_io - mark_mpi, switch_io - switch_mpi, 1e-3);
    // Compute first, then MPI, then I/O, each switch in the bin where the program made it: no MPI
    // (I/O) at all in the bin before, some in that bin or the next. Within each phase no bin holds
    // the other phases' activity, and most bins are the phase's own. A loaded machine that
    // preempts a rank between two calls turns a whole time slice (several ms, a bin or two) into
    // compute: at load 8 on 2 cores a fifth of the I/O phase's bins were compute, so half of a
    // phase's bins must be its activity, while the absence checks stay exact.
    const int k_mpi = static_cast<int>(mark_mpi / w), k_io = static_cast<int>(mark_io / w);
    ASSERT_GT(k_mpi, 1);
    ASSERT_LT(k_io + 2, bins);
    EXPECT_EQ(t["mpi_s"][k_mpi - 1].get<double>(), 0.0) << "MPI before the switch, bin " << k_mpi - 1;
    EXPECT_GT(t["mpi_s"][k_mpi].get<double>() + t["mpi_s"][k_mpi + 1].get<double>(), 0.0);
    EXPECT_EQ(t["io_s"][k_io - 1].get<double>(), 0.0) << "I/O before the switch, bin " << k_io - 1;
    EXPECT_GT(t["io_s"][k_io].get<double>() + t["io_s"][k_io + 1].get<double>(), 0.0);
    // The program calls MPI_Comm_rank right after its clock starts (bin k_start), which under load
    // can take tens of microseconds: the compute phase is clean from the bin after.
    const int k_start = static_cast<int>(offset / w);
    for (int i = k_start + 1; i < k_mpi; ++i) EXPECT_EQ(sum_at(t, {"mpi_s", "io_s"}, i), 0.0) << "bin " << i;
    for (int i = k_mpi + 1; i < k_io; ++i) EXPECT_EQ(t["io_s"][i].get<double>(), 0.0) << "bin " << i;
    for (int i = k_io + 1; i + 1 < bins; ++i) EXPECT_EQ(t["mpi_s"][i].get<double>(), 0.0) << "bin " << i;
    EXPECT_GE(share_of_bins(t, "compute", 0, k_mpi), 0.5) << dominant_letters(t);
    EXPECT_GE(share_of_bins(t, "mpi", k_mpi + 1, k_io), 0.5) << dominant_letters(t);
    EXPECT_GE(share_of_bins(t, "io", k_io + 1, bins - 1), 0.5) << dominant_letters(t);
    const int to_mpi = k_mpi, to_io = k_io;
    int allreduce = 0, with_mpi = 0;
    for (int i = to_mpi + 1; i + 1 < to_io; ++i) {
      if (t["top_mpi"][i].get<int>() < 0) continue;
      ++with_mpi;
      allreduce += t["calls"][t["top_mpi"][i].get<int>()] == "MPI_Allreduce";
    }
    EXPECT_EQ(allreduce, with_mpi) << "the MPI phase's dominant call";
  }
}

// Runs hpcsens with `args`; its standard output.
std::string run_hpcsens(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {HPCSENS_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = hpcsens::testing::run_process(argv, 120);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  return r.out;
}

TEST_F(TimelineMpirun, ReportShowsTheSameBinsAsCsvPhasesAndHeatMap) {
  ASSERT_EQ(mpirun(2, PROG_TIMELINE), 0) << log();
  const std::string path = run_file(dir_, "m1", ".json");
  const json rec = record();
  // Tidy CSV: one row per rank and bin, the record's numbers exactly.
  const std::string csv = run_hpcsens({"report", path, "--format", "csv", "--table", "timeline"});
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi,rss_kib");
  std::size_t rows = 0;
  for (const json& r : rec.at("ranks")) {
    const json& t = r.at("timeline");
    ASSERT_TRUE(t.contains("rss_kib")) << "memory sampling thread did not run: " << t.dump();
    for (int i = 0; i < t.at("bins").get<int>(); ++i, ++rows) {
      ASSERT_TRUE(std::getline(lines, line));
      std::vector<std::string> f;
      std::istringstream cells(line + ",");
      for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
      ASSERT_EQ(f.size(), 9u) << line;
      EXPECT_EQ(std::stoi(f[0]), r.at("rank").get<int>());
      EXPECT_EQ(std::stoi(f[1]), i);
      EXPECT_EQ(std::stod(f[4]), t["compute_s"][i].get<double>()) << line;
      EXPECT_EQ(std::stod(f[5]), t["mpi_s"][i].get<double>()) << line;
      EXPECT_EQ(std::stod(f[6]), t["io_s"][i].get<double>()) << line;
      const int k = t["top_mpi"][i];
      EXPECT_EQ(f[7], k < 0 ? "" : t["calls"][k].get<std::string>()) << line;
      EXPECT_EQ(f[8], std::to_string(t["rss_kib"][i].get<std::int64_t>())) << line;
    }
  }
  EXPECT_FALSE(std::getline(lines, line)) << "extra row " << line;
  // Text: three phases in order, each with its mark.
  const std::string text = run_hpcsens({"report", path});
  const auto phases = text.find("Timeline phases");
  ASSERT_NE(phases, std::string::npos) << text;
  const std::string table = text.substr(phases);
  const auto c = table.find(" compute "), m = table.find(" MPI "), o = table.find(" I/O ", m);
  EXPECT_TRUE(c != std::string::npos && m != std::string::npos && o != std::string::npos && c < m && m < o) << table;
  EXPECT_NE(table.find("MPI_Allreduce"), std::string::npos) << table;
  EXPECT_NE(table.find("pcontrol:1"), std::string::npos) << table;
  EXPECT_NE(table.find("pcontrol:2"), std::string::npos) << table;
  // HTML: the heat map holds every rank's bins as the record has them, and the marks.
  const std::string page = dir_ + "/page.html";
  run_hpcsens({"report", path, "--format", "html", "-o", page});
  const auto dom = hpcsens::testing::dump_dom(dir_ + "/profile", page);
  ASSERT_EQ(dom.exit_status, 0) << dom.err;
  EXPECT_EQ(hpcsens::testing::body_attribute(dom.out, "data-script-errors"), 0) << dom.err;
  const json heat = hpcsens::testing::chart_titled(hpcsens::testing::rendered_charts(dom.out), "Ranks x time");
  ASSERT_FALSE(heat.is_null()) << "no heat map drawn";
  EXPECT_EQ(heat.at("cells").get<std::size_t>(), rows);
  EXPECT_EQ(heat.at("marks"), json({"pcontrol:1", "pcontrol:2"}));
  ASSERT_EQ(heat.at("rows").size(), rec.at("ranks").size());
  for (std::size_t k = 0; k < heat["rows"].size(); ++k) {
    const json& drawn = heat["rows"][k];
    const json& t = rec["ranks"][k]["timeline"];
    EXPECT_EQ(drawn.at("rank"), rec["ranks"][k]["rank"]);
    ASSERT_EQ(drawn.at("cells").size(), t["mpi_s"].size());
    for (std::size_t i = 0; i < t["mpi_s"].size(); ++i)
      EXPECT_EQ(drawn["cells"][i], json({t["compute_s"][i], t["mpi_s"][i], t["io_s"][i]})) << "rank " << k << " bin " << i;
  }
  // A picture for a person to look at.
  std::filesystem::create_directories(HPCSENS_SCREENSHOTS);
  const std::string png = std::string(HPCSENS_SCREENSHOTS) + "/timeline.png";
  auto argv = hpcsens::testing::chromium(dir_ + "/profile");
  argv.push_back("--window-size=1200,1400");
  argv.push_back("--screenshot=" + png);
  argv.push_back("file://" + page);
  EXPECT_EQ(hpcsens::testing::run_process(argv, 120).exit_status, 0);
}

}  // namespace
