#include "sweep/knobs/knobs.h"

#include "sweep/knobs/restore.h"

namespace hpcsens::sweep {

KnobSet::KnobSet(const SweepSpec& spec, const SysfsIo& io) : cpu_values_(spec.cpu_ghz) {
  for (const auto& entry : knob_backends()) {
    auto b = entry.make(spec, io);
    if (!b) continue;
    if (auto v = b->cpu_values()) cpu_values_ = *v;
    backends_.push_back(std::move(b));
  }
}

bool KnobSet::changes_machine() const {
  for (const auto& b : backends_)
    if (b->changes_machine()) return true;
  return false;
}

std::vector<std::string> KnobSet::files_to_save() const {
  std::vector<std::string> out;
  for (const auto& b : backends_)
    for (auto& f : b->files_to_save()) out.push_back(std::move(f));
  return out;
}

std::vector<FileWrite> KnobSet::save(const SysfsIo& io) const {
  auto saved = save_files(io, files_to_save());
  for (const auto& b : backends_) b->amend_saved(saved);
  return saved;
}

nlohmann::json KnobSet::set_values(const Point& p) const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& b : backends_) {
    if (p.cpu_ghz)
      if (auto set = b->cpu_set_ghz(*p.cpu_ghz)) {
        j["cpu_ghz_set"] = *set;
        j["cpu_above_base"] = b->above_base(*p.cpu_ghz);
      }
    if (p.uncore)
      if (auto u = b->uncore_set(*p.uncore)) {
        j["uncore_min_ghz_set"] = u->min_ghz;
        j["uncore_max_ghz_set"] = u->max_ghz;
      }
    if (p.mem_bw)
      if (auto m = b->mem_bw_set(*p.mem_bw)) {
        j["mem_bw_set"] = *m;
        j["mem_bw_unit"] = b->mem_bw_unit();
      }
  }
  return j;
}

std::string KnobSet::resctrl_root() const {
  for (const auto& b : backends_)
    if (!b->resctrl_root().empty()) return b->resctrl_root();
  return "";
}

std::optional<std::string> KnobSet::resctrl_schemata(const Point& p) const {
  for (const auto& b : backends_)
    if (auto s = b->resctrl_schemata(p)) return s;
  return std::nullopt;
}

std::vector<std::string> KnobSet::restore_actions() const {
  std::vector<std::string> out;
  for (const auto& b : backends_)
    for (auto& a : b->restore_actions()) out.push_back(std::move(a));
  return out;
}

std::vector<Argv> KnobSet::restore_commands() const {
  std::vector<Argv> out;
  for (const auto& a : restore_actions())
    if (auto argv = restore_action_argv(a)) out.push_back(*argv);
  return out;
}

std::vector<Argv> KnobSet::apply(SysfsIo& io, const Point& p) const {
  std::vector<Argv> commands;
  for (const auto& b : backends_)
    for (auto& c : b->apply(io, p)) commands.push_back(std::move(c));
  return commands;
}

Argv KnobSet::job_argv(const Argv& base, const Point& p) const {
  Argv argv = base;
  for (const auto& b : backends_) argv = b->job_argv(argv, p);
  return argv;
}

std::vector<std::pair<std::string, std::string>> KnobSet::rank_env(const Point& p) const {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& b : backends_)
    for (auto& v : b->rank_env(p)) env.push_back(std::move(v));
  return env;
}

std::string KnobSet::describe() const {
  std::string d;
  for (const auto& b : backends_) d += (d.empty() ? "" : "; ") + b->describe();
  return d.empty() ? "no knobs (one configuration)" : d;
}

}  // namespace hpcsens::sweep
