// The record readers (record::load_run_record via nlohmann, report::read_run_record via the
// simdjson DOM, report::scan_run_record via simdjson On-Demand) must accept the same records and
// refuse the same ones with the same message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "record/run_record.h"
#include "report/record_reader.h"
#include "report/run_scan.h"

namespace hpcsens {
namespace {

namespace fs = std::filesystem;

// A valid two-rank record with placeholders @COUNT@, @RANK1@, @EXTRA@ to break on purpose.
const char* kTemplate = R"({"schema": "hpcsens.run.v1",
 "job": {"command": ["mpirun", "./a"], "nranks": 2, "launcher": "openmpi", "hosts": ["n1"]},
 "timing": {"job_s": 1.5, "barrier_s": 0.1, "method": "m"},
 "ranks": [
  {"rank": 0, "host": "n1", "wall_s": 1, "mpi_s": 0.5, "io_s": 0, "compute_s": 0.5,
   "mpi_calls": {"MPI_Send": {"count": @COUNT@, "seconds": 0.5, "bytes": 64}}},
  {"rank": @RANK1@, "host": "n1", "wall_s": 1, "mpi_s": 0.5, "io_s": 0, "compute_s": 0.5 @EXTRA@}
 ]})";

std::string with(std::vector<std::pair<std::string, std::string>> subs) {
  std::string s = kTemplate;
  subs.insert(subs.end(), {{"@COUNT@", "3"}, {"@RANK1@", "1"}, {"@EXTRA@", ""}});
  for (const auto& [k, v] : subs)
    if (auto p = s.find(k); p != std::string::npos) s.replace(p, k.size(), v);
  return s;
}

class ReadersAgree : public ::testing::Test {
 protected:
  void SetUp() override { path_ = fs::temp_directory_path() / ("hpcsens-agree-" + std::to_string(::getpid()) + ".json"); }
  void TearDown() override { fs::remove(path_); }

  // Both readers' messages ("" when accepted); the scan must say what the careful reader says.
  std::pair<std::string, std::string> read_both(const std::string& text) {
    std::ofstream(path_) << text;
    auto message = [](auto&& read) {
      try {
        read();
        return std::string();
      } catch (const InputError& e) {
        return std::string(e.what());
      }
    };
    const std::string careful = message([&] { record::load_run_record(path_.string()); });
    EXPECT_EQ(message([&] { report::scan_run_record(path_.string()); }), careful) << text;
    return {careful, message([&] { report::read_run_record(path_.string()); })};
  }
  fs::path path_;
};

TEST_F(ReadersAgree, OnTheValidRecord) {
  const auto [a, b] = read_both(with({}));
  EXPECT_EQ(a, "");
  EXPECT_EQ(b, "");
  EXPECT_EQ(record::load_run_record(path_.string()).ranks[0].mpi_calls.at("MPI_Send").count, 3u);
  EXPECT_EQ(report::read_run_record(path_.string()).ranks[0].mpi_calls.at("MPI_Send").count, 3u);
}

struct Case {
  const char* name;
  std::string text;
  const char* expected;  // a part of the message: the field
};

TEST_F(ReadersAgree, OnEveryMalformedRecordWithTheFieldNamed) {
  const std::vector<Case> cases = {
      {"duplicate key", with({{"@EXTRA@", R"(, "wall_s": 7)"}}), "duplicate key 'wall_s' at ranks[1].wall_s"},
      {"duplicate top key", with({}) .insert(1, R"("schema": "x", )"), "duplicate key 'schema'"},
      {"count as a large float", with({{"@COUNT@", "1.8e20"}}), "field 'count' is 1.8e+20"},
      {"count negative", with({{"@COUNT@", "-1"}}), "field 'count' is -1"},
      {"count fractional", with({{"@COUNT@", "2.5"}}), "field 'count' is 2.5"},
      {"count beyond uint64", with({{"@COUNT@", "18446744073709551616"}}), "field 'count'"},
      {"rank as 1e10", with({{"@RANK1@", "1e10"}}), "field 'rank' is 10000000000.0"},
      {"rank beyond int", with({{"@RANK1@", "4294967297"}}), "field 'rank' is 4294967297"},
      {"number beyond double", with({{"@EXTRA@", R"(, "t0": 1e400)"}}), "field 'ranks[1].t0': number out of range"},
      {"rank as string", with({{"@RANK1@", "\"1\""}}), "field 'rank' has the wrong type"},
      {"calls not objects", with({{"@EXTRA@", R"(, "mpi_calls": {"MPI_Recv": 3})"}}), "MPI_Recv"},
      {"control bytes in a key", with({{"@EXTRA@", ", \"x\": 1, \"x\": 2"}}), "duplicate key 'x'"},
      {"duplicate call name", with({{"@EXTRA@", R"(, "mpi_calls": {"A": {"count": 1, "seconds": 1}, "A": {"count": 1, "seconds": 1}})"}}),
       "duplicate key 'A'"},
      {"duplicate counter", with({{"@EXTRA@", R"(, "counters": {"C": 1, "C": 2})"}}), "duplicate key 'C'"},
      {"duplicate key deep in an unknown field", with({{"@EXTRA@", R"(, "mine": [{"a": {"b": 1, "b": 2}}])"}}),
       "duplicate key 'b'"},
      {"escaped duplicate key", with({{"@EXTRA@", R"(, "\u0077all_s": 7)"}}), "duplicate key 'wall_s'"},
      {"duplicate ranks", with({}).insert(1, R"("ranks": [], )"), "duplicate key 'ranks'"},
      {"text after the record", with({}) + " {}", "not valid JSON"},
      {"rank listed twice", with({{"@RANK1@", "0"}}), "rank 0 appears twice"},
      {"fewer ranks than nranks", with({{"\"nranks\": 2", "\"nranks\": 3"}}), "'ranks' has only 2 entries"},
      {"calls null", with({{"@EXTRA@", R"(, "io_calls": null)"}}), "io_calls"},
      {"bad literal in an unknown field", with({{"@EXTRA@", R"(, "mine": [tru])"}}), "not valid JSON"},
  };
  for (const auto& c : cases) {
    const auto [a, b] = read_both(c.text);
    EXPECT_EQ(a, b) << c.name;
    EXPECT_NE(a.find(c.expected), std::string::npos) << c.name << ": " << a;
    EXPECT_NE(a, "") << c.name << " was accepted";
  }
}

TEST_F(ReadersAgree, AcceptIntegralFloatsWithinRange) {
  const auto [a, b] = read_both(with({{"@COUNT@", "3.0"}, {"@RANK1@", "1.0"}}));
  EXPECT_EQ(a, "");
  EXPECT_EQ(b, "");
}

TEST_F(ReadersAgree, AcceptEscapedKeysNullOptionalsAndUnknownFields) {
  const auto [a, b] = read_both(with({{"@EXTRA@", R"(, "\u0070id": null, "t0": null, "counters": null,
      "mine": {"deep": [1, 2.5e-3, "x\n", true, null, {}]})"}}));
  EXPECT_EQ(a, "");
  EXPECT_EQ(b, "");
  EXPECT_EQ(report::scan_run_record(path_.string()).rows.at(1).rank, 1);
}

TEST_F(ReadersAgree, RefuseNonRegularFilesWithoutReadingThem) {
  for (const char* p : {"/dev/zero", "/tmp"}) {
    EXPECT_THROW(record::load_run_record(p), InputError) << p;
    EXPECT_THROW(report::read_run_record(p), InputError) << p;
  }
}

}  // namespace
}  // namespace hpcsens
