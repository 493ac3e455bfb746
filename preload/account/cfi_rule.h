#pragma once
// How to step from one x86-64 frame to its caller's, read once per return address from the
// DWARF call frame information (.eh_frame) that libgcc's unwinder itself reads, so that
// stack_cache.h can walk later stacks through the same address without the unwinder.
//
// Only the rules compilers emit for ordinary frames are kept: the frame's CFA (the caller's stack
// pointer) is RSP or RBP plus a constant, the return address is at CFA - 8, RBP is either unchanged
// or saved at CFA + constant. Anything else (a CFA expression, as GCC emits for a realigned stack;
// a signal frame; a register moved into another; no FDE at all) is `kUnsupported`: the caller then
// walks that stack with libgcc's unwinder, so the answer is always libgcc's.
#include <cstddef>
#include <cstdint>

namespace hpcsens::preload {

enum class CfiKind : std::uint8_t { kNone = 0, kStep = 1, kOutermost = 2, kUnsupported = 3 };

struct CfiStep {
  CfiKind kind = CfiKind::kNone;
  bool cfa_on_rbp = false;   // CFA = RBP + cfa_offset (else RSP + cfa_offset)
  bool rbp_saved = false;    // the caller's RBP is at CFA + rbp_offset (else RBP is unchanged)
  std::int32_t cfa_offset = 0;
  std::int16_t rbp_offset = 0;
};

// The step for a frame whose return address (as _Unwind_GetIP reports it) is `ip`: the FDE
// covering ip - 1, as libgcc finds it (_Unwind_Find_FDE). Not for the hot path: it searches.
CfiStep cfi_step_for(std::uintptr_t ip) noexcept;

// The start of the function a return address `ip` returns into, as its FDE says (0: none).
std::uintptr_t cfi_function_start(std::uintptr_t ip) noexcept;

// The same from the bytes themselves (pure; tests feed it hand-made CIEs and FDEs): `fde` points
// at an FDE's length field inside .eh_frame, `func` is the start of the function it covers and
// `pc_offset` is ip - func (instructions at offsets below it apply).
CfiStep cfi_step_from_fde(const std::uint8_t* fde, std::uintptr_t pc_offset) noexcept;

// Packed into one word for a lock-free table (0 is kNone, "not known yet").
std::uint64_t cfi_pack(const CfiStep& s) noexcept;
CfiStep cfi_unpack(std::uint64_t w) noexcept;

}  // namespace hpcsens::preload
