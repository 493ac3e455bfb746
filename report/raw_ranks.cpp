#include "report/raw_ranks.h"

#include "common/errors.h"
#include "common/json_input.h"
#include "record/run_record.h"

namespace hpcsens::report {

nlohmann::json read_raw_ranks(const std::string& path) {
  // Strict and bounded (depth, string and number length): the tables below copy what they read.
  nlohmann::json j = json_input::parse_strict(record::read_record_file(path), path);
  if (!j.is_object()) throw InputError(path, "is not a JSON object");
  // A run record, as the other readers require (their words): not any JSON with ranks in it.
  const auto schema = j.find("schema");
  if (schema == j.end()) throw InputError(path, "missing field 'schema'");
  if (!schema->is_string()) throw InputError(path, "field 'schema' has the wrong type");
  if (*schema != record::kRunSchema)
    throw InputError(path, "field 'schema' is '" + schema->get<std::string>() + "', expected '" + record::kRunSchema + "'");
  const auto ranks = j.find("ranks");
  if (ranks == j.end() || !ranks->is_array()) throw InputError(path, "field 'ranks' is missing or not an array");
  return std::move(*ranks);
}

}  // namespace hpcsens::report
