#include "run/collect_record.h"

#include "energy/sampler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/preload_env.h"
#include "common/safe_file.h"
#include "energy/sampler.h"
#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"
#include "record/record_text.h"
#include "record/run_record.h"
#include "run/run_files.h"

namespace hpcsens::run {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Our own files in the output directory: never through a symlink, never another user's.
json read_json(const std::string& path) {
  return json_input::parse_strict(safe_file::read_own_file(path, record::kMaxRecordBytes), path);
}

// Free space below this cannot hold a record of a small job.
constexpr unsigned long long kMinFreeBytes = 1ull << 20;

// A partial file holds one rank object; tolerate it being wrapped as {"rank": {...}} or
// {"ranks": [...]} so a format detail of the preload does not lose the data.
std::vector<record::RankRecord> ranks_of_partial(const json& j, const std::string& path) {
  std::vector<record::RankRecord> out;
  if (j.is_object() && j.contains("ranks") && j.at("ranks").is_array()) {
    for (const auto& r : j.at("ranks")) out.push_back(record::rank_from_json(r, path));
  } else if (j.is_object() && j.contains("rank") && j.at("rank").is_object()) {
    out.push_back(record::rank_from_json(j.at("rank"), path));
  } else {
    out.push_back(record::rank_from_json(j, path));
  }
  return out;
}

json assemble(const std::vector<std::string>& files, const JobFacts& facts, std::string* problems) {
  record::RunRecord rec;
  int declared_ranks = 0;  // the job size a partial run record states (MPI_Comm_size)
  for (const auto& f : files) {
    try {
      const json j = read_json(f);
      if (j.is_object() && j.contains("job") && j.at("job").is_object()) {
        const json& job = j.at("job");
        if (job.contains("nranks") && job.at("nranks").is_number_integer())
          declared_ranks = std::max(declared_ranks, job.at("nranks").get<int>());
        if (rec.job.mpi_library.empty() && job.contains("mpi_library") && job.at("mpi_library").is_string())
          rec.job.mpi_library = job.at("mpi_library").get<std::string>();
        // Sections added by the preload (e.g. its notes) are kept from the first file having them.
        static const char* known[] = {"schema", "job", "config", "timing", "ranks", "imbalance",
                                      "counters_status", "complete", "emulated"};
        for (const auto& [k, v] : j.items())
          if (std::none_of(std::begin(known), std::end(known), [&](const char* n) { return k == n; }) &&
              !rec.extra.contains(k))
            rec.extra[k] = v;
      }
      for (auto& r : ranks_of_partial(j, f)) {
        r.complete = false;
        rec.ranks.push_back(std::move(r));
      }
    } catch (const InputError& e) {
      *problems += std::string(problems->empty() ? "" : "; ") + e.what();
    }
  }
  std::sort(rec.ranks.begin(), rec.ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  rec.job.command = facts.command;
  rec.job.launcher = facts.launcher;
  rec.job.start_utc = facts.start_utc;
  int max_rank = -1;
  std::set<std::string> hosts;
  for (const auto& r : rec.ranks) {
    max_rank = std::max(max_rank, r.rank);
    hosts.insert(r.host);
    if (rec.counters_status == "ok" && r.counters_status != "ok") rec.counters_status = r.counters_status;
  }
  rec.job.nranks = std::max(max_rank + 1, declared_ranks);
  rec.job.hosts.assign(hosts.begin(), hosts.end());
  // Ranks killed before they could write (SIGKILL, a launcher tearing the job down): their count
  // is all that is left of them, and the record says so rather than shrinking the job.
  if (const auto lost = rec.job.nranks - static_cast<int>(rec.ranks.size()); lost > 0)
    rec.extra["lost_ranks"] = {{"count", lost},
                               {"reason", "killed before they could leave a partial record (no MPI_Finalize, "
                                          "no MPI_Abort or catchable signal of their own)"}};
  rec.complete = false;
  // Ranks that stopped early have no finalize barrier: the bounds hold only if they recorded
  // when they stopped (t3 > t0); otherwise there is no job time to report.
  const bool have_stop = !rec.ranks.empty() && std::all_of(rec.ranks.begin(), rec.ranks.end(),
                                                           [](const auto& r) { return r.t3 > r.t0; });
  if (have_stop) {
    mpi::fill_timing(rec);  // sees the incomplete ranks and says so in timing.method
  } else {
    rec.timing.method = "unavailable: ranks did not reach MPI_Finalize";
  }
  mpi::fill_imbalance(rec);
  return record::to_json(rec);
}

}  // namespace

std::string record_write_problem(const std::string& out_dir, const std::string& run_id,
                                 const std::set<std::string>& earlier) {
  const std::string record = (fs::path(out_dir) / (run_id + ".*" + env::kRecordSuffix)).string();
  safe_file::Dir d;
  if (std::string err = safe_file::open_dir(out_dir, false, &d); !err.empty())
    return "cannot write the run record " + record + ": " + err;
  std::string said;  // the preload's own words, when it could leave them
  for (const auto& name : run_files(d, run_id, RunFile::kNote, earlier)) {
    try {
      std::string note = safe_file::read_own_file(d.child(name), 4096);
      while (!note.empty() && (note.back() == '\n' || note.back() == '\r')) note.pop_back();
      if (said.empty() && !note.empty()) said = "the preload could not write the run record: " + note;
    } catch (const InputError&) {
    }
    ::unlinkat(d.fd(), name.c_str(), 0);
  }
  if (!said.empty()) return said;
  struct statvfs vfs {};
  if (::fstatvfs(d.fd(), &vfs) == 0) {
    const unsigned long long free_bytes = static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes < kMinFreeBytes || vfs.f_favail == 0)
      return "cannot write the run record " + record + ": " + std::strerror(ENOSPC) + " (" +
             std::to_string(free_bytes) + " bytes free on its file system)";
  }
  const std::string probe(64 * 1024, '\0');
  const std::string name = ".hpcsens-write-probe-" + run_id;
  if (std::string err = safe_file::write_atomic(d, name, probe); !err.empty())
    return "cannot write the run record " + record + ": " + err;
  ::unlinkat(d.fd(), name.c_str(), 0);
  return "";
}

std::vector<std::string> partial_rank_files(const std::string& out_dir, const std::string& run_id,
                                            const std::set<std::string>& earlier) {
  safe_file::Dir d;
  if (!safe_file::open_dir(out_dir, false, &d).empty()) return {};
  std::vector<std::string> out = run_files(d, run_id, RunFile::kPartial, earlier);
  for (auto& name : out) name = d.child(name);
  return out;
}

namespace {

// Temporaries of ranks killed while writing (".<run_id>.rankN.partial.json.tmp.PID..." from
// safe_file) hold nothing usable; only our own are removed.
void remove_partial_leftovers(const safe_file::Dir& d, const std::string& run_id, const std::set<std::string>& earlier) {
  for (const auto& f : run_files(d, run_id, RunFile::kPartial, earlier)) ::unlinkat(d.fd(), f.c_str(), 0);
  const std::string prefix = "." + run_id + ".rank";
  std::error_code ec;
  for (fs::directory_iterator it(d.path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    struct stat st {};
    if (name.rfind(prefix, 0) == 0 && name.find(".partial.json.tmp.") != std::string::npos &&
        ::fstatat(d.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == ::geteuid())
      ::unlinkat(d.fd(), name.c_str(), 0);
  }
}

// The start time a record names (job.start_utc), or "" when it names none.
std::string start_of(const json& j) {
  const auto job = j.find("job");
  if (job == j.end() || !job->is_object()) return "";
  const auto t = job->find("start_utc");
  return t != job->end() && t->is_string() ? t->get<std::string>() : "";
}

// The preload's full record, validated; "" name when there is none.
bool read_full_record(const safe_file::Dir& d, const std::string& name, const JobFacts& facts, json* j, Collected* c) {
  const std::string path = d.child(name);
  try {
    *j = read_json(path);
    record::run_from_json(*j, path);  // validates; names file and field when wrong
  } catch (const InputError& e) {
    c->error = std::string("the run record is unreadable: ") + e.what();
    c->record_path = path;
    return false;
  }
  // The ranks got this run's start time: a record naming another is another job's (a reused id).
  if (const std::string start = start_of(*j); !facts.start_utc.empty() && !start.empty() && start != facts.start_utc) {
    c->error = "no record of this run: " + path + " has this run's id but names the start time '" + start +
               "', not this run's (" + facts.start_utc + "): another job's record (a reused run id); not taken "
               "for this one";
    return false;
  }
  c->complete = j->value("complete", true);
  return true;
}

}  // namespace

Collected collect_record(const std::string& out_dir, const std::string& run_id, const JobFacts& facts,
                         const json& config) {
  Collected c;
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(out_dir, false, &d); !err.empty()) {
    c.error = "cannot read the output directory: " + err;
    c.no_ranks = true;
    return c;
  }
  std::string name = find_record_name(d, run_id, facts.earlier);
  json j;
  if (!name.empty()) {
    if (!read_full_record(d, name, facts, &j, &c)) return c;
  } else {
    const auto files = partial_rank_files(out_dir, run_id, facts.earlier);
    if (files.empty()) {
      c.error = "no MPI ranks reported (was this an MPI program?)";
      c.no_ranks = true;
      return c;
    }
    std::string problems;
    j = assemble(files, facts, &problems);
    c.partial_ranks = static_cast<int>(j.at("ranks").size());
    if (j.contains("lost_ranks")) c.lost_ranks = j.at("lost_ranks").value("count", 0);
    c.complete = false;
    if (!problems.empty()) c.error = "some partial rank files were unreadable: " + problems;
    if (c.partial_ranks == 0) {
      if (c.error.empty()) c.error = "no MPI ranks reported";
      return c;
    }
  }
  if (!j.contains("config") || !j.at("config").is_object()) j["config"] = json::object();
  if (config.is_object()) j["config"].update(config);
  if (facts.sections.is_object())
    for (const auto& [k, v] : facts.sections.items()) j[k] = v;
  energy::merge_rank_node_energy(j);  // the other nodes' energy, from their counter agents
  if (facts.enrich) facts.enrich(j);
  std::string text, werr;
  if (record::record_text(j, &text, &werr)) {
    // The preload's file is ours and is replaced in place; an assembled one gets a fresh name.
    werr = name.empty() ? safe_file::write_unique(d, run_id, env::kRecordSuffix, text, &name)
                        : safe_file::write_atomic(d, name, text);
  }
  if (!werr.empty()) {
    c.error = (name.empty() ? "cannot write the run record: " : "cannot update the run record: ") + werr;
    if (name.empty()) {
      c.write_failed = true;
      return c;
    }
  }
  c.record_path = d.child(name);
  if (c.partial_ranks > 0) remove_partial_leftovers(d, run_id, facts.earlier);
  return c;
}

// The launcher can exit while ranks it is tearing down (abort, exit without finalize) are still
// writing partial records. They need not be in the job's process group (Open MPI gives ranks
// groups of their own), so watch the files instead: without a full record, wait until the
// partial files (and their temporaries) stop changing, 300 ms of quiet, 3 s at most.
void settle_partial_files(const std::string& out_dir, const std::string& run_id, const std::set<std::string>& earlier) {
  using clock = std::chrono::steady_clock;
  safe_file::Dir d;
  if (!safe_file::open_dir(out_dir, false, &d).empty()) return;
  const std::string prefix = run_id + ".rank";
  auto snapshot = [&] {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      // Also the temporaries safe_file writes first (".<run_id>.rankN.partial.json.tmp...").
      if (name.rfind(prefix, 0) == 0 || name.rfind("." + prefix, 0) == 0) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto give_up = clock::now() + std::chrono::seconds(3);
  auto last = snapshot();
  auto quiet_since = clock::now();
  while (find_record_name(d, run_id, earlier).empty() && clock::now() < give_up &&
         clock::now() - quiet_since < std::chrono::milliseconds(300)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto now = snapshot();
    if (now != last) {
      last = std::move(now);
      quiet_since = clock::now();
    }
  }
}

}  // namespace hpcsens::run
