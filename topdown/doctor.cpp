#include "topdown/doctor.h"

#include <papi.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "counter_agent/papi_session.h"
#include "sweep/knobs/knob_doctor.h"
#include "topdown/event_tables.h"
#include "topdown/pmu_advice.h"

namespace hpcsens::doctor {
namespace fs = std::filesystem;
namespace {

std::string first_line_of_file(const std::string& path, bool* ok) {
  std::ifstream f(path);
  std::string line;
  *ok = static_cast<bool>(std::getline(f, line));
  return line;
}

std::string papi_version_text(int v) {
  return std::to_string(PAPI_VERSION_MAJOR(v)) + "." + std::to_string(PAPI_VERSION_MINOR(v)) + "." +
         std::to_string(PAPI_VERSION_REVISION(v));
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kMissing: return "missing";
    case Status::kInfo: return "info";
    case Status::kBroken: return "broken";
  }
  return "?";
}

Check check_perf_paranoid(const std::string& root, bool is_root_user) {
  Check c{"perf_event_paranoid", Status::kOk, "", ""};
  bool ok = false;
  const std::string v = first_line_of_file(root + "/proc/sys/kernel/perf_event_paranoid", &ok);
  if (!ok) {
    c.status = Status::kMissing;
    c.detail = "no /proc/sys/kernel/perf_event_paranoid: kernel without perf events";
    c.fix = "use a kernel built with CONFIG_PERF_EVENTS";
    return c;
  }
  int level = 0;
  try {
    level = std::stoi(v);
  } catch (...) {
    c.status = Status::kMissing;
    c.detail = "unreadable value '" + v + "'";
    return c;
  }
  c.detail = "perf_event_paranoid = " + std::to_string(level);
  if (level > 2 && !is_root_user) {
    c.status = Status::kMissing;
    c.detail += " (unprivileged counting is disabled)";
    c.fix = "sysctl kernel.perf_event_paranoid=1 (or 2 for user-space-only counting)";
  } else if (level > 1) {
    c.detail += is_root_user ? " (running as root: not limiting)"
                             : " (own processes, user space only: enough for hpcsens)";
  }
  return c;
}

// The frequency and memory knobs, per driver (sweep/knob_doctor.h: the sweep's own probes, so
// what doctor says works is what the sweep will accept).
std::vector<Check> check_knobs(const std::string& root, bool srun_found) {
  std::vector<Check> out;
  for (const auto& k : sweep::knob_checks(sweep::machine_sysfs(), (fs::path(root) / "sys").string(), srun_found)) {
    const Status s = k.status == sweep::KnobCheck::Status::kOk        ? Status::kOk
                     : k.status == sweep::KnobCheck::Status::kMissing ? Status::kMissing
                                                                      : Status::kInfo;
    out.push_back({k.name, s, k.detail, k.fix});
  }
  return out;
}

Check check_slurm(const std::string& path_env) {
  Check c{"Slurm", Status::kInfo, "", ""};
  std::stringstream ss(path_env);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const fs::path p = fs::path(dir) / "srun";
    if (::access(p.c_str(), X_OK) == 0) {
      c.status = Status::kOk;
      c.detail = "srun at " + p.string() + " (whether --cpu-freq can take effect: see cpu_backend: slurm)";
      return c;
    }
  }
  c.detail = "srun not in PATH: not a Slurm system (fine for mpirun jobs)";
  return c;
}

Check check_preload(const std::string& exe_path) {
  Check c{"preload", Status::kOk, "", ""};
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(fs::path(exe_path), ec);
  const fs::path lib = exe.parent_path().parent_path() / "lib" / "libhpcsens_preload.so";
  if (fs::exists(lib, ec)) {
    c.detail = lib.string();
    // MPICH jobs need the variant built against MPICH's ABI; without it they run unmeasured.
    const fs::path mpich = lib.parent_path() / "libhpcsens_preload_mpich.so";
    c.detail += fs::exists(mpich, ec) ? "; MPICH variant " + mpich.string()
                                      : "; no MPICH variant (MPICH jobs run unmeasured; install libmpich-dev and rebuild)";
  } else {
    c.status = Status::kBroken;
    c.detail = lib.string() + " not found";
    c.fix = "rebuild (cmake --build build) so that lib/libhpcsens_preload.so sits next to bin/hpcsens";
  }
  return c;
}

Check check_mpi(const std::string& mpirun) {
  Check c{"MPI", Status::kOk, "", ""};
  const std::string cmd = mpirun + " --version 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
  std::string first;
  if (p) {
    std::array<char, 512> buf{};
    while (std::fgets(buf.data(), buf.size(), p.get())) {
      std::string l(buf.data());
      while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
      if (first.empty() && !l.empty()) first = l;
    }
  }
  const int rc = p ? ::pclose(p.release()) : -1;
  if (rc != 0 || first.empty() || first.find("not found") != std::string::npos) {
    c.status = Status::kMissing;
    c.detail = "'" + mpirun + " --version' failed" + (first.empty() ? "" : ": " + first);
    c.fix = "install Open MPI or MPICH (apt-get install openmpi-bin) or load the MPI module";
  } else {
    c.detail = first;
  }
  return c;
}

Check check_topdown_plan(const topdown::CpuId& cpu, const std::string& root, bool is_root_user) {
  Check c{"Top-Down set", Status::kOk, "", ""};
  const auto plan = topdown::plan_events("topdown", cpu);
  if (!plan.available) {
    c.status = Status::kMissing;
    c.detail = plan.note;
    c.fix = "use --events with a custom list (e.g. PAPI_TOT_CYC,PAPI_TOT_INS)";
    return c;
  }
  std::size_t n = 0;
  for (const auto& g : plan.groups) n += g.events.size();
  c.detail = plan.name + ": " + plan.note + "; " + std::to_string(n) + " events in " +
             std::to_string(plan.groups.size()) + " group(s)";
  if (cpu.smt) c.detail += "; SMT on";
  if (plan.name.rfind("topdown-skx-smt", 0) == 0 && !is_root_user) {
    bool ok = false;
    const std::string v = first_line_of_file(root + "/proc/sys/kernel/perf_event_paranoid", &ok);
    if (ok && std::atoi(v.c_str()) > 0) {
      c.status = Status::kMissing;
      c.detail += "; the SMT formulas need AnyThread counts, refused at perf_event_paranoid " + v;
      c.fix = "sysctl kernel.perf_event_paranoid=0, run as root, or disable SMT";
    }
  }
  if (cpu.virtualised)
    c.detail += "; virtual machine: these events count only with PMU passthrough (see hardware events)";
  return c;
}

std::vector<Check> check_papi() {
  std::vector<Check> out;
  Check lib{"PAPI", Status::kOk, "", ""};
  const int rc = PAPI_is_initialized() ? PAPI_VER_CURRENT : PAPI_library_init(PAPI_VER_CURRENT);
  if (rc != PAPI_VER_CURRENT) {
    lib.status = Status::kBroken;
    lib.detail = rc > 0 ? "PAPI_library_init: header/library version mismatch (built against " +
                              papi_version_text(PAPI_VER_CURRENT) + ", library " + papi_version_text(rc) + ")"
                        : std::string("PAPI_library_init failed: ") + PAPI_strerror(rc);
    lib.fix = "rebuild hpcsens against the installed PAPI (libpapi-dev)";
    out.push_back(lib);
    return out;
  }
  const int v = PAPI_get_opt(PAPI_LIB_VERSION, nullptr);
  lib.detail = "PAPI " + papi_version_text(v > 0 ? v : PAPI_VER_CURRENT);
  out.push_back(lib);
  Check comps{"PAPI components", Status::kInfo, "", ""};
  const int n = PAPI_num_components();
  for (int i = 0; i < n; ++i) {
    const PAPI_component_info_t* ci = PAPI_get_component_info(i);
    if (!ci) continue;
    if (!comps.detail.empty()) comps.detail += "; ";
    comps.detail += ci->name;
    if (ci->disabled) {
      std::string why = ci->disabled_reason;
      comps.detail += " (disabled: " + (why.empty() ? std::string("no reason given") : why) + ")";
    } else {
      comps.detail += " (enabled, " + std::to_string(ci->num_native_events) + " native events)";
    }
  }
  out.push_back(comps);
  return out;
}

Check check_software_events(const topdown::CpuId& cpu, const std::string& root) {
  Check c{"software events", Status::kOk, "", ""};
  if (!PAPI_is_initialized() && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    c.status = Status::kBroken;
    c.detail = "PAPI not initialised";
    return c;
  }
  const bool kernel_software = topdown::kernel_software_pmu(root);
  if (const auto why = agent::perf_component_disabled()) {
    const auto advice = topdown::perf_component_advice(*why, cpu, kernel_software);
    return {c.name, Status::kMissing, "perf::TASK-CLOCK cannot be counted: " + advice.detail, advice.fix};
  }
  int es = PAPI_NULL;
  long long ns = 0;
  int rc = PAPI_create_eventset(&es);
  if (rc == PAPI_OK) rc = PAPI_add_named_event(es, "perf::TASK-CLOCK");
  if (rc == PAPI_OK) rc = PAPI_start(es);
  if (rc == PAPI_OK) rc = PAPI_stop(es, &ns);
  if (es != PAPI_NULL) {
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
  }
  if (rc == PAPI_OK) {
    c.detail = "perf::TASK-CLOCK counted: the default event set works";
  } else {
    c.status = Status::kMissing;
    c.detail = std::string("perf::TASK-CLOCK refused (") + PAPI_strerror(rc) + ")";
    c.fix = kernel_software ? "check perf_event_paranoid (above) and whether a seccomp filter or container forbids perf_event_open"
                            : "use a kernel built with CONFIG_PERF_EVENTS (no /sys/bus/event_source/devices/software)";
  }
  return c;
}

Check check_hardware_events(const topdown::CpuId& cpu, const std::string& root) {
  Check c{"hardware events", Status::kOk, "", ""};
  if (!PAPI_is_initialized() && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    c.status = Status::kBroken;
    c.detail = "PAPI not initialised";
    return c;
  }
  int es = PAPI_NULL;
  int rc = PAPI_create_eventset(&es);
  if (rc == PAPI_OK) rc = PAPI_add_named_event(es, "PAPI_TOT_CYC");
  long long value = 0;
  if (rc == PAPI_OK) rc = PAPI_start(es);
  if (rc == PAPI_OK) {
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i) x = x + i * 0.5;
    rc = PAPI_stop(es, &value);
  }
  if (es != PAPI_NULL) {
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
  }
  if (rc == PAPI_OK && value > 0) {
    c.detail = "PAPI_TOT_CYC counted (" + std::to_string(value) + " cycles in a test loop)";
    return c;
  }
  c.status = Status::kMissing;
  c.detail = std::string("hardware events unavailable: PAPI_TOT_CYC ") +
             (rc == PAPI_OK ? "counted zero" : std::string("refused (") + PAPI_strerror(rc) + ")");
  bool ok = false;
  const std::string paranoid = first_line_of_file(root + "/proc/sys/kernel/perf_event_paranoid", &ok);
  if (cpu.virtualised) {
    c.detail += "; running in a virtual machine";
    c.fix = "VM: enable PMU passthrough (-cpu host / vPMU, e.g. libvirt <pmu state='on'/>, "
            "VMware 'virtualize CPU performance counters')";
    c.fix += agent::perf_component_disabled() ? "; and see 'software events'" : "; software events still work";
  } else if (ok && paranoid != "" && std::atoi(paranoid.c_str()) > 2 && ::geteuid() != 0) {
    c.fix = "sysctl kernel.perf_event_paranoid=1";
  } else {
    c.fix = "check that no other tool holds the counters (NMI watchdog: sysctl kernel.nmi_watchdog=0) "
            "and that the kernel supports this CPU's PMU";
  }
  return c;
}

bool Report::broken() const {
  for (const auto& c : checks)
    if (c.status == Status::kBroken) return true;
  return false;
}

void drop_contradicting_advice(Report& r) {
  bool no_hardware_events = false;
  for (const auto& c : r.checks) no_hardware_events |= c.name == "hardware events" && c.status != Status::kOk;
  if (!no_hardware_events) return;
  for (auto& c : r.checks)
    if (c.name != "hardware events" && c.fix.find("PAPI_TOT_") != std::string::npos)
      c.fix = "see 'hardware events' (no hardware event, PAPI_TOT_CYC included, can be counted here)";
}

Report run_all(const std::string& exe_path) {
  Report r;
  const auto cpu = topdown::detect_cpu();
  r.checks.push_back(check_mpi());
  r.checks.push_back(check_preload(exe_path));
  for (auto& c : check_papi()) r.checks.push_back(std::move(c));
  r.checks.push_back(check_perf_paranoid("/", ::geteuid() == 0));
  const bool papi_ok = !r.broken();
  if (papi_ok) {
    r.checks.push_back(check_software_events(topdown::detect_cpu_at("/"), "/"));  // libpfm4 probes the real CPU
    r.checks.push_back(check_hardware_events(cpu, "/"));
  }
  r.checks.push_back(check_topdown_plan(cpu, "/", ::geteuid() == 0));
  // The set is only usable where hardware events count; say so here too rather than "ok".
  for (const auto& c : r.checks)
    if (c.name == "hardware events" && c.status != Status::kOk && r.checks.back().status == Status::kOk) {
      r.checks.back().status = Status::kMissing;
      r.checks.back().detail = "would use " + r.checks.back().detail + "; unavailable: hardware events cannot be counted here";
      r.checks.back().fix = "see 'hardware events'";
    }
  const char* path = std::getenv("PATH");
  r.checks.push_back(check_slurm(path ? path : ""));
  for (auto& c : check_knobs("/", r.checks.back().status == Status::kOk)) r.checks.push_back(std::move(c));
  drop_contradicting_advice(r);
  return r;
}

std::string to_text(const Report& r) {
  std::string out = "hpcsens doctor\n";
  for (const auto& c : r.checks) {
    char head[64];
    std::snprintf(head, sizeof head, "  [%-7s] %-20s ", status_name(c.status), c.name.c_str());
    out += head + c.detail + "\n";
    if (!c.fix.empty()) out += std::string(33, ' ') + "fix: " + c.fix + "\n";
  }
  out += r.broken() ? "hpcsens itself is broken: see the checks marked broken\n"
                    : "hpcsens works here; missing capabilities only limit what it can measure or set\n";
  return out;
}

std::string to_json(const Report& r) {
  nlohmann::json j;
  j["schema"] = "hpcsens.doctor.v1";
  j["broken"] = r.broken();
  j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks)
    j["checks"].push_back({{"name", c.name}, {"status", status_name(c.status)}, {"detail", c.detail}, {"fix", c.fix}});
  return j.dump(2) + "\n";
}

}  // namespace hpcsens::doctor
