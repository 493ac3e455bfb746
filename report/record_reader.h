#pragma once
// Reading run records fast enough for 100,000-rank jobs. nlohmann's DOM parser needs ~2 s for
// such a record (about 100 MB) before any table is built; simdjson reads it in a fraction.
// Any problem at all (bad JSON, a missing or mistyped field) falls back to
// record::load_run_record, whose error names the file and field, so the messages stay the ones
// the record module defines and this reader never has to duplicate them.
#include <string>
#include <string_view>

#include "record/run_record.h"

namespace hpcsens::report {

// Same result as record::load_run_record(path) for every valid record; throws InputError for
// an invalid one (via load_run_record).
record::RunRecord read_run_record(const std::string& path);
// The same for the bytes of a record file already read (`path` names it in errors).
record::RunRecord read_run_record_text(const std::string& text, const std::string& path);

// One rank object (as record::rank_from_json reads it) from its bytes, `padding` readable bytes
// following them; errors name `source`.
record::RankRecord read_rank_text(std::string_view object, std::size_t padding, const std::string& source);

}  // namespace hpcsens::report
