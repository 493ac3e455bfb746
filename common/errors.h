#pragma once
// Errors that reach the user. Bad input is always exit status 2 with one line naming
// where the problem is (file, line, field) and what it is, so the CLI never has to guess.
#include <stdexcept>
#include <string>

#include "common/text_escape.h"

namespace hpcsens {

// Bad usage or bad input: the CLI prints what() and exits 2. The message quotes input (file
// names, field values, parser excerpts), so it is escaped here, once for every call site:
// control characters and invalid bytes appear as \n, \xHH, and the message stays one line.
class InputError : public std::runtime_error {
 public:
  // `where` is "file", "file:line" or "file:line: field"; `problem` says what is wrong.
  InputError(const std::string& where, const std::string& problem)
      : std::runtime_error(text::escape_for_message(where.empty() ? problem : where + ": " + problem)) {}
  explicit InputError(const std::string& message)
      : std::runtime_error(text::escape_for_message(message)) {}
};

inline constexpr int kExitBadInput = 2;

}  // namespace hpcsens
