#pragma once
// What a wrapper forwards to when no loaded object defines the real function. The preload exports
// every call of its table, so a program that probes for a function with dlsym (an MPI-4 call on an
// MPI-3 library, "is MPI here?" in a process without MPI) finds ours even where the library lacks
// it. Aborting there would break a job that runs fine without us: instead the call fails the way
// the standard lets it fail, one warning names the function, and the record lists it.
#include <mpi.h>

#include <cerrno>
#include <type_traits>

namespace hpcsens::preload {

// The error an MPI call returns when its library lacks it. MPI_ERR_UNSUPPORTED_OPERATION is the
// standard's class for an operation this implementation does not support (MPI-4.0, 9.4 and 14.7);
// MPI_Error_string gives the caller a meaningful text for it.
inline constexpr int kMissingMpiCall = MPI_ERR_UNSUPPORTED_OPERATION;

// Warns once on stderr (the first time `name` is found missing) and remembers `name` (a string
// with static storage) for the record. `mpi`: the call returned kMissingMpiCall, else -1/ENOSYS.
void note_missing(const char* name, bool mpi) noexcept;
// The names noted so far, in order; at most kMaxMissingNoted are kept, the rest are counted.
inline constexpr int kMaxMissingNoted = 32;
int missing_noted() noexcept;  // how many distinct names were noted (may exceed the kept ones)
const char* missing_name(int i) noexcept;  // i < min(missing_noted(), kMaxMissingNoted)

// The typed stand-ins. MPI: C calls return kMissingMpiCall; Fortran calls (void, every argument a
// pointer, ierror the last pointer, absent in mpi_f08 when null) store it in ierror. Anything
// else (POSIX, stdio): errno = ENOSYS and the function's failure value (-1, nullptr, 0).
template <class Fn>
struct Missing;

template <class R>
R failure_value() noexcept {
  errno = ENOSYS;
  if constexpr (std::is_void_v<R>) return;
  else if constexpr (std::is_pointer_v<R>) return nullptr;
  else if constexpr (std::is_signed_v<R>) return static_cast<R>(-1);
  else return R{};
}

template <class R, class... A>
struct Missing<R (*)(A...)> {
  static R mpi(A... args) noexcept {
    if constexpr (std::is_void_v<R>) {
      void* ierror = nullptr;
      ((ierror = last_pointer(ierror, args)), ...);
      if (ierror != nullptr) *static_cast<MPI_Fint*>(ierror) = kMissingMpiCall;
    } else if constexpr (std::is_same_v<R, int>) {
      return kMissingMpiCall;
    } else {
      return failure_value<R>();
    }
  }
  static R posix(A...) noexcept { return failure_value<R>(); }

 private:
  template <class T>
  static void* last_pointer(void* previous, T arg) noexcept {
    if constexpr (std::is_same_v<T, void*>) return arg;
    else return previous;
  }
};

// C variadic functions (open, openat): never MPI.
template <class R, class... A>
struct Missing<R (*)(A..., ...)> {
  static R mpi(A..., ...) noexcept { return failure_value<R>(); }
  static R posix(A..., ...) noexcept { return failure_value<R>(); }
};

// Names of MPI entry points in C (MPI_, PMPI_) and Fortran (mpi_, pmpi_, MPI_ upper case).
bool is_mpi_name(const char* name) noexcept;

}  // namespace hpcsens::preload
