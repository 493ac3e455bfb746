#include "report/table.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::report {
namespace {

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string render_text(const Table& t) {
  std::vector<std::size_t> width(t.header.size(), 0);
  for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  std::string out;
  if (!t.title.empty()) out += t.title + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l = " ";
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& s = c < cells.size() ? cells[c] : std::string();
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
  };
  line(t.header);
  std::size_t total = 0;
  for (auto w : width) total += w;
  out += " " + std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
  for (const auto& row : t.rows) line(row);
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
  throw InputError("--format", "unknown format '" + name + "' (expected table, csv or md)");
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

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace hpcsens::report
