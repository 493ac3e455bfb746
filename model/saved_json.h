#pragma once
// Checked reading of an output hpcsens wrote (a prediction or mix JSON) back into the objects its
// renderers take: every field the renderers show must be there with its type, else InputError
// naming the file and the field path ("predictions[1].fit_low_s") and how to write the file again.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::model {

class SavedJson {
 public:
  // `again`: the command that writes such a file, named in every error.
  SavedJson(const nlohmann::json& node, std::string file, std::string again, std::string path = "");

  double number(const char* key) const;                 // a number
  double number_or_nan(const char* key) const;          // a number, or null (a NaN written out)
  std::optional<double> optional(const char* key) const;  // absent or null: empty
  std::string text(const char* key) const;
  std::string text_or(const char* key, const std::string& fallback) const;  // absent: fallback
  bool flag(const char* key) const;
  std::vector<std::string> texts(const char* key) const;  // an array of strings
  std::vector<SavedJson> objects(const char* key) const;  // an array of objects
  SavedJson object(const char* key) const;
  // One of `words`, else InputError listing them.
  std::string word(const char* key, const std::vector<std::string>& words) const;
  [[noreturn]] void fail(const char* key, const std::string& problem) const;
  const nlohmann::json& node() const { return *node_; }

 private:
  const nlohmann::json& at(const char* key) const;
  std::string field(const char* key) const;
  const nlohmann::json* node_;
  std::string file_, again_, path_;
};

// The verdict words a saved prediction or mix may hold (model/verdict.h), for SavedJson::word.
inline const std::vector<std::string> kSavedVerdictWords = {"ok", "caution", "unreliable"};

}  // namespace hpcsens::model
