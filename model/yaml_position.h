#pragma once
// "file:line" of a YAML node, for the one-line error messages of the model's YAML inputs.
#include <yaml-cpp/yaml.h>

#include <string>

namespace hpcsens::model {

inline std::string yaml_position(const std::string& path, const YAML::Node& n) {
  return path + ":" + std::to_string(n.Mark().line + 1);
}

}  // namespace hpcsens::model
