#pragma once
// A record's energy section in a few numbers, for tables that show one row per run (the sweep
// summary, results.csv, the sweep page), and the hosts of a job that no reader measured. Reads
// a record from anywhere: a field of the wrong type counts as absent, never thrown on.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::energy {

struct Totals {
  bool available = false;
  std::string reason;        // when not available: the section's reason ("" when there is no section)
  std::string source;        // "powercap" or "emulated"
  double package_j = 0;      // summed over the measured nodes' sockets
  double dram_j = 0;         // 0 where no node has a DRAM zone (has_dram false)
  bool has_dram = false;
  double joules = 0;         // package + dram: what RAPL covers of the job's energy
  double mean_w = 0;         // sum over nodes of each node's joules / its duration_s
  int nodes_measured = 0;
  std::vector<std::string> not_measured;  // hosts whose node object is not available
};

Totals energy_totals(const nlohmann::json& section);

// Adds to section.nodes an object {host, available: false, reason: "not measured: ..."} for every
// host of the job (the record's job.hosts) that no node object names, so a multi-node record
// says per node what its figures leave out. Nothing when the section is not an object.
void mark_unmeasured_hosts(nlohmann::json& section, const std::vector<std::string>& hosts);

}  // namespace hpcsens::energy
