#pragma once
// A record's text as written to disk (indented, one final newline); shared by every writer of
// records (the preload, `hpcsens run`) so they cannot differ.
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::record {

// False with *error when the text cannot be made; never throws: bytes that are not UTF-8 (which
// encoded outside strings never contain) become U+FFFD rather than losing the record.
bool record_text(const nlohmann::json& j, std::string* text, std::string* error);

}  // namespace hpcsens::record
