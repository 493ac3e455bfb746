#include "report/table.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::report {
namespace {

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// A word cut to `width` with "...": a path keeps its right end (the file name, which tells the rows
// apart), anything else its start.
std::string shorten(const std::string& word, std::size_t width) {
  if (width <= 3) return word.substr(0, width);
  if (word.find('/') != std::string::npos) return "..." + word.substr(word.size() - (width - 3));
  return word.substr(0, width - 3) + "...";
}

// Greedy word wrap of `s` into lines of at most `width`; a word longer than that is shortened,
// or cut into pieces when `split_words` (column headers: a counter's name stays whole).
std::vector<std::string> wrap(const std::string& s, std::size_t width, bool split_words = false) {
  if (s.size() <= width) return {s};
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find(' ', pos);
    if (end == std::string::npos) end = s.size();
    std::string word = s.substr(pos, end - pos);
    pos = end + 1;
    if (word.size() > width && split_words) {
      if (!line.empty()) lines.push_back(line), line.clear();
      for (; word.size() > width; word = word.substr(width)) lines.push_back(word.substr(0, width));
    }
    if (word.size() > width) word = shorten(word, width);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The longest space-free piece of `s` (a number stays whole; "1.00 MiB" may wrap before its unit).
std::size_t longest_word(const std::string& s) {
  std::size_t most = 0, start = 0;
  for (std::size_t end; (end = s.find(' ', start)) != std::string::npos; start = end + 1) most = std::max(most, end - start);
  return std::max(most, s.size() - start);
}

// Shrinks the widest column above its floor until the table fits in kTextWidth; false when every
// column is at its floor and the table is still wider.
bool shrink_to(std::vector<std::size_t>& width, const std::vector<std::size_t>& floor) {
  auto total = [&] {
    std::size_t sum = 1 + 2 * (width.empty() ? 0 : width.size() - 1);
    for (auto w : width) sum += w;
    return sum;
  };
  while (total() > kTextWidth) {
    std::size_t widest = width.size();
    for (std::size_t c = 0; c < width.size(); ++c)
      if (width[c] > floor[c] && (widest == width.size() || width[c] > width[widest])) widest = c;
    if (widest == width.size()) return false;
    width[widest] = std::max(floor[widest], width[widest] - std::min(width[widest], total() - kTextWidth));
  }
  return true;
}

// Shrinks the widest text column (never below 12) until the table fits. Numeric columns first keep
// their cells whole and wrap only their header between words ("write [s]" over two lines, never
// "writ" / "e"); only where that is not enough do they go down to their longest word, so a number
// is never cut.
void fit_widths(const Table& t, std::vector<std::size_t>& width) {
  constexpr std::size_t kMinColumn = 12;
  constexpr std::size_t kMaxNameFloor = 48;  // a path column keeps room for "..." + "/" + its file name
  constexpr std::size_t kWholeCell = 12;
  std::vector<std::size_t> floor(width.size(), kMinColumn), whole(width.size(), kMinColumn);
  for (std::size_t c = 0; c < width.size(); ++c) {
    if (c >= t.numeric.size() || !t.numeric[c]) {
      for (const auto& row : t.rows) {
        const auto slash = c < row.size() ? row[c].rfind('/') : std::string::npos;
        if (slash != std::string::npos && row[c].find(' ') == std::string::npos)
          floor[c] = std::max(floor[c], std::min(kMaxNameFloor, std::min(width[c], row[c].size() - slash + 3)));
      }
      whole[c] = floor[c];
      continue;
    }
    floor[c] = 1;
    whole[c] = c < t.header.size() ? longest_word(t.header[c]) : 1;
    for (const auto& row : t.rows) {
      if (c >= row.size()) continue;
      floor[c] = std::max(floor[c], longest_word(row[c]));
      // A number with its unit ("16.0 MiB", "2 shared") stays whole; longer text wraps as before.
      whole[c] = std::max(whole[c], row[c].size() <= kWholeCell ? row[c].size() : longest_word(row[c]));
    }
    whole[c] = std::min(whole[c], width[c]);
  }
  if (!shrink_to(width, whole)) shrink_to(width, floor);
}

std::string render_text(const Table& t) {
  std::vector<std::size_t> width(t.header.size(), 0);
  for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  fit_widths(t, width);
  std::string out;
  if (!t.title.empty()) {
    for (const auto& l : wrap(t.title, kTextWidth)) out += l + "\n";
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::vector<std::vector<std::string>> wrapped(width.size());
    std::size_t height = 1;
    for (std::size_t c = 0; c < width.size(); ++c) {
      wrapped[c] = wrap(c < cells.size() ? cells[c] : std::string(), width[c], header);
      height = std::max(height, wrapped[c].size());
    }
    for (std::size_t k = 0; k < height; ++k) {
      std::string l = " ";
      for (std::size_t c = 0; c < width.size(); ++c) {
        const std::string s = k < wrapped[c].size() ? wrapped[c][k] : std::string();
        const bool right = c < t.numeric.size() && t.numeric[c];
        const std::size_t pad = width[c] - std::min(width[c], s.size());
        if (c) l += "  ";
        if (right) l.append(pad, ' ');
        l += s;
        // The last column is not padded on the right: no trailing blanks.
        if (!right && c + 1 < width.size()) l.append(pad, ' ');
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      out += l + "\n";
    }
  };
  line(t.header, true);
  std::size_t total = 0;
  for (auto w : width) total += w;
  out += " " + std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
  for (const auto& row : t.rows) line(row, false);
  return out + "\n";
}

std::string render_csv(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += "# " + t.title + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) out += ',';
      out += csv_cell(cells[c]);
    }
    out += '\n';
  };
  line(t.header);
  for (const auto& row : t.rows) line(row);
  return out + "\n";
}

std::string render_md(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += "### " + t.title + "\n\n";
  auto line = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (const auto& c : cells) out += " " + md_cell(c) + " |";
    out += "\n";
  };
  line(t.header);
  out += "|";
  for (std::size_t c = 0; c < t.header.size(); ++c)
    out += (c < t.numeric.size() && t.numeric[c]) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) line(row);
  return out + "\n";
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "table" || name == "text") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  throw InputError("--format", "unknown format '" + name + "' (expected table, csv, md, json or html)");
}

namespace {

bool is_control(char c) { return (static_cast<unsigned char>(c) < 0x20) || c == 0x7f; }

bool has_control(const Table& t) {
  auto row_has = [](const std::vector<std::string>& row) {
    return std::any_of(row.begin(), row.end(),
                       [](const std::string& s) { return std::any_of(s.begin(), s.end(), is_control); });
  };
  return row_has(t.header) || std::any_of(t.rows.begin(), t.rows.end(), row_has);
}

// Strings in a record (host names, the command) come from files anyone may have edited: a
// control character would break the table or drive the terminal, so it is shown as '?'.
Table printable(Table t) {
  auto fix_row = [](std::vector<std::string>& row) {
    for (auto& s : row) std::replace_if(s.begin(), s.end(), is_control, '?');
  };
  fix_row(t.header);
  for (auto& row : t.rows) fix_row(row);
  return t;
}

}  // namespace

std::string render(const Table& table, Format format) {
  if (has_control(table)) return render(printable(table), format);
  switch (format) {
    case Format::kCsv: return render_csv(table);
    case Format::kMarkdown: return render_md(table);
    case Format::kTable: break;
  }
  return render_text(table);
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string wrap_text(const std::string& text, std::size_t width) { return join(wrap(text, width), "\n"); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace hpcsens::report
