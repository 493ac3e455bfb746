#pragma once
// Call stacks of depth k > 1 without libgcc's unwinder on every call (issue 33).
//
// What is cached is not a stack but how to step out of each frame: per return address, the CFA
// rule of the function it returns into (cfi_rule.h), read from .eh_frame the first time that
// address is seen anywhere on a walked stack. Later walks step frame by frame with a table lookup
// and two loads per frame, reading the real return addresses off the stack, so two call paths that
// reach the same helper stay two stacks: nothing is keyed by the immediate caller alone. The
// addresses found are exactly those libgcc's _Unwind_Backtrace reports (tests compare the two);
// where a frame's rule is one the cache does not model (a realigned stack's CFA expression, a
// signal frame, code without an FDE) or the table is full, the walk answers 0 and the caller uses
// libgcc for that call.
//
// Hot path: no allocation, lock or system call; a fixed table of kStepSlots return addresses per
// process, shared by all threads (key claimed with a compare-and-swap, rule published with a
// release store). Assumes code is not unloaded and replaced at the same address while the table
// lives (a dlclose'd library's rules would be reused; every step is bounded to 16 MiB above the
// stack pointer, and a wrong step is then a wrong stack, not a crash, as long as it stays there).
//
// libunwind (measured 2026-11-29, bench/stack_walk_bench.cpp, docs/methodology.md): Debian 12's
// unw_backtrace() gives libgcc's frames, its warm path takes no lock, heap or system call, and it
// walks depth 2 / 4 / 8 in 48 / 62 / 90 ns against 39 / 75 / 143 ns here (load 0.5-0.8, min of
// runs). Debian's libunwind.a is not PIC and libunwind.so.8 exports the C++ ABI's _Unwind_*, so it
// would have to be dlopen'ed RTLD_LOCAL (tested clean) to replace this file; not done yet.
#include <cstdint>

namespace hpcsens::preload {

inline constexpr int kStepSlots = 4096;  // a power of two
inline constexpr int kStepProbes = 8;

// The return addresses from `site` (the user's call, which must be on the stack above this
// call) upward, `depth` of them at most; ends early at the outermost frame or a 0 address, as
// libgcc's walk does. A stack on which `site` is not found within `max_skip` frames gives `site`
// alone. Returns how many were written, or 0 when the cache cannot answer this stack.
int cached_stack(std::uintptr_t site, int depth, int max_skip, std::uintptr_t frames[]) noexcept;

// The same walk with libgcc's unwinder (the reference; the first time and the fallback).
int unwound_stack(std::uintptr_t site, int depth, int max_skip, std::uintptr_t frames[]) noexcept;

// Forgets every rule (tests; callsites_begin).
void stack_cache_clear() noexcept;
// Return addresses whose rule has been read (tests: the second walk of a stack reads none).
int stack_cache_learned() noexcept;

}  // namespace hpcsens::preload
