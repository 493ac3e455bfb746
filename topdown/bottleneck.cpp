#include "topdown/bottleneck.h"

namespace hpcsens::topdown {

std::string bottleneck_section(const record::RunRecord& rec, TableFormat, bool) {
  if (rec.counters_status != "ok") return "Top-Down: unavailable (" + rec.counters_status + ")\n";
  return "";
}

}  // namespace hpcsens::topdown
