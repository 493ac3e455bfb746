#pragma once
// RAPL energy counters as the kernel's powercap interface shows them (Documentation/power/
// powercap/powercap.rst): zones <root>/intel-rapl:N named "package-N" (or "package-N-die-D" on
// multi-die parts, "psys" for the platform), subzones <root>/intel-rapl:N:M named "core" (pp0),
// "uncore" (pp1, client parts) and "dram". AMD parts (family 17h on) are driven by the same
// intel_rapl_msr driver and appear under the same "intel-rapl" names; "amd-rapl:N" is read too.
// "intel-rapl-mmio:N" is skipped: the same package counter through another path, counted twice
// otherwise. The root is a parameter so tests hand in a fake tree.
#include <cstdint>
#include <string>
#include <vector>

namespace hpcsens::energy {

inline constexpr const char* kDefaultRoot = "/sys/class/powercap";
// Test and debug hook: another powercap root for `hpcsens run` (docs/user-guide.md).
inline constexpr const char* kRootEnv = "HPCSENS_POWERCAP_ROOT";

struct Zone {
  std::string id;      // directory name: "intel-rapl:0:2"
  std::string name;    // the zone's name file: "package-0", "dram", "psys"
  std::string domain;  // "package", "core", "uncore", "dram", "psys" (the name itself if unknown)
  std::string label;   // unique per node: "package-0", "core-0", "dram-1", "core-0-die-1", "psys"
  std::string energy_path;  // <root>/<id>/energy_uj
  std::uint64_t max_range_uj = 0;
};

struct Discovery {
  std::vector<Zone> zones;  // sorted by id
  std::string reason;       // why there is no energy here ("not available: ..."); empty when zones were found
};

// Every RAPL zone and subzone under root, with its name and counter range. A zone whose name or
// range cannot be read makes the whole node unavailable (reason names the file): a partial set
// of domains would pass for the node's energy.
Discovery discover(const std::string& root);

// One reading of the zone's energy_uj: true, or false with why (the file and the error; EACCES
// explains the root-only rule of Linux 5.10 on).
bool read_energy_uj(const Zone& zone, std::uint64_t* uj, std::string* why);

// "no DRAM zone (domains present: package, core)" when the zones have no DRAM domain; "" else.
std::string missing_dram_note(const std::vector<Zone>& zones);

// $HPCSENS_POWERCAP_ROOT when set and not empty, else kDefaultRoot.
std::string root_from_env();

}  // namespace hpcsens::energy
