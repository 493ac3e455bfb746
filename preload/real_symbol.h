#pragma once
// Finding the real MPI at run time. The preload is not linked against libmpi (it must load
// harmlessly into mpirun, shells and python), so every PMPI function and every Fortran symbol we
// forward to is looked up with dlsym the first time it is needed and cached.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace hpcsens::preload {

template <class Fn>
class RealSymbol {
 public:
  // next=true: the next definition of the same name after this library (Fortran symbols, POSIX
  // functions that we define ourselves); false: the global scope (PMPI_ names, which we never
  // define, found even when libmpi was dlopen'ed after us).
  constexpr RealSymbol(const char* name, bool next) noexcept : name_(name), next_(next) {}

  Fn get() noexcept {
    Fn f = fn_.load(std::memory_order_relaxed);
    if (f == nullptr) [[unlikely]]
      f = resolve();
    return f;
  }
  // nullptr when the symbol does not exist (e.g. no MPI in this process).
  Fn find() noexcept {
    Fn f = fn_.load(std::memory_order_relaxed);
    if (f == nullptr) {
      f = reinterpret_cast<Fn>(dlsym(next_ ? RTLD_NEXT : RTLD_DEFAULT, name_));
      fn_.store(f, std::memory_order_relaxed);
    }
    return f;
  }
  const char* name() const noexcept { return name_; }

 private:
  Fn resolve() noexcept {
    Fn f = find();
    if (f == nullptr) {
      // Only reachable if the application called an MPI function its MPI does not define.
      std::fprintf(stderr, "hpcsens: fatal: %s not found in this process\n", name_);
      std::abort();
    }
    return f;
  }

  const char* name_;
  bool next_;
  std::atomic<Fn> fn_{nullptr};
};

}  // namespace hpcsens::preload
