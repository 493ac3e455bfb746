// Issue 32's input attacks through the real binary: a FIFO handed to `hpcsens report` (it must not
// hang), a record nesting 20,000 arrays (it crashed text and CSV output), a record whose `schema`
// is an array (an internal error in `fit`), and a reused HPCSENS_RUN_ID (a job that wrote no
// record exited 0 and showed the earlier job's record as its own). Each command runs with a
// generous timeout and must end by itself, with exit status 2 (or 74) and a reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"
#include "run_fixture.h"
#include "second_user.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const std::string kExit = std::string(HPCSENS_EXAMPLES_DIR) + "/example_exit";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class BoundedInput : public HpcsensRunTest {
 protected:
  // A real record of a one-rank job.
  std::string real_record() {
    const auto r = wrap({"mpirun", "-np", "1", kExit, "0"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return record_path(r);
  }
  // `hpcsens ARGS...`: it must end by itself (60 s is forever for a refusal).
  static ProcessResult hpcsens(const Args& args) {
    Args v = {HPCSENS_BIN};
    v.insert(v.end(), args.begin(), args.end());
    auto r = run_process(v, 60);
    EXPECT_FALSE(r.timed_out) << "hung: hpcsens " << args.front();
    return r;
  }
};

const std::vector<Args> kEveryFormat = {{"--format", "table"}, {"--format", "md"}, {"--format", "csv"},
                                        {"--format", "json"},  {"--format", "html"},
                                        {"--format", "csv", "--table", "timeline"},
                                        {"--format", "csv", "--table", "callsites"},
                                        {"--format", "csv", "--table", "files"}};

TEST_F(BoundedInput, ReportOnAFifoIsRefusedAtOnceInEveryFormat) {
  fs::create_directories(out_);
  const std::string fifo = (out_ / "record.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const auto& format : kEveryFormat) {
    Args args = {"report", fifo};
    args.insert(args.end(), format.begin(), format.end());
    const auto r = hpcsens(args);
    EXPECT_EQ(r.exit_status, 2) << format[1] << ": " << r.err;
    EXPECT_NE(r.err.find(fifo + ": is a FIFO (named pipe), not a regular file"), std::string::npos) << r.err;
  }
  // fit given it, and fit and report given the directory holding it (a FIFO is no record there).
  auto r = hpcsens({"fit", fifo});
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find(fifo + ": is a FIFO (named pipe), not a regular file"), std::string::npos) << r.err;
  r = hpcsens({"fit", out_.string()});
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("no run records or CSV rows found"), std::string::npos) << r.err;
}

// 20,000 nested arrays (40 KiB) at the top level and inside a rank: refused with the field and
// the limit in every format, and by fit; nothing recurses that deep.
TEST_F(BoundedInput, DeeplyNestedRecordIsRefusedInEveryFormatNamingTheField) {
  const std::string good = real_record();
  ASSERT_FALSE(good.empty());
  const std::string text = slurp(good);
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  const std::string top = (out_ / "deep_top.json").string(), in_rank = (out_ / "deep_rank.json").string();
  std::ofstream(top) << "{\"junk\": " << deep << "," << text.substr(text.find('{') + 1);
  const auto ranks = text.find("\"ranks\"");
  const auto first_rank = text.find('{', ranks);
  std::ofstream(in_rank) << text.substr(0, first_rank + 1) << "\"junk\": " << deep << "," << text.substr(first_rank + 1);
  for (const auto& [file, field] : {std::pair{top, "field 'junk[0][0]"}, std::pair{in_rank, "junk[0][0]"}}) {
    for (const auto& format : kEveryFormat) {
      Args args = {"report", file};
      args.insert(args.end(), format.begin(), format.end());
      const auto r = hpcsens(args);
      EXPECT_EQ(r.exit_status, 2) << file << " " << format.back() << ": " << r.err;
      EXPECT_NE(r.err.find(file + ": "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(field), std::string::npos) << format.back() << ": " << r.err;
      EXPECT_NE(r.err.find("nested more than 256 levels deep"), std::string::npos) << format.back() << ": " << r.err;
    }
    const auto fit = hpcsens({"fit", file});
    EXPECT_EQ(fit.exit_status, 2) << fit.err;
    EXPECT_NE(fit.err.find("nested more than 256 levels deep"), std::string::npos) << fit.err;
  }
}

// A record whose schema is an array: a damaged record, exit 2 naming the field, whether fit is
// given the file or the directory holding it (where other JSON is skipped).
TEST_F(BoundedInput, SchemaOfTheWrongTypeIsAnInputErrorInFitAndReport) {
  const std::string good = real_record();
  ASSERT_FALSE(good.empty());
  auto j = nlohmann::json::parse(slurp(good));
  j["schema"] = nlohmann::json::array({"hpcsens.run.v1"});
  fs::create_directories(out_ / "records");
  const std::string bad = (out_ / "records" / "bad.json").string();
  std::ofstream(bad) << j.dump();
  for (const std::string& input : {(out_ / "records").string(), bad}) {
    const auto fit = hpcsens({"fit", input});
    EXPECT_EQ(fit.exit_status, 2) << fit.err;
    EXPECT_NE(fit.err.find("'schema'"), std::string::npos) << fit.err;
    EXPECT_EQ(fit.err.find("internal"), std::string::npos) << fit.err;
  }
  // A model whose schema is an array: report (every format) and predict say so, exit 2.
  const std::string model = (out_ / "model.json").string();
  std::ofstream(model) << R"({"schema": ["hpcsens.model.v1"], "model": "cpu+fixed"})";
  for (const std::string& file : {bad, model}) {
    for (const auto& format : kEveryFormat) {
      Args args = {"report", file};
      args.insert(args.end(), format.begin(), format.end());
      const auto r = hpcsens(args);
      EXPECT_EQ(r.exit_status, 2) << file << " " << format.back() << ": " << r.err;
      EXPECT_NE(r.err.find("schema"), std::string::npos) << format.back() << ": " << r.err;
    }
  }
  const auto predict = hpcsens({"predict", model, "--cpu-ghz", "2"});
  EXPECT_EQ(predict.exit_status, 2) << predict.err;
  EXPECT_NE(predict.err.find("field 'schema'"), std::string::npos) << predict.err;
}

// HPCSENS_RUN_ID used twice: the second job writes no record and must neither exit 0 nor show the
// first job's record; one that fails keeps its own status.
TEST_F(BoundedInput, AReusedRunIdNeverHandsOverAnEarlierJobsRecord) {
  const auto first = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", out_.string(), "--", "mpirun",
                                  "-np", "1", kExit, "0"}, kTimeout);
  ASSERT_EQ(first.exit_status, 0) << first.err;
  const std::string earlier = record_path(first);
  ASSERT_FALSE(earlier.empty()) << first.err;
  const auto second = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", out_.string(), "--",
                                   "mpirun", "-np", "1", "/bin/true"}, kTimeout);
  EXPECT_FALSE(second.timed_out);
  EXPECT_EQ(second.exit_status, 74) << second.err;
  EXPECT_EQ(record_path(second), "") << "the earlier job's record shown as this one's:\n" << second.err;
  EXPECT_NE(second.err.find("no MPI ranks reported"), std::string::npos) << second.err;
  const auto failing = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", out_.string(), "--",
                                    "mpirun", "-np", "1", "/bin/sh", "-c", "exit 3"}, kTimeout);
  EXPECT_EQ(failing.exit_status, 3) << failing.err;
  EXPECT_EQ(record_path(failing), "") << failing.err;
  EXPECT_TRUE(fs::exists(earlier)) << "the earlier record is left alone";
  EXPECT_FALSE(fs::exists(out_ / ".R.run-lock")) << "the run-id lock is removed after the run";
}

// Two runs under one id at once could not tell their records apart: the second is refused
// before its job starts while the first runs.
TEST_F(BoundedInput, OneRunIdRunsOnceAtATimeInADirectory) {
  fs::create_directories(out_);
  const std::string go = (out_ / "go").string(), o = out_.string();
  const std::string script =
      "HPCSENS_RUN_ID=L " + std::string(HPCSENS_BIN) + " run --out " + o + " -- mpirun -np 1 /bin/sh -c " +
      "'while [ ! -e " + go + " ]; do sleep 0.02; done' >" + o + "/first.log 2>&1 & first=$!; "
      "while [ ! -e " + o + "/.L.run-lock ]; do sleep 0.02; done; "
      "HPCSENS_RUN_ID=L " + std::string(HPCSENS_BIN) + " run --out " + o + " -- mpirun -np 1 " + kExit +
      " 0; echo \"second=$?\"; touch " + go + "; wait $first; echo \"first=$?\"";
  const auto r = run_process({"/bin/sh", "-c", script}, 120);
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_NE(r.out.find("second=2"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("run id 'L' is in use by another hpcsens run in " + o), std::string::npos) << r.err;
  // The first job (not an MPI program) ran to its end: no record, so 74.
  EXPECT_NE(r.out.find("first=74"), std::string::npos) << r.out << slurp(out_ / "first.log");
}

// The lock's name is predictable (run ids are on mpirun's command line): another user who plants
// it in a shared sticky --out must not stop the run, only lose it the lock.
TEST_F(SecondUser, APlantedRunIdLockDoesNotStopTheRun) {
  fs::create_directories(out_ / "shared");
  ::chmod((out_ / "shared").c_str(), 01777);
  const std::string shared = (out_ / "shared").string();
  ASSERT_EQ(as_user("touch " + shared + "/.P.run-lock"), 0);
  const auto r = run_process({"env", "HPCSENS_RUN_ID=P", HPCSENS_BIN, "run", "--out", shared, "--", "mpirun", "-np",
                              "1", kExit, "0"}, kTimeout);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(record_path(r), "") << r.err;
  EXPECT_NE(r.err.find("cannot lock the run id (" + shared + "/.P.run-lock: is owned by another user (uid " +
                       std::to_string(uid_) + ")"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hpcsens::testing
