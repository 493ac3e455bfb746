#include "preload/account/stack_cache.h"

#include <unwind.h>

#include <atomic>

#include "preload/account/cfi_rule.h"

namespace hpcsens::preload {
namespace {

struct StepSlot {
  std::atomic<std::uintptr_t> ip{0};  // 0: free
  std::atomic<std::uint64_t> step{0};  // cfi_pack; 0 while the claiming thread reads the rule
};
StepSlot g_step_slots[kStepSlots];
std::atomic<int> g_steps_learned{0};
constexpr std::uintptr_t kMaxFrameBytes = std::uintptr_t{1} << 24;

// The packed step for `ip`, read from .eh_frame the first time (then kept). 0 when the table has
// no room or another thread is still reading the same rule: the caller falls back for this call.
std::uint64_t step_for(std::uintptr_t ip) {
  static_assert((kStepSlots & (kStepSlots - 1)) == 0);
  std::uintptr_t h = (ip * 0x9E3779B97F4A7C15ull) >> 52;
  static_assert(kStepSlots == 1 << 12);
  for (int probe = 0; probe < kStepProbes; ++probe, h = (h + 1) & (kStepSlots - 1)) {
    StepSlot& s = g_step_slots[h];
    std::uintptr_t seen = s.ip.load(std::memory_order_acquire);
    if (seen == ip) return s.step.load(std::memory_order_acquire);
    if (seen != 0) continue;
    const std::uint64_t step = cfi_pack(cfi_step_for(ip));
    if (s.ip.compare_exchange_strong(seen, ip, std::memory_order_acq_rel)) {
      s.step.store(step, std::memory_order_release);
      g_steps_learned.fetch_add(1, std::memory_order_relaxed);
      return step;
    }
    if (seen == ip) return step;  // another thread claimed it for the same address meanwhile
  }
  return 0;
}

struct UnwindWalk {
  std::uintptr_t site;
  int depth, max_skip, n = 0, skipped = 0;
  std::uintptr_t* frames;
};

// Frames below the user's return address (this walk, add_callsite, the wrapper, a Fortran
// wrapper's inner function) are skipped.
_Unwind_Reason_Code unwind_frame(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<UnwindWalk*>(arg);
  const auto ip = static_cast<std::uintptr_t>(_Unwind_GetIP(ctx));
  if (w->n == 0 && ip != w->site) return ++w->skipped > w->max_skip ? _URC_END_OF_STACK : _URC_NO_REASON;
  w->frames[w->n++] = ip;
  return w->n == w->depth || ip == 0 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

}  // namespace

[[gnu::noinline]] int unwound_stack(std::uintptr_t site, int depth, int max_skip, std::uintptr_t frames[]) noexcept {
  UnwindWalk w{site, depth, max_skip, 0, 0, frames};
  _Unwind_Backtrace(unwind_frame, &w);
  if (w.n == 0) frames[0] = site, w.n = 1;
  return w.n;
}

// Starts from its own frame, whose layout __builtin_frame_address fixes (it forces RBP to be this
// frame's base: saved RBP at [RBP], return address at [RBP + 8], caller's RSP at RBP + 16). The
// own frame counts as one skipped frame, as unwound_stack's does under libgcc.
[[gnu::noinline]] int cached_stack(std::uintptr_t site, int depth, int max_skip, std::uintptr_t frames[]) noexcept {
#if defined(__x86_64__)
  const auto* base = static_cast<const std::uintptr_t*>(__builtin_frame_address(0));
  std::uintptr_t ip = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  std::uintptr_t sp = reinterpret_cast<std::uintptr_t>(base + 2), rbp = base[0];
  int n = 0, skipped = 1;
  for (;;) {
    if (n == 0 && ip != site) {
      if (++skipped > max_skip || ip == 0) break;
    } else {
      frames[n++] = ip;
      if (n == depth || ip == 0) return n;
    }
    const std::uint64_t packed = step_for(ip);
    const CfiStep step = cfi_unpack(packed);
    if (step.kind == CfiKind::kOutermost) break;
    if (step.kind != CfiKind::kStep) return 0;
    const std::uintptr_t cfa = (step.cfa_on_rbp ? rbp : sp) + static_cast<std::intptr_t>(step.cfa_offset);
    if (cfa <= sp || cfa - sp > kMaxFrameBytes) return 0;
    if (step.rbp_saved) rbp = *reinterpret_cast<const std::uintptr_t*>(cfa + step.rbp_offset);
    ip = *reinterpret_cast<const std::uintptr_t*>(cfa - 8);
    sp = cfa;
  }
  if (n == 0) frames[0] = site, n = 1;
  return n;
#else
  (void)site, (void)depth, (void)max_skip, (void)frames;
  return 0;
#endif
}

void stack_cache_clear() noexcept {
  for (auto& s : g_step_slots) s.ip.store(0, std::memory_order_relaxed), s.step.store(0, std::memory_order_relaxed);
  g_steps_learned.store(0, std::memory_order_relaxed);
}

int stack_cache_learned() noexcept { return g_steps_learned.load(std::memory_order_relaxed); }

}  // namespace hpcsens::preload
