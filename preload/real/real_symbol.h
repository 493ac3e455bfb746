#pragma once
// Finding the real MPI at run time. The preload is not linked against libmpi (it must load
// harmlessly into mpirun, shells and python), so every PMPI function and every Fortran symbol we
// forward to is looked up the first time it is needed and cached: with dlsym, and where libmpi
// was loaded with RTLD_LOCAL (mpi4py and other language bindings), in the object that has it
// (symbol_search.h). Where no object defines it, calls go to a stand-in that fails the call
// without ending the process (missing_symbol.h).
#include <atomic>

#include "preload/real/missing_symbol.h"
#include "preload/real/symbol_search.h"

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
    if (missing_.load(std::memory_order_relaxed)) return nullptr;
    Fn f = fn_.load(std::memory_order_relaxed);
    if (f == nullptr) {
      f = reinterpret_cast<Fn>(find_symbol(name_, next_));
      fn_.store(f, std::memory_order_relaxed);
    }
    return f;
  }
  const char* name() const noexcept { return name_; }

 private:
  Fn resolve() noexcept {
    if (Fn f = find()) return f;
    // Our wrapper was reached (found by dlsym or linked against), but no object in the process
    // defines the real function: fail this call and every later one, never the process.
    const bool mpi = is_mpi_name(name_);
    const Fn stand_in = mpi ? &Missing<Fn>::mpi : &Missing<Fn>::posix;
    if (!missing_.exchange(true, std::memory_order_relaxed)) note_missing(name_, mpi);
    fn_.store(stand_in, std::memory_order_relaxed);
    return stand_in;
  }

  const char* name_;
  bool next_;
  std::atomic<Fn> fn_{nullptr};
  std::atomic<bool> missing_{false};
};

}  // namespace hpcsens::preload
