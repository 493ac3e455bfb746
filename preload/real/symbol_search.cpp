#include "preload/real/symbol_search.h"

#include <dlfcn.h>
#include <link.h>

#include <string>
#include <vector>

namespace hpcsens::preload {
namespace {

struct Loaded {
  const char* self_path = nullptr;
  std::vector<std::string> paths;
};

// Names are copied: dlopen cannot be called inside dl_iterate_phdr's callback (it holds the
// loader's list lock), and an object may go away once the callback returns.
int collect(struct dl_phdr_info* info, size_t, void* data) {
  auto* loaded = static_cast<Loaded*>(data);
  const char* path = info->dlpi_name;
  if (path == nullptr || path[0] == '\0') return 0;  // the program: its scope is the global one
  if (loaded->self_path != nullptr && std::string(path) == loaded->self_path) return 0;
  try {
    loaded->paths.emplace_back(path);
  } catch (...) {
    return 1;
  }
  return 0;
}

const void* base_of(const void* address) {
  Dl_info info{};
  return dladdr(address, &info) != 0 ? info.dli_fbase : nullptr;
}

}  // namespace

void* find_in_loaded_objects(const char* name, const void* self) noexcept {
  Dl_info own{};
  if (dladdr(self, &own) == 0) return nullptr;
  Loaded loaded;
  loaded.self_path = own.dli_fname;
  dl_iterate_phdr(collect, &loaded);
  for (const std::string& path : loaded.paths) {
    // RTLD_NOLOAD: only a handle to what is already mapped (no load, no constructors run).
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* found = dlsym(handle, name);
    dlclose(handle);
    // A handle's search covers its dependencies; none of them is this library, but a definition
    // resolving back to us would forward a call to itself.
    if (found != nullptr && base_of(found) != own.dli_fbase) return found;
  }
  return nullptr;
}

void* find_symbol(const char* name, bool next) noexcept {
  if (void* found = dlsym(next ? RTLD_NEXT : RTLD_DEFAULT, name)) return found;
  return find_in_loaded_objects(name, reinterpret_cast<const void*>(&find_in_loaded_objects));
}

}  // namespace hpcsens::preload
