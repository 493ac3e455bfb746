#include "report/raw_ranks.h"

#include "common/errors.h"
#include "record/run_record.h"

namespace hpcsens::report {

nlohmann::json read_raw_ranks(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(record::read_record_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError(path, "is not a JSON object");
  const auto ranks = j.find("ranks");
  if (ranks == j.end() || !ranks->is_array()) throw InputError(path, "field 'ranks' is missing or not an array");
  return std::move(*ranks);
}

}  // namespace hpcsens::report
