#pragma once
// Facts about the job that come from outside MPI, and the line that tells an env-only user
// (`mpirun -x LD_PRELOAD=.../libhpcsens_preload.so ./app`, no `hpcsens run`) where the record
// went. Pure: the environment is passed in, so both are tested without a job.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace hpcsens::preload {

using GetEnv = std::function<const char*(const char*)>;

// {"job_id", "step_id", "partition", "nodelist", "nnodes"} from the SLURM_* variables the rank
// sees (the keys present are those Slurm set); null outside a Slurm job.
nlohmann::json slurm_facts(const GetEnv& getenv_fn);

// True when no `hpcsens run` started the job (it always sets HPCSENS_RUN_ID and prints the
// record path itself).
bool env_only(const GetEnv& getenv_fn);

// One line, as mpiP's "Storing mpiP output in ...":
//   hpcsens: 4 ranks on 2 hosts, job 1.234 s; record: PATH (hpcsens report PATH)
std::string banner_line(const record::RunRecord& run, const std::string& path);

}  // namespace hpcsens::preload
