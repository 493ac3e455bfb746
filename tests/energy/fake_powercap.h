#pragma once
// Test double of the kernel's powercap tree (a directory handed to the reader as its root),
// holding to the kernel's rules: zones "intel-rapl:N" and subzones "intel-rapl:N:M" with a name
// file and max_energy_range_uj (0444); energy_uj owned by root, mode 0400 as since Linux 5.10
// (another user's open gets EACCES from the VFS itself); the counter only moves forward and
// starts again at 0 after max_energy_range_uj, and each new value replaces the file atomically
// (a reader never sees half a number). The double keeps the true total it was advanced by.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace hpcsens::testing {

class FakePowercap {
 public:
  FakePowercap() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hpcsens-powercap-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
    ::chmod(root_.c_str(), 0755);  // sysfs is world-traversable; only energy_uj is root-only
  }
  ~FakePowercap() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  FakePowercap(const FakePowercap&) = delete;
  FakePowercap& operator=(const FakePowercap&) = delete;

  const std::string& root() const { return root_; }

  void add_zone(const std::string& id, const std::string& name, std::uint64_t max_range_uj, std::uint64_t start_uj = 0) {
    const std::string dir = root_ + "/" + id;
    std::filesystem::create_directory(dir);
    ::chmod(dir.c_str(), 0755);
    write_file(dir + "/name", name + "\n", 0444);
    write_file(dir + "/max_energy_range_uj", std::to_string(max_range_uj) + "\n", 0444);
    zones_[id] = {max_range_uj, start_uj % (max_range_uj + 1), 0};
    write_file(dir + "/energy_uj", std::to_string(zones_[id].value) + "\n", 0400);
  }

  // The zone consumed `uj` more: the counter moves on modulo max_energy_range_uj + 1.
  void advance(const std::string& id, std::uint64_t uj) {
    Zone& z = zones_.at(id);
    z.value = static_cast<std::uint64_t>((static_cast<unsigned __int128>(z.value) + uj) %
                                         (static_cast<unsigned __int128>(z.max) + 1));
    z.total += uj;
    write_file(root_ + "/" + id + "/energy_uj", std::to_string(z.value) + "\n", 0400);
  }
  std::uint64_t value(const std::string& id) const { return zones_.at(id).value; }
  std::uint64_t total(const std::string& id) const { return zones_.at(id).total; }

  // Something the kernel never writes, for the reader's checks.
  void corrupt(const std::string& id, const std::string& file, const std::string& text) {
    write_file(root_ + "/" + id + "/" + file, text, 0400);
  }

 private:
  struct Zone {
    std::uint64_t max, value, total;
  };
  static void write_file(const std::string& path, const std::string& text, mode_t mode) {
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << text;
    }
    ::chmod(tmp.c_str(), mode);
    std::filesystem::rename(tmp, path);
  }
  std::string root_;
  std::map<std::string, Zone> zones_;
};

}  // namespace hpcsens::testing
