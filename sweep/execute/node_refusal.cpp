#include "sweep/execute/node_refusal.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/safe_file.h"
#include "common/text_escape.h"

namespace hpcsens::sweep {
namespace {

constexpr const char* kRefusedName = "refused";
constexpr std::size_t kMaxRefusalBytes = 16 * 1024;

std::string node_dir(const std::string& sweep_dir, const std::string& host) { return sweep_dir + "/nodes/" + host; }

}  // namespace

void note_node_refusal(const std::string& sweep_dir, const std::string& host, const std::string& why) noexcept {
  try {
    safe_file::Dir d;
    if (!safe_file::open_dir(node_dir(sweep_dir, host), true, &d).empty()) return;
    (void)safe_file::write_atomic(d, kRefusedName, why + "\n", 0644);
  } catch (...) {
  }
}

void clear_node_refusal(const std::string& sweep_dir, const std::string& host) noexcept {
  safe_file::Dir d;
  if (safe_file::open_dir(node_dir(sweep_dir, host), false, &d).empty()) ::unlinkat(d.fd(), kRefusedName, 0);
}

std::vector<std::string> node_refusals(const std::string& sweep_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<std::string> hosts;
  for (const auto& e : std::filesystem::directory_iterator(sweep_dir + "/nodes", ec))
    hosts.push_back(e.path().filename().string());
  std::sort(hosts.begin(), hosts.end());
  for (const auto& h : hosts) {
    const std::string path = node_dir(sweep_dir, h) + "/" + kRefusedName;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) continue;
    std::string why;
    try {
      why = safe_file::read_own_file(path, kMaxRefusalBytes);
      while (!why.empty() && why.back() == '\n') why.pop_back();
    } catch (const std::exception& e) {
      why = std::string("(its reason could not be read: ") + e.what() + ")";
    }
    out.push_back(text::escape_for_message(h) + ": " + text::escape_for_message(why));
  }
  return out;
}

}  // namespace hpcsens::sweep
