#include "model/saved_json.h"

#include <cmath>

#include "common/errors.h"

namespace hpcsens::model {

using json = nlohmann::json;

SavedJson::SavedJson(const json& node, std::string file, std::string again, std::string path)
    : node_(&node), file_(std::move(file)), again_(std::move(again)), path_(std::move(path)) {}

std::string SavedJson::field(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

void SavedJson::fail(const char* key, const std::string& problem) const {
  throw InputError(file_, "field '" + field(key) + "' " + problem + " (not as hpcsens wrote it: write it again with " +
                              again_ + ")");
}

const json& SavedJson::at(const char* key) const {
  const auto it = node_->find(key);
  if (it == node_->end()) fail(key, "is missing");
  return *it;
}

double SavedJson::number(const char* key) const {
  const json& v = at(key);
  if (!v.is_number()) fail(key, "is not a number");
  return v.get<double>();
}

double SavedJson::number_or_nan(const char* key) const {
  const json& v = at(key);
  if (v.is_null()) return NAN;
  if (!v.is_number()) fail(key, "is not a number or null");
  return v.get<double>();
}

std::optional<double> SavedJson::optional(const char* key) const {
  const auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) fail(key, "is not a number or null");
  return it->get<double>();
}

std::string SavedJson::text(const char* key) const {
  const json& v = at(key);
  if (!v.is_string()) fail(key, "is not a string");
  return v.get<std::string>();
}

std::string SavedJson::text_or(const char* key, const std::string& fallback) const {
  return node_->contains(key) ? text(key) : fallback;
}

bool SavedJson::flag(const char* key) const {
  const json& v = at(key);
  if (!v.is_boolean()) fail(key, "is not true or false");
  return v.get<bool>();
}

std::vector<std::string> SavedJson::texts(const char* key) const {
  const json& v = at(key);
  if (!v.is_array()) fail(key, "is not an array of strings");
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) fail(key, "holds an item that is not a string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<SavedJson> SavedJson::objects(const char* key) const {
  const json& v = at(key);
  if (!v.is_array()) fail(key, "is not an array");
  std::vector<SavedJson> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string item = field(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_object()) throw InputError(file_, "field '" + item + "' is not an object (write it again with " +
                                                       again_ + ")");
    out.emplace_back(v[i], file_, again_, item);
  }
  return out;
}

SavedJson SavedJson::object(const char* key) const {
  const json& v = at(key);
  if (!v.is_object()) fail(key, "is not an object");
  return SavedJson(v, file_, again_, field(key));
}

std::string SavedJson::word(const char* key, const std::vector<std::string>& words) const {
  const std::string w = text(key);
  std::string list;
  for (const auto& x : words) {
    if (x == w) return w;
    list += (list.empty() ? "" : ", ") + x;
  }
  fail(key, "is '" + w + "', not one of " + list);
}

}  // namespace hpcsens::model
