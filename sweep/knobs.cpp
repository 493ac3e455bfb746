#include "sweep/knobs.h"

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

std::string KnobSet::describe() const {
  std::string d;
  for (const auto& b : backends_) d += (d.empty() ? "" : "; ") + b->describe();
  return d.empty() ? "no knobs (one configuration)" : d;
}

}  // namespace hpcsens::sweep
