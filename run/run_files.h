#pragma once
// The files one run leaves in its output directory, found by pattern rather than by a fixed
// name: the preload writes each under a fresh random name (common/safe_file commit_unique), so a
// name another user planted in a shared directory (a directory called RUNID.json, a link) can
// neither take the record's place nor be mistaken for it. Only regular files owned by us with one
// link count (docs/record-format.md, "File names").
#include <string>
#include <string_view>
#include <vector>

#include "common/safe_file.h"

namespace hpcsens::run {

enum class RunFile {
  kRecord,   // <run_id>.<16 hex>.json
  kPartial,  // <run_id>.rank<N>.<16 hex>.partial.json
  kNote,     // <run_id>.<16 hex>.write-error
};

// Whether `name` is a file of this kind for run_id. Pure.
bool is_run_file(std::string_view name, std::string_view run_id, RunFile kind);

// Names of this run's files of one kind in `dir` (regular, ours, one link), sorted by name.
std::vector<std::string> run_files(const safe_file::Dir& dir, const std::string& run_id, RunFile kind);

// The run's record in `dir`: the newest matching file's name, or "".
std::string find_record_name(const safe_file::Dir& dir, const std::string& run_id);

}  // namespace hpcsens::run
