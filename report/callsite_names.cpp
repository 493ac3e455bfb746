#include "report/callsite_names.h"

#include <string>

namespace hpcsens::report {
namespace {

using nlohmann::json;

bool has_names(const json& frame) { return frame.contains("function") || frame.contains("file"); }

std::string module_of(const json& frame) {
  const auto m = frame.find("module");
  return m != frame.end() && m->is_string() ? m->get<std::string>() : "";
}

std::uint64_t offset_of(const json& frame) {
  const auto o = frame.find("offset");
  return o != frame.end() && o->is_number_unsigned() ? o->get<std::uint64_t>() : 0;
}

// The build-id the rank recorded for `module`, "" when it recorded none (an older record, or an
// object without the note): then the module is taken as it is.
std::string recorded_id(const json& build_ids, const std::string& module) {
  const auto id = build_ids.is_object() ? build_ids.find(module) : build_ids.end();
  return build_ids.is_object() && id != build_ids.end() && id->is_string() ? id->get<std::string>() : "";
}

bool same_program(const json& build_ids, const std::string& module, Symbolizer& symbols) {
  const std::string want = recorded_id(build_ids, module);
  return want.empty() || symbols.build_id(module) == want;
}

void name_frame(json& frame, const json& build_ids, Symbolizer& symbols) {
  const std::string module = module_of(frame);
  if (!frame.is_object() || module.empty() || has_names(frame) || !same_program(build_ids, module, symbols)) return;
  const SourceLocation at = symbols.resolve(module, offset_of(frame));
  frame["function"] = at.function;
  frame["file"] = at.file;
  frame["line"] = at.line;
  if (!at.inlined_into.empty()) frame["inlined_into"] = at.inlined_into;
}

}  // namespace

void name_callsites(json& record) {
  if (!record.is_object() || !record.contains("ranks") || !record["ranks"].is_array()) return;
  Symbolizer symbols;
  for (auto& rank : record["ranks"]) {
    if (!rank.is_object() || !rank.contains("callsites") || !rank["callsites"].is_array()) continue;
    const json ids = rank.value("callsite_build_ids", json::object());
    for (auto& site : rank["callsites"]) {
      if (!site.is_object()) continue;
      name_frame(site, ids, symbols);
      if (site.contains("callers") && site["callers"].is_array())
        for (auto& frame : site["callers"]) name_frame(frame, ids, symbols);
    }
  }
}

SourceLocation frame_location(const json& frame, const json& build_ids, Symbolizer& symbols) {
  SourceLocation at;
  if (!frame.is_object()) return at;
  if (has_names(frame)) {
    at.function = frame.value("function", std::string());
    at.file = frame.value("file", std::string());
    at.line = frame.value("line", 0);
    at.inlined_into = frame.value("inlined_into", std::string());
    return at;
  }
  const std::string module = module_of(frame);
  if (module.empty()) return at;
  if (!same_program(build_ids, module, symbols)) {
    at.problem = "unresolved: the program at " + module + " is not the one that ran";
    return at;
  }
  return symbols.resolve(module, offset_of(frame));
}

}  // namespace hpcsens::report
