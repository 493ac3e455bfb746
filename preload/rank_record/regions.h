#pragma once
// Named regions (hpcsens_region_begin/_end) and MPI_Pcontrol phases: wall, MPI and I/O time per
// region, in fixed storage (no allocation: regions may be entered millions of times).
//
// A region's MPI and I/O time are those of the thread that entered it, measured as the change of
// that thread's counters between begin and end; nested regions each count their full span.
// MPI_Pcontrol(level) ends the current phase and starts "pcontrol:<level>"; the whole-run totals
// (mpi_s, io_s, compute_s) are not switched off by it, so compute time stays right.
#include <cstdint>
#include <string>
#include <vector>

namespace hpcsens::preload {

inline constexpr int kMaxRegions = 64;       // distinct names per process
inline constexpr int kMaxRegionDepth = 16;   // open regions per thread
inline constexpr int kMaxRegionName = 63;    // bytes kept of a name

struct RegionResult {
  std::string name;
  std::uint64_t count = 0;
  double wall_s = 0, mpi_s = 0, io_s = 0;
};

// Both return false (and count a drop) when the region cannot be recorded: not between MPI_Init
// and MPI_Finalize, too many names, nesting too deep, or an end that does not match the innermost
// open region of this thread.
bool region_begin(const char* name, std::size_t len) noexcept;
bool region_end(const char* name, std::size_t len) noexcept;
void pcontrol_phase(int level) noexcept;

// Closes the calling thread's open regions and the current Pcontrol phase (at finalize).
void close_open_regions() noexcept;
std::vector<RegionResult> region_results(double seconds_per_tick);
std::uint64_t region_drops() noexcept;
// The name of region index i (timeline marks), "" beyond the table.
const char* region_name(int i) noexcept;
void reset_regions() noexcept;  // tests

}  // namespace hpcsens::preload
