#include "preload/rank_record/callsite_report.h"

#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "call_table.h"
#include "preload/account/callsites.h"

namespace hpcsens::preload {
namespace {

struct Lookup {
  std::uintptr_t address = 0;
  std::string path;
  std::uintptr_t offset = 0;
  bool found = false;
};

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
    return 1;
  }
  return 0;
}

std::string own_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

}  // namespace

bool module_of(std::uintptr_t address, std::string* path, std::uintptr_t* offset) {
  Lookup q;
  q.address = address;
  dl_iterate_phdr(visit, &q);
  if (!q.found) return false;
  *path = q.path.empty() ? own_executable() : q.path;
  *offset = q.offset;
  return true;
}

nlohmann::json callsites_json(double spt) {
  if (!g_callsites_on) return nullptr;
  auto sites = std::make_unique<SiteTotals[]>(kCallSites);
  const int n = callsite_totals(sites.get());
  std::sort(sites.get(), sites.get() + n, [](const SiteTotals& a, const SiteTotals& b) {
    return a.ticks != b.ticks ? a.ticks > b.ticks : a.address < b.address;
  });
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    const SiteTotals& s = sites[i];
    std::string path;
    std::uintptr_t offset = 0;
    nlohmann::json site = {{"call", kCalls[s.id].name}, {"count", s.count},
                           {"seconds", static_cast<double>(s.ticks) * spt}, {"bytes", s.bytes}};
    if (module_of(s.address, &path, &offset)) site["module"] = path, site["offset"] = offset;
    out.push_back(std::move(site));
  }
  return out;
}

}  // namespace hpcsens::preload
