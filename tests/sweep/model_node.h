#pragma once
// One node of the kernel model for the knob tests: a layout's tree, the real reader and writer
// over the model's system calls, and a spec for it whose knob errors come back as text.
#include <string>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "kernel_model.h"
#include "sweep/knobs/knobs.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep::testing {

struct ModelNode {
  TempDir t;
  std::string root = t.path() + "/sys";
  KernelModel io;
  explicit ModelNode(const std::string& name) {
    for (const auto& l : all_layouts())
      if (l.name == name) build_layout(root, l);
  }
  std::string pol(int n, const std::string& f) const { return policy_dir(root, n) + "/" + f; }
  SweepSpec spec(const std::string& knobs) const {
    return parse_spec_text("job: {command: [./app]}\nknobs: " + knobs + "\nbackends: {sysfs_root: '" + root + "'}\n",
                           "s.yaml");
  }
  // The InputError the knobs raise when the spec is read, or "".
  std::string error(const std::string& knobs) const {
    try {
      KnobSet k(spec(knobs), io);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace hpcsens::sweep::testing
