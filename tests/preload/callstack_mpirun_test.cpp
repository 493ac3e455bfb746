// Issue 33 items 1-2 and issue 29 item 7 under a real mpirun: `hpcsens run --stack-depth 2` on a
// program whose stacks are known (prog_callstack.c). mpiP is not installed here (Debian has no
// package), so the sites are checked against the fixture's own truth: the two callers of one
// helper are two sites with their counts and bytes, the inlined helper is named as mpiP names it,
// each call's min/max bytes are the message sizes sent; names survive the program being replaced,
// and a record without names says the program is not the one that ran.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "process.h"
#include "tests/report/chromium_page.h"
#include "tests/preload/mpirun_fixture.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int marker_line(const std::string& name) {
  std::ifstream in(SRC_CALLSTACK);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find("site:" + name + " ") != std::string::npos) return n;
  return -1;
}

std::string at(const std::string& function, const std::string& marker) {
  return function + " (prog_callstack.c:" + std::to_string(marker_line(marker));
}

class CallStacks : public hpcsens::test::MpirunFixture {
 protected:
  std::string run_job(const std::string& program) {
    const std::string out = dir_ + "/out";
    EXPECT_EQ(sh(std::string(HPCSENS_BIN) + " run --stack-depth 2 -o " + out + " -- " + HPCSENS_MPIRUN +
                 " -np 2 --oversubscribe " + program),
              0)
        << log();
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().extension() == ".json") return e.path().string();
    return "";
  }
  json sites(const std::string& rec) {
    const auto r = hpcsens::testing::run_process({HPCSENS_BIN, "report", rec, "--format", "json"}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return json::parse(r.out).at("derived").at("callsites");
  }
  // The fixture's program copied into the test's directory (so a test may replace it), then run.
  std::string run_copy(std::string& program) {
    program = dir_ + "/prog";
    fs::copy_file(PROG_CALLSTACK, program);
    return run_job(program);
  }
  static const json* find(const json& all, const std::string& call, const std::string& label_start) {
    for (const json& s : all)
      if (s.at("call") == call && s.at("site").get<std::string>().starts_with(label_start)) return &s;
    return nullptr;
  }
};

TEST_F(CallStacks, HelperCallersAreTwoSitesAndTheInlinedHelperIsNamed) {
  std::string program;
  const std::string rec = run_copy(program);
  ASSERT_FALSE(rec.empty()) << log();
  const json all = sites(rec);
  const std::string helper = at("helper", "helper") + ") <- ";
  const json* a = find(all, "MPI_Send", helper + at("main", "from_a"));
  const json* b = find(all, "MPI_Send", helper + at("main", "from_b"));
  ASSERT_TRUE(a && b) << all.dump(1);
  EXPECT_EQ(a->at("count"), 3);
  EXPECT_EQ(a->at("bytes"), 48);
  EXPECT_EQ(a->at("min_bytes"), 16);
  EXPECT_EQ(a->at("max_bytes"), 16);
  EXPECT_EQ(b->at("count"), 2);
  EXPECT_EQ(b->at("bytes"), 512);
  const json* r = find(all, "MPI_Recv", at("main", "from_b").substr(0, 6));
  ASSERT_TRUE(r) << all.dump(1);
  EXPECT_EQ(r->at("count"), 5);
  EXPECT_EQ(r->at("min_bytes"), 16);
  EXPECT_EQ(r->at("max_bytes"), 256);
  EXPECT_LE(r->at("call_min_s").get<double>(), r->at("call_mean_s").get<double>());
  EXPECT_LE(r->at("call_mean_s").get<double>(), r->at("call_max_s").get<double>());
  const json* inl = find(all, "MPI_Allreduce", at("site_a", "inlined") + ", inlined in main)");
  ASSERT_TRUE(inl) << all.dump(1);
  EXPECT_EQ(inl->at("ranks"), 2);
  EXPECT_EQ(inl->at("count"), 2);

  // Another program at the same path: the names stored at the end of the run still hold; a record
  // without them says the program is not the one that ran.
  fs::remove(program);
  fs::copy_file(PROG_CALLSITES_OTHER, program);
  EXPECT_TRUE(find(sites(rec), "MPI_Send", helper + at("main", "from_a"))) << sites(rec).dump(1);
  json j = json::parse(std::ifstream(rec));
  for (json& rank : j.at("ranks"))
    for (json& s : rank.at("callsites")) s.erase("function"), s.erase("file"), s.erase("line");
  const std::string bare = dir_ + "/bare.json";
  std::ofstream(bare) << j.dump();
  const std::string want = "(unresolved: the program at " + program + " is not the one that ran)";
  const json moved = sites(bare);
  int sends = 0;
  for (const json& s : moved) {
    if (s.at("call") != "MPI_Send") continue;
    ++sends;
    EXPECT_NE(s.at("site").get<std::string>().find(want), std::string::npos) << s;
  }
  EXPECT_EQ(sends, 2) << moved.dump(1);
}

// The page's call-site time table, as headless Chromium holds it after the page's script ran: every
// per-rank row and '*' row shows the JSON report's numbers (calls, mean [ms], App%, MPI%).
std::vector<std::vector<std::string>> page_table_rows(const std::string& dom, const std::string& title) {
  std::vector<std::vector<std::string>> rows;
  const auto at = dom.find("<h3>" + title);
  if (at == std::string::npos) return rows;
  const std::string table = dom.substr(at, dom.find("</table>", at) - at);
  const std::regex tr("<tr>(.*?)</tr>"), td("<td[^>]*>([^<]*)</td>");
  for (auto r = std::sregex_iterator(table.begin(), table.end(), tr); r != std::sregex_iterator(); ++r) {
    const std::string row = (*r)[1].str();
    std::vector<std::string> cells;
    for (auto c = std::sregex_iterator(row.begin(), row.end(), td); c != std::sregex_iterator(); ++c)
      cells.push_back(hpcsens::testing::html_unescape((*c)[1].str()));
    if (!cells.empty()) rows.push_back(cells);
  }
  return rows;
}

std::string fixed_text(double v, int places) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", places, v);
  return buf;
}

TEST_F(CallStacks, PageTimeTableCellsEqualTheJson) {
  std::string program;
  const std::string rec = run_copy(program);
  ASSERT_FALSE(rec.empty()) << log();
  const json all = sites(rec);
  const std::string page = dir_ + "/page.html";
  const auto html = hpcsens::testing::run_process({HPCSENS_BIN, "report", rec, "--format", "html", "-o", page}, 120);
  ASSERT_EQ(html.exit_status, 0) << html.err;
  const auto dom = hpcsens::testing::dump_dom(dir_ + "/profile", page);
  ASSERT_EQ(dom.exit_status, 0) << dom.err;
  const auto rows = page_table_rows(dom.out, "Call-site time statistics");
  ASSERT_FALSE(rows.empty()) << "no call-site time table on the page";
  auto find_row = [&](const std::string& site, const std::string& call, const std::string& rank) {
    for (const auto& r : rows)
      if (r.size() == 9 && r[0] == site && r[1] == call && r[2] == rank) return &r;
    return static_cast<const std::vector<std::string>*>(nullptr);
  };
  std::size_t checked = 0;
  for (const json& s : all) {
    const std::string site = s.at("site"), call = s.at("call");
    for (const json& r : s.at("per_rank")) {
      const auto* row = find_row(site, call, std::to_string(r.at("rank").get<int>()));
      ASSERT_TRUE(row) << site << " " << call << " rank " << r.at("rank");
      EXPECT_EQ((*row)[3], std::to_string(r.at("count").get<int>()));
      EXPECT_EQ((*row)[5], fixed_text(r.at("call_mean_s").get<double>() * 1e3, 4));
      EXPECT_EQ((*row)[7], fixed_text(r.at("app_pct").get<double>(), 2));
      EXPECT_EQ((*row)[8], fixed_text(r.at("mpi_pct").get<double>(), 2));
      ++checked;
    }
    const auto* star = find_row(site, call, "*");
    ASSERT_TRUE(star) << site << " " << call;
    EXPECT_EQ((*star)[3], std::to_string(s.at("count").get<int>()));
    EXPECT_EQ((*star)[5], fixed_text(s.at("call_mean_s").get<double>() * 1e3, 4));
    EXPECT_EQ((*star)[7], fixed_text(s.at("app_pct").get<double>(), 2));
    ++checked;
  }
  // Rank rows of every site (2 + 1 + 2 + 1 + 1 here) and one '*' row per site.
  EXPECT_EQ(checked, rows.size());
}

}  // namespace
