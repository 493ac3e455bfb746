// Core and uncore frequency through likwid-setFrequencies. likwid cannot tell us the previous
// settings, so the restore is its own reset, journalled by action name.
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class LikwidBackend : public KnobBackend {
 public:
  LikwidBackend(bool cpu, bool uncore) : cpu_(cpu), uncore_(uncore) {}
  std::string name() const override { return "likwid"; }
  std::string describe() const override { return "cpu/uncore: likwid-setFrequencies"; }
  bool changes_machine() const override { return cpu_ || uncore_; }
  std::vector<std::string> restore_actions() const override {
    std::vector<std::string> a;
    if (cpu_) a.push_back("likwid.reset_cpu");
    if (uncore_) a.push_back("likwid.reset_uncore");
    return a;
  }
  std::vector<Argv> apply(SysfsIo&, const Point& p) const override {
    std::vector<Argv> cmds;
    if (p.cpu_ghz) cmds.push_back(likwid_cpu_command(*p.cpu_ghz));
    if (p.uncore) cmds.push_back(likwid_uncore_command(*p.uncore));
    return cmds;
  }

 private:
  bool cpu_, uncore_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_likwid_backend(const SweepSpec& spec, const SysfsIo&) {
  if (spec.emulation || spec.cpu_backend != CpuBackend::kLikwid) return nullptr;
  return std::make_unique<LikwidBackend>(!spec.cpu_ghz.empty(), !spec.uncore.empty());
}

}  // namespace hpcsens::sweep
