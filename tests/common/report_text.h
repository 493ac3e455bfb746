#pragma once
// The text report as a test reads it: table cells and answers wrap at 120 columns, so a sentence
// the test looks for may be split over lines. unwrapped() undoes that (a newline and the indent
// after it become one space), leaving every word as printed.
#include <string>

namespace hpcsens::testing {

inline std::string unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    out += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return out;
}

}  // namespace hpcsens::testing
