#include "preload/rank_record/record_stream.h"

#include <algorithm>
#include <cstring>

#include "common/text_terminal.h"

namespace hpcsens::preload {
namespace {

// Cut at a character (and escape) boundary: a cut inside one would be invalid UTF-8 in the record.
void copy_clipped(char (&dst)[256], const std::string& src) {
  const std::size_t n = text::cut_at_boundary(src, sizeof dst - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace

RankHeader header_of(const record::RankRecord& r, std::uint64_t text_bytes) {
  RankHeader h;
  h.rank = r.rank;
  h.complete = r.complete ? 1 : 0;
  h.t0 = r.t0;
  h.t1 = r.t1;
  h.t2 = r.t2;
  h.t3 = r.t3;
  h.wall_s = r.wall_s;
  h.compute_s = r.compute_s;
  h.text_bytes = text_bytes;
  copy_clipped(h.host, r.host);
  copy_clipped(h.counters_status, r.counters_status);
  return h;
}

std::string RecordStream::open(const std::string& out_dir, const std::string& run_id) {
  run_id_ = run_id;
  if (auto err = safe_file::open_dir(out_dir, true, &dir_); !err.empty()) return err;
  if (auto err = file_.create(dir_, run_id + ".json"); !err.empty()) return err;
  // "schema" first, as in every record, then the ranks; the job-level sections follow them.
  return file_.append(std::string("{\"schema\": \"") + record::kRunSchema +
                      "\", \"schema_minor\": 2, \"ranks\": [\n");
}

std::string RecordStream::add(const RankHeader& h, std::string_view text) {
  if (!clocks_.empty())
    if (auto err = file_.append(",\n"); !err.empty()) return err;
  if (auto err = file_.append(text); !err.empty()) return err;
  clocks_.push_back({h.t0, h.t1, h.t2, h.t3});
  times_.push_back({h.rank, h.wall_s, h.compute_s});
  const std::string host(h.host, strnlen(h.host, sizeof h.host));
  if (seen_hosts_.insert(host).second) hosts_.push_back(host);
  all_complete_ = all_complete_ && h.complete != 0;
  untracked_files_ += h.untracked_files;
  region_drops_ += h.region_drops;
  truncated_ += h.truncated;
  recv_fallbacks_ += h.recv_fallbacks;
  persistent_drops_ += h.persistent_drops;
  status_.add(h.rank, std::string(h.counters_status, strnlen(h.counters_status, sizeof h.counters_status)));
  return "";
}

nlohmann::json RecordStream::drops() const {
  nlohmann::json d = nlohmann::json::object();
  if (untracked_files_ > 0) d["untracked_files"] = untracked_files_;
  if (region_drops_ > 0) d["region_errors"] = region_drops_;
  if (truncated_ > 0) d["truncated_ranks"] = truncated_;
  // Non-blocking receives counted at their posted size or never completed on their thread.
  if (recv_fallbacks_ > 0) d["recv_posted_size"] = recv_fallbacks_;
  // Persistent sends the table could not hold: their starts are not in bytes or partners.
  if (persistent_drops_ > 0) d["persistent_untracked"] = persistent_drops_;
  return d;
}

std::string RecordStream::finish(const JobInfo& job, const nlohmann::json& extra) {
  record::RunRecord& run = run_;  // no ranks: only its job-level sections are written
  set_job(run.job, job, static_cast<int>(clocks_.size()), hosts_);
  run.complete = all_complete_;
  run.counters_status = status_.result();
  if (!clocks_.empty()) {
    run.timing = mpi::timing_of(clocks_, hosts_.size() == 1, all_complete_);
    run.imbalance = mpi::imbalance_of(times_);
  }
  nlohmann::json j = record::to_json(run);
  j.erase("schema");
  j.erase("ranks");
  for (const auto& [k, v] : extra.items()) j[k] = v;
  // Outside strings are encoded, so valid UTF-8; should one slip through, U+FFFD, not a throw.
  std::string rest = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);  // "{\n ...}"
  rest[0] = ',';
  if (auto err = file_.append("\n]" + rest + "\n"); !err.empty()) return err;
  std::string name;
  if (auto err = file_.commit_unique(run_id_, ".json", &name); !err.empty()) return err;
  path_ = dir_.child(name);
  return "";
}

}  // namespace hpcsens::preload
