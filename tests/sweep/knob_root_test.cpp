// Knob trees held to the owner rules of output paths: a root whose path another user could change
// is refused at spec read (file, line, field), and in a plain directory tree no knob read or
// write ever follows a symlink, at the leaf or on the way (only the kernel's own sysfs/resctrl,
// root-owned, may hold links that are followed).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "sweep/knobs/knob_root.h"
#include "sweep/spec/spec.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

std::string spec_error(const std::string& text) {
  try {
    parse_spec_text(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KnobRoot, AKnobFileThatIsASymlinkIsNeitherWrittenNorRead) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_intel_pstate(root, 1);
  put(t.path() + "/outside", "precious");
  const std::string knob = policy_dir(root, 0) + "/scaling_max_freq";
  fs::remove(knob);
  fs::create_symlink(t.path() + "/outside", knob);
  RealSysfs io;
  try {
    io.write(knob, "1000000");
    FAIL() << "written through the symlink";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a symlink"), std::string::npos) << e.what();
  }
  EXPECT_EQ(get(t.path() + "/outside"), "precious");
  const SysfsRead r = io.read_file(knob);
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(r.error, ELOOP);
}

TEST(KnobRoot, ADirectorySymlinkInsideAPlainTreeIsNotFollowed) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_intel_pstate(root, 1);
  // policy1 -> a directory outside the tree that holds knob-like files.
  put(t.path() + "/elsewhere/scaling_max_freq", "3500000");
  fs::create_directory_symlink(t.path() + "/elsewhere", policy_dir(root, 1));
  RealSysfs io;
  EXPECT_THROW(io.write(policy_dir(root, 1) + "/scaling_max_freq", "1000000"), std::runtime_error);
  EXPECT_EQ(get(t.path() + "/elsewhere/scaling_max_freq"), "3500000");
  const SysfsRead r = io.read_file(policy_dir(root, 1) + "/scaling_max_freq");
  EXPECT_FALSE(r.value.has_value());
  EXPECT_NE(r.why.find("not root's sysfs or resctrl"), std::string::npos) << r.why;
  // The plain files of the tree are read and written as before.
  io.write(policy_dir(root, 0) + "/scaling_max_freq", "2000000");
  EXPECT_EQ(io.read(policy_dir(root, 0) + "/scaling_max_freq").value_or(""), "2000000");
}

TEST(KnobRoot, AFifoForAKnobFileIsAnErrorNotAHang) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_intel_pstate(root, 1);
  const std::string knob = policy_dir(root, 0) + "/scaling_min_freq";
  fs::remove(knob);
  ASSERT_EQ(::mkfifo(knob.c_str(), 0600), 0);
  RealSysfs io;
  EXPECT_NE(io.read_file(knob).why.find("is not a regular file"), std::string::npos);
  EXPECT_THROW(io.write(knob, "1000000"), std::runtime_error);
}

TEST(KnobRoot, ARootOthersCanWriteIsRefusedAtItsSpecLine) {
  TempDir t;
  const std::string open = t.path() + "/open";
  make_intel_pstate(open + "/sys", 1);
  ::chmod(open.c_str(), 0777);  // anyone could swap the tree below it
  const std::string job = "job: {command: [./app]}\nknobs: {cpu_ghz: [1.0]}\n";
  const std::string e = spec_error(job + "backends:\n  sysfs_root: '" + open + "/sys'\n");
  EXPECT_NE(e.find("s.yaml:4: backends.sysfs_root: '" + open + "/sys' cannot be a knob tree: " + open +
                   ": is writable by group or others without the sticky bit"),
            std::string::npos) << e;
  EXPECT_NE(e.find("Use a tree only you (or root) own"), std::string::npos) << e;
  const std::string r = spec_error(job + "backends: {resctrl_root: '" + open + "/sys'}\n");
  EXPECT_NE(r.find("s.yaml:3: backends.resctrl_root:"), std::string::npos) << r;
  // Below a sticky shared directory (/tmp's rule) a tree of one's own is fine, as is a missing
  // one (the backend says what is missing).
  ::chmod(open.c_str(), 01777);
  EXPECT_EQ(spec_error(job + "backends: {sysfs_root: '" + open + "/sys'}\n"), "");
  EXPECT_EQ(spec_error(job + "backends: {sysfs_root: '" + t.path() + "/none'}\n"), "");
}

TEST(KnobRoot, APlainDirectoryIsNotTheKernelsTree) {
  TempDir t;
  const int fd = ::open(t.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(kernel_tree(fd));  // tmpfs or a disk: its symlinks are never followed
  ::close(fd);
}

}  // namespace
}  // namespace hpcsens::sweep::testing
