#pragma once
// Errors that reach the user. Bad input is always exit status 2 with one line naming
// where the problem is (file, line, field) and what it is, so the CLI never has to guess.
#include <stdexcept>
#include <string>

namespace hpcsens {

// Bad usage or bad input: the CLI prints what() and exits 2.
class InputError : public std::runtime_error {
 public:
  // `where` is "file", "file:line" or "file:line: field"; `problem` says what is wrong.
  InputError(const std::string& where, const std::string& problem)
      : std::runtime_error(where.empty() ? problem : where + ": " + problem) {}
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

inline constexpr int kExitBadInput = 2;

}  // namespace hpcsens
