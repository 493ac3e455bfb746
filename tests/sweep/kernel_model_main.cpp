// hpcsens with the kernel model installed: the very same command line as bin/hpcsens, the real
// sysfs reader and writer making their system calls to KernelModel (kernel_model.h), every resctrl
// mkdir, rmdir and write through ResctrlModel (resctrl_model.h). Tests run it
// where they would run hpcsens against a fake tree, so the tree answers like a kernel.
#include "cli/commands.h"
#include "kernel_model.h"
#include "resctrl_model.h"

int main(int argc, char** argv) {
  static hpcsens::sweep::testing::KernelModel model;
  static hpcsens::sweep::testing::ResctrlModel resctrl;
  hpcsens::sweep::set_machine_resctrl(&resctrl);
  return hpcsens::cli::run_cli(argc, argv);
}
