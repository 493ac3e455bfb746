#include "report/symbolize.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cstdlib>
#include <cstring>

namespace hpcsens::report {
namespace {

// Debug information only from the module itself: no separate debug files and no debuginfod
// (a report never reaches the network, and reads no file the record does not name).
int own_debuginfo_only(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
  return -1;
}

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = own_debuginfo_only,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

}  // namespace

// Only Itanium-mangled names (_Z...) are demangled: __cxa_demangle also takes a bare type
// code, so a C function named f, d or Si would come out as float, double or std::istream.
std::string demangle_symbol(const char* name) {
  if (name == nullptr) return "";
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d != nullptr ? d : name;
  std::free(d);
  return out;
}

namespace {

// The name of the innermost inlined function whose code holds `pc` ("" when `pc` is in no inlined
// scope or the module has no DWARF): the scopes libdw lists for the address, innermost first.
std::string innermost_inlined(Dwfl_Module* mod, Dwarf_Addr pc) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, pc, &bias);
  Dwarf_Die* scopes = nullptr;
  const int n = cu != nullptr ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
  std::string name;
  for (int i = 0; i < n && name.empty(); ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram) break;  // the enclosing real function: not inlined
    if (tag != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attr;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attr));
    const char* plain = dwarf_diename(&scopes[i]);
    name = linkage != nullptr ? demangle_symbol(linkage) : plain != nullptr ? plain : "";
  }
  std::free(scopes);
  return name;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

struct Symbolizer::Module {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* mod = nullptr;
  ~Module() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;

Symbolizer::Module& Symbolizer::open(const std::string& module) {
  auto& m = modules_[module];
  if (!m) {
    m = std::make_unique<Module>();
    m->dwfl = dwfl_begin(&kCallbacks);
    int fd = m->dwfl ? ::open(module.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) : -1;
    // Only a regular file: a record naming a device or a FIFO gets no read from it.
    struct stat st {};
    if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) ::close(fd), fd = -1;
    // Placed at its own ELF addresses (bias 0): the offsets the preload recorded are those.
    if (fd >= 0) {
      m->mod = dwfl_report_elf(m->dwfl, module.c_str(), module.c_str(), fd, 0, true);
      if (m->mod == nullptr) ::close(fd);
    }
    if (m->dwfl) dwfl_report_end(m->dwfl, nullptr, nullptr);
  }
  return *m;
}

std::string Symbolizer::build_id(const std::string& module) {
  const Module& m = open(module);
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int n = m.mod != nullptr ? dwfl_module_build_id(m.mod, &bits, &vaddr) : -1;
  std::string out;
  for (int i = 0; i < n; ++i) out += fmt::format("{:02x}", bits[i]);
  return out;
}

SourceLocation Symbolizer::resolve(const std::string& module, std::uint64_t offset) {
  const Module& m = open(module);
  SourceLocation at;
  if (m.mod == nullptr || offset == 0) return at;
  const Dwarf_Addr pc = offset - 1;  // inside the call instruction, not after it
  at.function = demangle_symbol(dwfl_module_addrname(m.mod, pc));
  if (std::string inl = innermost_inlined(m.mod, pc); !inl.empty()) at.inlined_into = at.function, at.function = inl;
  if (Dwfl_Line* line = dwfl_module_getsrc(m.mod, pc); line != nullptr) {
    int lineno = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
    if (file != nullptr) at.file = file, at.line = lineno;
  }
  return at;
}

std::string site_label(const SourceLocation& at, const std::string& module, std::uint64_t offset) {
  const std::string where = at.file.empty() ? "" : fmt::format("{}:{}", base_name(at.file), at.line);
  if (!at.function.empty() && !at.inlined_into.empty())
    return fmt::format("{} ({}{}inlined in {})", at.function, where, where.empty() ? "" : ", ", at.inlined_into);
  if (!at.function.empty() && !where.empty()) return fmt::format("{} ({})", at.function, where);
  if (!at.function.empty()) return at.function + " in " + base_name(module);
  if (!where.empty()) return where;
  const std::string raw = fmt::format("{}+0x{:x}", module.empty() ? "?" : base_name(module), offset);
  return at.problem.empty() ? raw : raw + " (" + at.problem + ")";
}

}  // namespace hpcsens::report
