#pragma once
// A request handle as a hash-table key (Open MPI: a pointer, MPICH: an int), and the slot it
// starts probing at in a table of `slots` entries (a power of two at most 1024).
#include <cstdint>
#include <cstring>

#include "preload/real/pmpi.h"

namespace hpcsens::preload {

inline std::uintptr_t request_key(const MPI_Request* r) noexcept {
  std::uintptr_t k = 0;
  std::memcpy(&k, r, sizeof(MPI_Request) < sizeof k ? sizeof(MPI_Request) : sizeof k);
  return k;
}

// Fibonacci hashing; the low 3 bits are dropped (pointers to requests are 8-byte aligned).
inline unsigned request_home(std::uintptr_t key, unsigned slots) noexcept {
  return static_cast<unsigned>(((key >> 3) * 0x9E3779B97F4A7C15ull) >> 54) % slots;
}

}  // namespace hpcsens::preload
