#include "preload/account/cfi_rule.h"

#include <cstring>

// libgcc's FDE lookup (unwind-dw2-fde.h; exported by libgcc_s and in libgcc_eh.a, which the
// preload links statically): the FDE covering pc, or null; bases->func is the function's start.
struct dwarf_eh_bases {
  void* tbase;
  void* dbase;
  void* func;
};
extern "C" const void* _Unwind_Find_FDE(void* pc, struct dwarf_eh_bases* bases);

namespace hpcsens::preload {
namespace {

constexpr unsigned kDwRbp = 6, kDwRsp = 7, kDwRa = 16;

// How a tracked register is restored (DWARF register rules, the subset that matters here).
enum class CfiRegHow : std::uint8_t { kSame, kAtCfa, kUndefined, kOther };

struct CfiRow {
  unsigned cfa_reg = kDwRsp;
  std::int64_t cfa_off = 0;
  bool cfa_expr = false;
  CfiRegHow how[3] = {CfiRegHow::kSame, CfiRegHow::kSame, CfiRegHow::kSame};  // rbp, rsp, ra
  std::int64_t off[3] = {0, 0, 0};
};

int cfi_tracked(std::uint64_t reg) { return reg == kDwRbp ? 0 : reg == kDwRsp ? 1 : reg == kDwRa ? 2 : -1; }

struct CfiBytes {
  const std::uint8_t* p;
  const std::uint8_t* end;
  bool bad = false;
  std::uint8_t u8() { return p < end ? *p++ : (bad = true, 0); }
  std::uint64_t fixed(int n) {
    if (end - p < n) return bad = true, 0;
    std::uint64_t v = 0;
    std::memcpy(&v, p, static_cast<std::size_t>(n));  // x86-64: little-endian, as .eh_frame is
    p += n;
    return v;
  }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = u8();
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0 || bad) return v;
    }
    return bad = true, v;
  }
  std::int64_t sleb() {
    std::int64_t v = 0;
    int shift = 0;
    std::uint8_t b = 0;
    do {
      b = u8();
      if (shift < 64) v |= static_cast<std::int64_t>(b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) != 0 && !bad);
    if (shift < 64 && (b & 0x40) != 0) v |= -(std::int64_t{1} << shift);
    return v;
  }
  // Skips a pointer in DW_EH_PE encoding `enc` (its size is all that is needed here).
  void skip_encoded(std::uint8_t enc) {
    if (enc == 0xff) return;          // DW_EH_PE_omit
    if ((enc & 0x70) == 0x50) bad = true;  // DW_EH_PE_aligned: not emitted by GCC on x86-64
    switch (enc & 0x0f) {
      case 0x00: case 0x04: case 0x0c: fixed(8); break;
      case 0x02: case 0x0a: fixed(2); break;
      case 0x03: case 0x0b: fixed(4); break;
      case 0x01: uleb(); break;
      case 0x09: sleb(); break;
      default: bad = true;
    }
  }
  // An entry's length field; `end` becomes the entry's end. False at a terminator or garbage.
  bool entry(const std::uint8_t* at, bool& wide) {
    p = at, end = at + 12;
    std::uint64_t len = fixed(4);
    wide = len == 0xffffffffu;
    if (wide) len = fixed(8);
    if (bad || len == 0 || len > (1u << 30)) return false;
    end = p + len;
    return true;
  }
};

struct CfiCie {
  std::uint64_t code_align = 1;
  std::int64_t data_align = 1;
  std::uint8_t fde_enc = 0;  // DW_EH_PE_absptr
  bool has_z = false;
  const std::uint8_t* insns = nullptr;
  const std::uint8_t* end = nullptr;
};

bool cfi_read_cie(const std::uint8_t* at, CfiCie& cie) {
  CfiBytes b{at, at};
  bool wide = false;
  if (!b.entry(at, wide)) return false;
  if (b.fixed(wide ? 8 : 4) != 0) return false;  // a CIE's id is 0 in .eh_frame
  const std::uint8_t version = b.u8();
  const char* aug = reinterpret_cast<const char*>(b.p);
  while (b.u8() != 0 && !b.bad) {
  }
  cie.code_align = b.uleb();
  cie.data_align = b.sleb();
  const std::uint64_t ra = version == 1 ? b.u8() : b.uleb();
  if (b.bad || ra != kDwRa) return false;
  cie.has_z = aug[0] == 'z';
  if (aug[0] != '\0' && !cie.has_z) return false;  // e.g. the old "eh" augmentation
  if (cie.has_z) {
    const std::uint64_t len = b.uleb();
    const std::uint8_t* data_end = b.p + len;
    for (const char* c = aug + 1; *c != '\0' && !b.bad; ++c) {
      if (*c == 'R') cie.fde_enc = b.u8();
      else if (*c == 'L') b.u8();
      else if (*c == 'P') b.skip_encoded(b.u8());
      else return false;  // 'S' (signal frame) and anything unknown: libgcc walks those
    }
    if (b.bad || data_end > b.end) return false;
    b.p = data_end;
  }
  cie.insns = b.p, cie.end = b.end;
  return !b.bad;
}

// Runs CFA instructions [p, end) while their location is below `stop` (libgcc's rule: an
// instruction at location L applies to a return address ra when L < ra). `initial` is the row
// after the CIE's instructions (DW_CFA_restore), null while running those.
bool cfi_run(CfiBytes b, const CfiCie& cie, std::uintptr_t stop, CfiRow& row, const CfiRow* initial) {
  CfiRow saved[8];
  int nsaved = 0;
  std::uintptr_t loc = 0;
  auto set = [&](std::uint64_t reg, CfiRegHow how, std::int64_t off) {
    const int t = cfi_tracked(reg);
    if (t >= 0) row.how[t] = how, row.off[t] = off;
  };
  auto restore = [&](std::uint64_t reg) {
    const int t = cfi_tracked(reg);
    if (t >= 0) row.how[t] = initial ? initial->how[t] : CfiRegHow::kSame, row.off[t] = initial ? initial->off[t] : 0;
  };
  while (b.p < b.end && !b.bad) {
    const std::uint8_t op = b.u8();
    std::uint64_t advance = 0;
    switch (op & 0xc0) {
      case 0x40: advance = op & 0x3f; break;
      case 0x80: set(op & 0x3f, CfiRegHow::kAtCfa, static_cast<std::int64_t>(b.uleb()) * cie.data_align); continue;
      case 0xc0: restore(op & 0x3f); continue;
      default: break;
    }
    if ((op & 0xc0) == 0) {
      switch (op) {
        case 0x00: continue;  // nop
        case 0x02: advance = b.u8(); break;
        case 0x03: advance = b.fixed(2); break;
        case 0x04: advance = b.fixed(4); break;
        case 0x05: { const auto r = b.uleb(); set(r, CfiRegHow::kAtCfa, static_cast<std::int64_t>(b.uleb()) * cie.data_align); continue; }
        case 0x06: restore(b.uleb()); continue;
        case 0x07: set(b.uleb(), CfiRegHow::kUndefined, 0); continue;
        case 0x08: set(b.uleb(), CfiRegHow::kSame, 0); continue;
        case 0x09: { const auto r = b.uleb(); b.uleb(); set(r, CfiRegHow::kOther, 0); continue; }
        case 0x0a: if (nsaved == 8) return false; saved[nsaved++] = row; continue;
        case 0x0b: if (nsaved == 0) return false; row = saved[--nsaved]; continue;
        case 0x0c: row.cfa_reg = static_cast<unsigned>(b.uleb()); row.cfa_off = static_cast<std::int64_t>(b.uleb()); row.cfa_expr = false; continue;
        case 0x0d: row.cfa_reg = static_cast<unsigned>(b.uleb()); row.cfa_expr = false; continue;
        case 0x0e: row.cfa_off = static_cast<std::int64_t>(b.uleb()); continue;
        case 0x0f: b.p += b.uleb(); row.cfa_expr = true; continue;
        case 0x10: case 0x16: { const auto r = b.uleb(); b.p += b.uleb(); set(r, CfiRegHow::kOther, 0); continue; }
        case 0x11: { const auto r = b.uleb(); set(r, CfiRegHow::kAtCfa, b.sleb() * cie.data_align); continue; }
        case 0x12: row.cfa_reg = static_cast<unsigned>(b.uleb()); row.cfa_off = b.sleb() * cie.data_align; row.cfa_expr = false; continue;
        case 0x13: row.cfa_off = b.sleb() * cie.data_align; continue;
        case 0x14: { const auto r = b.uleb(); b.uleb(); set(r, CfiRegHow::kOther, 0); continue; }
        case 0x15: { const auto r = b.uleb(); b.sleb(); set(r, CfiRegHow::kOther, 0); continue; }
        case 0x2e: b.uleb(); continue;  // DW_CFA_GNU_args_size
        case 0x2f: { const auto r = b.uleb(); set(r, CfiRegHow::kAtCfa, -static_cast<std::int64_t>(b.uleb()) * cie.data_align); continue; }
        default: return false;  // DW_CFA_set_loc and anything unknown
      }
    }
    loc += advance * cie.code_align;
    if (loc >= stop) return true;
  }
  return !b.bad && b.p <= b.end;
}

CfiStep cfi_step_of(const CfiRow& row) {
  CfiStep s;
  s.kind = CfiKind::kUnsupported;
  if (row.how[2] == CfiRegHow::kUndefined) return s.kind = CfiKind::kOutermost, s;
  if (row.cfa_expr || (row.cfa_reg != kDwRsp && row.cfa_reg != kDwRbp)) return s;
  if (row.cfa_off < INT32_MIN || row.cfa_off > INT32_MAX) return s;
  if (row.how[2] != CfiRegHow::kAtCfa || row.off[2] != -8) return s;  // return address at CFA - 8
  if (row.how[1] != CfiRegHow::kSame) return s;                      // RSP := CFA, no other rule
  if (row.how[0] == CfiRegHow::kAtCfa) {
    if (row.off[0] < INT16_MIN || row.off[0] > INT16_MAX) return s;
    s.rbp_saved = true, s.rbp_offset = static_cast<std::int16_t>(row.off[0]);
  } else if (row.how[0] != CfiRegHow::kSame) {
    return s;
  }
  s.kind = CfiKind::kStep;
  s.cfa_on_rbp = row.cfa_reg == kDwRbp;
  s.cfa_offset = static_cast<std::int32_t>(row.cfa_off);
  return s;
}

}  // namespace

CfiStep cfi_step_from_fde(const std::uint8_t* fde, std::uintptr_t pc_offset) noexcept {
  CfiStep unsupported;
  unsupported.kind = CfiKind::kUnsupported;
  CfiBytes b{fde, fde};
  bool wide = false;
  if (!b.entry(fde, wide)) return unsupported;
  const std::uint8_t* id_at = b.p;
  const std::uint64_t cie_delta = b.fixed(wide ? 8 : 4);
  CfiCie cie;
  if (b.bad || cie_delta == 0 || !cfi_read_cie(id_at - cie_delta, cie)) return unsupported;
  b.skip_encoded(cie.fde_enc);               // pc_begin (bases.func gave the start already)
  b.skip_encoded(cie.fde_enc & 0x0f);        // pc_range: the same format, never relative
  if (cie.has_z) b.p += b.uleb();            // augmentation data (the LSDA pointer)
  if (b.bad || b.p > b.end) return unsupported;
  CfiRow row;
  if (!cfi_run(CfiBytes{cie.insns, cie.end}, cie, UINTPTR_MAX, row, nullptr)) return unsupported;
  const CfiRow initial = row;
  if (!cfi_run(b, cie, pc_offset, row, &initial)) return unsupported;
  return cfi_step_of(row);
}

CfiStep cfi_step_for(std::uintptr_t ip) noexcept {
  CfiStep unsupported;
  unsupported.kind = CfiKind::kUnsupported;
  if (ip == 0) return unsupported;
  dwarf_eh_bases bases{};
  const void* fde = _Unwind_Find_FDE(reinterpret_cast<void*>(ip - 1), &bases);
  if (fde == nullptr || bases.func == nullptr) return unsupported;  // libgcc may still know a fallback
  return cfi_step_from_fde(static_cast<const std::uint8_t*>(fde), ip - reinterpret_cast<std::uintptr_t>(bases.func));
}

std::uintptr_t cfi_function_start(std::uintptr_t ip) noexcept {
  dwarf_eh_bases bases{};
  return ip != 0 && _Unwind_Find_FDE(reinterpret_cast<void*>(ip - 1), &bases) ? reinterpret_cast<std::uintptr_t>(bases.func) : 0;
}

std::uint64_t cfi_pack(const CfiStep& s) noexcept {
  return static_cast<std::uint64_t>(s.kind) | (s.cfa_on_rbp ? 4u : 0u) | (s.rbp_saved ? 8u : 0u) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.cfa_offset)) << 16 |
         static_cast<std::uint64_t>(static_cast<std::uint16_t>(s.rbp_offset)) << 48;
}

CfiStep cfi_unpack(std::uint64_t w) noexcept {
  CfiStep s;
  s.kind = static_cast<CfiKind>(w & 3);
  s.cfa_on_rbp = (w & 4) != 0;
  s.rbp_saved = (w & 8) != 0;
  s.cfa_offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 16));
  s.rbp_offset = static_cast<std::int16_t>(static_cast<std::uint16_t>(w >> 48));
  return s;
}

}  // namespace hpcsens::preload
