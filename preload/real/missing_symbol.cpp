#include "preload/real/missing_symbol.h"

#include <atomic>
#include <cstdio>
#include <strings.h>

#include <algorithm>
#include <cstring>

namespace hpcsens::preload {
namespace {

// Filled once per missing function (its first call), read at finalize: no lock, no allocation.
std::atomic<const char*> g_missing_names[kMaxMissingNoted] = {};
std::atomic<int> g_missing_count{0};

bool already_noted(const char* name) noexcept {
  const int n = std::min(g_missing_count.load(std::memory_order_acquire), kMaxMissingNoted);
  for (int i = 0; i < n; ++i) {
    const char* seen = g_missing_names[i].load(std::memory_order_acquire);
    if (seen != nullptr && std::strcmp(seen, name) == 0) return true;
  }
  return false;
}

}  // namespace

bool is_mpi_name(const char* name) noexcept {
  return strncasecmp(name, "MPI_", 4) == 0 || strncasecmp(name, "PMPI_", 5) == 0;
}

void note_missing(const char* name, bool mpi) noexcept {
  // Two threads racing on the first call of one function may both note it: a repeated name in
  // the record, never a lost one.
  if (already_noted(name)) return;
  const int i = g_missing_count.fetch_add(1, std::memory_order_acq_rel);
  if (i < kMaxMissingNoted) g_missing_names[i].store(name, std::memory_order_release);
  if (mpi)
    std::fprintf(stderr,
                 "hpcsens: warning: %s was called but the MPI library in this process does not "
                 "define it; it returned MPI_ERR_UNSUPPORTED_OPERATION (the job runs on; the "
                 "record lists it under preload.missing_functions)\n",
                 name);
  else
    std::fprintf(stderr,
                 "hpcsens: warning: %s was called but no library in this process defines it; it "
                 "failed with ENOSYS (the job runs on)\n",
                 name);
}

int missing_noted() noexcept { return g_missing_count.load(std::memory_order_acquire); }

const char* missing_name(int i) noexcept {
  return i >= 0 && i < kMaxMissingNoted ? g_missing_names[i].load(std::memory_order_acquire) : nullptr;
}

}  // namespace hpcsens::preload
