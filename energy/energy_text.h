#pragma once
// The record's energy section in one line of words, for the run report's Job table. Reads a
// record from anywhere: any field of the wrong type is skipped, never trusted or thrown on.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::energy {

// "host: package 1.23 kJ (87.3 W), core ..., dram ... over 14.1 s (15 samples, 1 s apart, 0 wraps);
// RAPL: processor packages ... only; ..." or "not available: why". "" when there is no section.
// Hosts of job_hosts (the record's job.hosts) that no node object names are said as not measured.
std::string energy_summary(const nlohmann::json& energy, const std::vector<std::string>& job_hosts = {});

// Slurm's own figure for the run's job steps (energy.slurm, run/slurm_energy.h): "12345 J over
// steps 4711.0, 4711.1 (...)", or why there is none; "" when the run was not inside an allocation.
std::string slurm_energy_summary(const nlohmann::json& energy);

}  // namespace hpcsens::energy
