// The wrapper generator and its output: the table is checked against the real MPI libraries,
// and the built library is checked to export a wrapper for every entry and every mangling.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "call_table.h"

namespace hpcsens::preload {
namespace {

// POSIX and stdio wrappers: plain C functions, not MPI's.
bool is_posix(Category c) {
  return c == Category::posix_meta || c == Category::posix_read || c == Category::posix_write ||
         c == Category::stdio_meta || c == Category::stdio_read || c == Category::stdio_write;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

struct Lib {
  explicit Lib(const char* path) : h(path[0] ? dlopen(path, RTLD_LAZY | RTLD_LOCAL) : nullptr) {}
  ~Lib() {
    if (h) dlclose(h);
  }
  bool has(const std::string& sym) const { return h && dlsym(h, sym.c_str()) != nullptr; }
  void* h;
};

TEST(Generator, PreloadExportsEveryTableEntryInEveryMangling) {
  Lib preload(HPCSENS_PRELOAD_LIB);
  ASSERT_NE(preload.h, nullptr) << dlerror();
  int fortran = 0;
  for (const auto& c : kCalls) {
    const std::string n = c.name;
    // MPI-4 calls: Open MPI 4.1's mpi.h (MPI_VERSION 3) has no prototype to wrap.
    EXPECT_EQ(preload.has(n), c.min_mpi_version <= 3) << n;
    if (c.min_mpi_version > 3) continue;
    if (is_posix(c.category)) continue;
    // The PMPI_ name too, so a PMPI tool preloaded before hpcsens is still seen.
    EXPECT_TRUE(preload.has("P" + n)) << "P" << n;
    if (!c.fortran) continue;
    for (const auto& f : {lower(n), lower(n) + "_", lower(n) + "__", upper(n), lower(n) + "_f08_"}) {
      EXPECT_TRUE(preload.has(f)) << f;
      ++fortran;
    }
  }
  EXPECT_GT(fortran, 5 * 150);
  for (const char* life : {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort", "mpi_init_",
                           "mpi_finalize_f08_", "MPI_INIT_THREAD", "mpi_abort__"})
    EXPECT_TRUE(preload.has(life)) << life;
  // Nothing of our own implementation leaks into the application's namespace.
  EXPECT_FALSE(preload.has("_ZN7hpcsens6record7to_jsonERKNS0_9RunRecordE"));
}

TEST(Generator, EveryTableEntryExistsInTheRealMpi) {
  Lib mpi(HPCSENS_LIBMPI), mpifh(HPCSENS_LIBMPIFH), f08(HPCSENS_LIBMPIF08);
  if (!mpi.h || !mpifh.h || !f08.h) GTEST_SKIP() << "not Open MPI with Fortran bindings";
  for (const auto& c : kCalls) {
    if (is_posix(c.category) || c.min_mpi_version > 3) continue;
    const std::string n = c.name;
    EXPECT_TRUE(mpi.has(n) && mpi.has("P" + n)) << n << " / P" << n;
    if (!c.fortran) continue;
    EXPECT_TRUE(mpifh.has(lower(n) + "_")) << lower(n) + "_";
    EXPECT_TRUE(f08.has(lower(n) + "_f08_")) << lower(n) + "_f08_";
  }
}

#ifdef HPCSENS_PRELOAD_MPICH_LIB
TEST(Generator, MpichPreloadExportsTheMpi4CallsMpichHas) {
  Lib preload(HPCSENS_PRELOAD_MPICH_LIB), mpich(HPCSENS_LIBMPICH);
  ASSERT_NE(preload.h, nullptr) << dlerror();
  ASSERT_NE(mpich.h, nullptr) << dlerror();
  int mpi4 = 0;
  for (const auto& c : kCalls) {
    if (c.min_mpi_version < 4) continue;
    const std::string n = c.name;
    EXPECT_TRUE(mpich.has(n)) << n << " is in mpi4_calls.tbl but not in MPICH";
    EXPECT_TRUE(preload.has(n) && preload.has("P" + n)) << n;
    ++mpi4;
  }
  EXPECT_GE(mpi4, 200);
  EXPECT_TRUE(preload.has("MPI_Send") && preload.has("MPI_Send_c") && preload.has("MPI_Psend_init"));
}
#endif

// Runs the generator on `table` text; returns its exit status and stderr.
std::pair<int, std::string> generate(const std::string& table) {
  char dir[] = "/tmp/hpcsens-gen-XXXXXX";
  if (!mkdtemp(dir)) return {-1, "mkdtemp failed"};
  const std::string d = dir;
  std::ofstream(d + "/t.tbl") << table;
  const std::string cmd = std::string("timeout 30 ") + HPCSENS_PYTHON + " " + HPCSENS_GENERATOR +
                          " " + d + "/t.tbl " + d + "/out 2> " + d + "/err";
  const int st = std::system(cmd.c_str());
  std::ifstream in(d + "/err");
  std::string err((std::istreambuf_iterator<char>(in)), {});
  std::system(("rm -rf " + d).c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, err};
}

TEST(Generator, RejectsBadTablesNamingLineAndField) {
  const std::string good =
      "MPI_Send | p2p | n(count)*t(datatype) | const void *buf, int count, MPI_Datatype datatype, "
      "int dest, int tag, MPI_Comm comm | =\n";
  EXPECT_EQ(generate(good).first, 0);

  auto [st, err] = generate("# comment\n" + good + "MPI_Recv | p2pp | - | int count | =\n");
  EXPECT_EQ(st, 2);
  EXPECT_NE(err.find("t.tbl:3: field category: unknown category 'p2pp'"), std::string::npos) << err;

  std::tie(st, err) = generate("MPI_Send | p2p | n(cnt) | int count | =\n");
  EXPECT_EQ(st, 2);
  EXPECT_NE(err.find("t.tbl:1: field bytes: 'cnt' is not a parameter of MPI_Send"),
            std::string::npos) << err;

  std::tie(st, err) = generate("MPI_Send | p2p | -\n");
  EXPECT_EQ(st, 2);
  EXPECT_NE(err.find("t.tbl:1: expected 5"), std::string::npos) << err;

  std::tie(st, err) = generate(good + good);
  EXPECT_EQ(st, 2);
  EXPECT_NE(err.find("t.tbl:2: field name: 'MPI_Send' listed twice"), std::string::npos) << err;
}

TEST(Generator, IncludedTableIsWrappedOnlyUnderItsCondition) {
  char dir[] = "/tmp/hpcsens-gen-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string d = dir;
  std::ofstream(d + "/t.tbl")
      << "MPI_Barrier | coll | - | MPI_Comm comm | =\n@include four.tbl if MPI_VERSION >= 4\n";
  std::ofstream(d + "/four.tbl")
      << "MPI_Barrier_init | coll | - | MPI_Comm comm, MPI_Info info, MPI_Request *request | -\n";
  const std::string gen = std::string(HPCSENS_PYTHON) + " " + HPCSENS_GENERATOR + " " + d +
                          "/t.tbl " + d + "/out 2> " + d + "/err";
  ASSERT_EQ(std::system(gen.c_str()), 0);
  std::ifstream in(d + "/out/wrappers_c.cpp"), tab(d + "/out/call_table.cpp");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string table((std::istreambuf_iterator<char>(tab)), {});
  const auto cond = text.find("#if MPI_VERSION >= 4");
  ASSERT_NE(cond, std::string::npos);
  EXPECT_LT(text.find("int MPI_Barrier("), cond);
  EXPECT_LT(cond, text.find("int MPI_Barrier_init("));
  EXPECT_LT(text.find("int PMPI_Barrier_init("), text.find("#endif"));
  EXPECT_NE(table.find("{\"MPI_Barrier_init\", Category::coll, false, 4}"), std::string::npos)
      << table;
  // A Fortran wrapper cannot be conditional; a directive must name its condition.
  std::ofstream(d + "/four.tbl") << "MPI_Barrier_init | coll | - | MPI_Comm comm | =\n";
  EXPECT_NE(std::system(gen.c_str()), 0);
  std::ifstream err1(d + "/err");
  const std::string e1((std::istreambuf_iterator<char>(err1)), {});
  EXPECT_NE(e1.find("four.tbl:1: field Fortran"), std::string::npos) << e1;
  std::ofstream(d + "/t.tbl") << "@include four.tbl\n";
  EXPECT_NE(std::system(gen.c_str()), 0);
  std::ifstream err2(d + "/err");
  const std::string e2((std::istreambuf_iterator<char>(err2)), {});
  EXPECT_NE(e2.find("t.tbl:1: field directive"), std::string::npos) << e2;
  std::system(("rm -rf " + d).c_str());
}

TEST(Generator, CharacterArgumentsGetHiddenFortranLengths) {
  char dir[] = "/tmp/hpcsens-gen-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string d = dir;
  std::ofstream(d + "/t.tbl")
      << "MPI_File_delete | io_meta | - | const char *filename, MPI_Info info | =\n";
  const std::string cmd = std::string(HPCSENS_PYTHON) + " " + HPCSENS_GENERATOR + " " + d +
                          "/t.tbl " + d + "/out";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(d + "/out/wrappers_fortran.cpp");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("void mpi_file_delete_(void* filename, void* info, void* ierror, "
                      "std::size_t filename_len)"),
            std::string::npos);
  std::system(("rm -rf " + d).c_str());
}

TEST(Generator, ReceivedBytesComeFromAStatusEvenWhenTheCallerIgnoresIt) {
  char dir[] = "/tmp/hpcsens-gen-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string d = dir;
  std::ofstream(d + "/t.tbl")
      << "MPI_Recv | p2p | rcv(status,count,datatype) | void *buf, int count, MPI_Datatype "
         "datatype, int source, int tag, MPI_Comm comm, MPI_Status *status | =\n"
         "MPI_Send | p2p | n(count)*t(datatype) | const void *buf, int count, MPI_Datatype "
         "datatype, int dest, int tag, MPI_Comm comm | =\n";
  const std::string cmd = std::string(HPCSENS_PYTHON) + " " + HPCSENS_GENERATOR + " " + d +
                          "/t.tbl " + d + "/out";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(d + "/out/wrappers_c.cpp");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  std::system(("rm -rf " + d).c_str());
  // Substituted after the guard (nested calls pass through untouched), before the call.
  const auto recv = text.find("int MPI_Recv(");
  const auto sub = text.find("if (status == MPI_STATUS_IGNORE) status = &own_status;");
  const auto call = text.find("const int rc = real.get()(buf, count, datatype, source", recv);
  ASSERT_NE(recv, std::string::npos);
  ASSERT_NE(sub, std::string::npos);
  EXPECT_LT(recv, sub);
  EXPECT_LT(sub, call);
  EXPECT_LT(text.find("if (!guard.counting())", recv), sub);
  EXPECT_NE(text.find("cb::rcv(status,count,datatype)"), std::string::npos);
  EXPECT_EQ(text.find("own_status", text.find("int MPI_Send(")), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::preload
