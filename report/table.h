#pragma once
// A plain table (title, header, rows of text) and its three renderings. Everything the report
// prints goes through here so text, CSV and Markdown always carry the same cells.
#include <cstddef>
#include <string>
#include <vector>

namespace hpcsens::report {

enum class Format { kTable, kCsv, kMarkdown };

// "table" | "csv" | "md"; anything else throws InputError naming the option.
Format parse_format(const std::string& name);

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Columns whose text is right-aligned in the text rendering (numbers).
  std::vector<bool> numeric;
};

// Text tables fit a terminal this wide: the widest text columns wrap at spaces, and a single
// word longer than its column is shortened with "..." (the full value is in JSON and CSV): a path
// from the left, so its file name stays visible ("...run/out/result.dat").
inline constexpr std::size_t kTextWidth = 120;

// Text: title line, aligned columns. CSV: "# title" line, header, RFC 4180 quoting. Markdown:
// "### title" and a pipe table with escaped pipes. Each rendering ends with a blank line.
std::string render(const Table& table, Format format);

// `text` wrapped at spaces into lines of at most `width` (a longer word is shortened), joined
// by newlines, without a trailing one.
std::string wrap_text(const std::string& text, std::size_t width = kTextWidth);

// One CSV cell, quoted (RFC 4180) when it holds a comma, quote or line break.
std::string csv_cell(const std::string& s);

// parts joined with sep.
std::string join(const std::vector<std::string>& parts, const std::string& sep);

// Cell text for numbers, fixed decimals ("nan" never appears: non-finite values print "-").
std::string fixed(double value, int decimals);

}  // namespace hpcsens::report
