// Which page an input gets: a directory is a sweep; a JSON file by its `schema`.
#include "report/html_report.h"

#include <filesystem>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/safe_file.h"
#include "model/mix.h"
#include "model/saved_output.h"
#include "report/html_page.h"
#include "report/model_view.h"
#include "report/record_reader.h"

namespace hpcsens::report {
namespace {

// Per-rank sections (partners, histograms, regions) need the raw record; records up to this size
// are parsed a second time for them. Larger ones are jobs too big for rank x rank pictures.
constexpr std::uintmax_t kRawRecordMax = 64u << 20;

// Strict and bounded (common/json_input.h): the pages copy and walk what they are given.
nlohmann::json parse_json(const std::string& path, const std::string& text) {
  nlohmann::json j = json_input::parse_strict(text, path);
  if (!j.is_object()) throw InputError(path, "is not a JSON object");
  return j;
}

constexpr const char* kModelSchema = "hpcsens.model.v1";

std::string render_view(const nlohmann::json& view, const std::string& format, bool summary) {
  if (format == "json") return view.dump(1) + "\n";
  return view_text(view, parse_format(format == "text" ? "table" : format), summary);
}

}  // namespace

std::optional<std::string> sweep_or_model_report(const std::string& input, const std::string& format, bool summary) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(input, ec))
    return format == "csv" ? std::nullopt : std::optional(render_view(sweep_view(input), format, summary));
  const auto size = fs::file_size(input, ec);
  if (ec || size > kRawRecordMax) return std::nullopt;  // only run records get that large
  const std::string text = safe_file::read_input_file(input);
  // A model, prediction or mix names its schema; a run record is left to its own fast reader unparsed.
  auto names = [&](const char* schema) { return text.find(std::string("\"") + schema + "\"") != std::string::npos; };
  if (!names(kModelSchema) && !names(model::kPredictionSchema) && !names(model::kMixSchema)) return std::nullopt;
  const nlohmann::json j = parse_json(input, text);
  // value() would throw on a schema of another type (an internal error): a record reader says what is wrong.
  const auto s = j.find("schema");
  if (s == j.end() || !s->is_string()) return std::nullopt;
  const std::string fmt = format == "text" ? "table" : format;
  if (*s == model::kPredictionSchema) return model::render_saved_prediction(j, input, fmt, summary);
  if (*s == model::kMixSchema) return model::render_saved_mix(j, input, fmt, summary);
  if (*s != kModelSchema || format == "csv") return std::nullopt;
  return render_view(model_view(j, input), format, summary);
}

std::string html_report(const std::string& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(input, ec)) return html::document(sweep_page(input));
  // Only run records get large (100,000 ranks: ~110 MB); those go to the record reader, which
  // checks the schema itself, and get no raw copy for per-rank pictures.
  if (fs::file_size(input, ec) > kRawRecordMax && !ec)
    return html::document(run_page(read_run_record(input), nlohmann::json()));
  const nlohmann::json j = parse_json(input, safe_file::read_input_file(input));
  const auto found = j.find("schema");
  if (found == j.end() || !found->is_string())
    throw InputError(input, "field 'schema' is missing or not a string (not an hpcsens file?)");
  const std::string schema = found->get<std::string>();
  if (schema == record::kRunSchema) return html::document(run_page(read_run_record(input), j));
  if (schema == kModelSchema) return html::document(model_page(j, input));
  if (schema == "hpcsens.prediction.v1") return html::document(prediction_page(j, input));
  if (schema == "hpcsens.mix.v1") return html::document(mix_page(j, input));
  throw InputError(input, "field 'schema': '" + schema +
                              "' is not a run record, model, prediction or mix (nor is it a sweep directory)");
}

}  // namespace hpcsens::report
