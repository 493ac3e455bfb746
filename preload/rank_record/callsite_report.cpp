#include "preload/rank_record/callsite_report.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "call_table.h"
#include "preload/account/callsites.h"

namespace hpcsens::preload {
namespace {

struct Lookup {
  std::uintptr_t address = 0;
  std::string path, build_id;
  std::uintptr_t offset = 0;
  bool found = false;
};

// The object's GNU build-id note as lowercase hex, read from its mapped PT_NOTE segments ("" when
// it has none): what `hpcsens report` compares with the file at the same path later.
std::string build_id_of(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) n;
      std::memcpy(&n, p, sizeof n);
      const unsigned char* name = p + sizeof n;
      const unsigned char* desc = name + ((n.n_namesz + 3) & ~3u);
      if (desc + n.n_descsz > end) break;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static const char hex[] = "0123456789abcdef";
        std::string out;
        for (unsigned k = 0; k < n.n_descsz; ++k) out += hex[desc[k] >> 4], out += hex[desc[k] & 15];
        return out;
      }
      p = desc + ((n.n_descsz + 3) & ~3u);
    }
  }
  return "";
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto* q = static_cast<Lookup*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (q->address < lo || q->address >= lo + ph.p_memsz) continue;
    q->found = true;
    q->offset = q->address - info->dlpi_addr;
    q->path = info->dlpi_name != nullptr ? info->dlpi_name : "";
    q->build_id = build_id_of(info);
    return 1;
  }
  return 0;
}

std::string own_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

// {module, offset} of one frame, or an empty object where no loaded object holds it; the
// module's build-id goes to `build_ids` once.
nlohmann::json frame_json(std::uintptr_t address, nlohmann::json& build_ids) {
  Lookup q;
  q.address = address;
  dl_iterate_phdr(visit, &q);
  if (!q.found) return nlohmann::json::object();
  const std::string path = q.path.empty() ? own_executable() : q.path;
  if (!q.build_id.empty()) build_ids[path] = q.build_id;
  return {{"module", path}, {"offset", q.offset}};
}

nlohmann::json site_json(const SiteTotals& s, double spt, nlohmann::json& build_ids) {
  const auto sec = [spt](std::uint64_t t) { return static_cast<double>(t) * spt; };
  nlohmann::json site = {{"call", kCalls[s.id].name}, {"count", s.count}, {"seconds", sec(s.ticks)},
                         {"bytes", s.bytes}, {"min_seconds", sec(s.min_ticks)}, {"max_seconds", sec(s.max_ticks)},
                         {"min_bytes", s.min_bytes}, {"max_bytes", s.max_bytes}};
  site.update(frame_json(s.frames[0], build_ids));
  if (s.depth > 1) {
    nlohmann::json callers = nlohmann::json::array();
    for (int d = 1; d < s.depth; ++d) callers.push_back(frame_json(s.frames[d], build_ids));
    site["callers"] = std::move(callers);
  }
  return site;
}

}  // namespace

nlohmann::json callsites_json(double spt, nlohmann::json* build_ids) {
  if (!g_callsites_on) return nullptr;
  auto sites = std::make_unique<SiteTotals[]>(kCallSites);
  const int n = callsite_totals(sites.get());
  std::sort(sites.get(), sites.get() + n, [](const SiteTotals& a, const SiteTotals& b) {
    return a.ticks != b.ticks ? a.ticks > b.ticks : a.frames[0] < b.frames[0];
  });
  nlohmann::json out = nlohmann::json::array();
  nlohmann::json ids = nlohmann::json::object();
  for (int i = 0; i < n; ++i) out.push_back(site_json(sites[i], spt, ids));
  if (build_ids != nullptr) *build_ids = std::move(ids);
  return out;
}

}  // namespace hpcsens::preload
