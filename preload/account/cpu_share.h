#pragma once
// What share of a CPU the rank had: the CPUs it may run on, the CPUs online on its host and the
// CPU time it used. With more ranks than CPUs on a host (or a rank that ran far less than it was
// alive), waiting is the scheduler's, not the code's: the report says so instead of reporting an
// imbalance (report/oversubscription.h). Read once at finalize or abort, never on a counted path.
#include <nlohmann/json.hpp>

namespace hpcsens::preload {

// {"online": CPUs online, "allowed": CPUs in this process's affinity mask, "used_s": user +
// system CPU time of this process so far, "run_delay_s": time its main thread waited for a CPU
// while runnable}; a field the system cannot give is left out.
nlohmann::json cpu_share_json();

}  // namespace hpcsens::preload
