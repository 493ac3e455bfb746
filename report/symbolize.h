#pragma once
// Return addresses to function and file:line, with elfutils' libdwfl, after the run and in the
// hpcsens process (never in a rank). An address comes as a module path plus its offset in that
// module's ELF address space (preload/callsite_report.h: each rank's own load map, so PIE and
// ASLR do not matter). The module files are only opened for reading; nothing in them is run.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace hpcsens::report {

struct SourceLocation {
  // Demangled; "" when the module has no symbol there. Where the call was inlined (debug
  // information with inline scopes), the innermost inlined function, as mpiP names it.
  std::string function;
  std::string file;      // "" when the module has no line table there (built without -g)
  int line = 0;
  std::string inlined_into;  // the function the call was inlined into ("" when not inlined)
  std::string problem;  // why there are no names (the module is not the one that ran); "" otherwise
};

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The call instruction before return address `offset` in `module` (a module that cannot be
  // read gives an empty location). Modules are opened once each.
  SourceLocation resolve(const std::string& module, std::uint64_t offset);
  // The module's GNU build-id as lowercase hex ("" when it has none or cannot be read).
  std::string build_id(const std::string& module);

 private:
  struct Module;
  Module& open(const std::string& module);
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

// A symbol's name as a person reads it: Itanium C++ names (_Z...) demangled, any other (a C or
// Fortran function) kept as it is.
std::string demangle_symbol(const char* name);

// "function (file:line)", "function", "file:line" or "module+0xOFFSET", whichever is known.
std::string site_label(const SourceLocation& at, const std::string& module, std::uint64_t offset);

}  // namespace hpcsens::report
