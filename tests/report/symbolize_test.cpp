// Call-site names from a real module: only mangled names are demangled (a C function named f,
// d or Si is not a float, a double or std::istream).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "report/symbolize.h"

namespace hpcsens::report {
namespace {

// The name the symbolizer gives the code just inside `symbol` of the fixture library (a return
// address one byte in, as a call site's would be).
std::string name_in_fixture(void* lib, const char* symbol) {
  void* at = ::dlsym(lib, symbol);
  EXPECT_NE(at, nullptr) << symbol;
  Dl_info info{};
  if (at == nullptr || ::dladdr(at, &info) == 0) return "(not found)";
  const auto offset = std::uint64_t(reinterpret_cast<std::uintptr_t>(at) - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
  Symbolizer s;
  return s.resolve(info.dli_fname, offset + 1).function;
}

TEST(Symbolize, OnlyMangledNamesAreDemangled) {
  void* lib = ::dlopen(HPCSENS_SYMBOL_FIXTURE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  EXPECT_EQ(name_in_fixture(lib, "f"), "f");
  EXPECT_EQ(name_in_fixture(lib, "d"), "d");
  EXPECT_EQ(name_in_fixture(lib, "Si"), "Si");
  EXPECT_EQ(name_in_fixture(lib, "_ZN15hpcsens_fixture5twiceEi"), "hpcsens_fixture::twice(int)");
  ::dlclose(lib);
}

TEST(Symbolize, DemangleSymbolKeepsPlainNames) {
  EXPECT_EQ(demangle_symbol("f"), "f");
  EXPECT_EQ(demangle_symbol("Si"), "Si");
  EXPECT_EQ(demangle_symbol("main"), "main");
  EXPECT_EQ(demangle_symbol("_Z3addii"), "add(int, int)");
  EXPECT_EQ(demangle_symbol("_Zbroken"), "_Zbroken");
  EXPECT_EQ(demangle_symbol(nullptr), "");
}

}  // namespace
}  // namespace hpcsens::report
