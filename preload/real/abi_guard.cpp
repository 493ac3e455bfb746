// The preload is compiled against one MPI's mpi.h. Injected into a program linked with the other
// MPI (e.g. an Open MPI program started by MPICH's Hydra), its wrappers would pass handles of the
// wrong size (MPICH's int vs Open MPI's pointers) and crash the job. When the library loads, the
// program's libmpi is already mapped: if it has the other ABI, warn once and re-execute the
// program without this library in LD_PRELOAD, so it runs exactly as it would unwrapped. A libmpi
// opened later (dlopen) is caught at MPI_Init instead (lifecycle.cpp: the preload stays inert).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "preload/real/mpi_abi.h"
#include "preload/real/own_arguments.h"

extern char** environ;

namespace hpcsens::preload {
namespace {

constexpr const char* kReexecMark = "HPCSENS_ABI_REEXEC";

void warn_unmeasured(const char* uses) {
  // Launchers export the rank before exec: only rank 0 speaks when we can tell.
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  if (r == nullptr) r = std::getenv("PMI_RANK");
  if (r != nullptr && std::strcmp(r, "0") != 0) return;
  std::fprintf(stderr,
               "hpcsens: warning: this program uses %s but the %s preload was injected; running "
               "unmeasured\n",
               uses, abi::own_mpi_name());
}

// LD_PRELOAD without the entries naming this library (by file name: the path may differ).
std::string preload_without_self(const char* value) {
  Dl_info info{};
  const char* self = dladdr(reinterpret_cast<void*>(&warn_unmeasured), &info) && info.dli_fname
                         ? std::strrchr(info.dli_fname, '/') : nullptr;
  const std::string own = self ? self + 1 : (info.dli_fname ? info.dli_fname : "");
  std::string out, item;
  const std::string v = value;
  for (size_t start = 0; start <= v.size();) {
    size_t end = v.find_first_of(": ", start);
    if (end == std::string::npos) end = v.size();
    item = v.substr(start, end - start);
    const size_t slash = item.rfind('/');
    const std::string base = slash == std::string::npos ? item : item.substr(slash + 1);
    if (!item.empty() && base != own) out += (out.empty() ? "" : ":") + item;
    start = end + 1;
  }
  return out;
}

__attribute__((constructor)) void leave_foreign_mpi_alone() {
  const char* uses = abi::foreign_mpi_loaded();
  if (uses == nullptr) return;
  if (std::getenv(kReexecMark) != nullptr) return;  // already re-executed once: stay inert
  warn_unmeasured(uses);
  const char* preload = std::getenv("LD_PRELOAD");
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0) continue;
    env.emplace_back(*e);
  }
  const std::string rest = preload ? preload_without_self(preload) : std::string();
  if (!rest.empty()) env.push_back("LD_PRELOAD=" + rest);
  env.push_back(std::string(kReexecMark) + "=1");
  std::vector<std::string> args = own_arguments();
  if (args.empty()) return;
  std::vector<char*> cargs, cenv;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  ::execve("/proc/self/exe", cargs.data(), cenv.data());
  // exec failed: run on with the preload inert (MPI_Init will not touch handles).
}

}  // namespace
}  // namespace hpcsens::preload
