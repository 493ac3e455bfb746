#include "mpi/appfile.h"

#include <algorithm>

#include "mpi/launcher_args.h"

namespace hpcsens::mpi {
namespace {

// What mpirun reads of a line: the words before any '#', split on blanks.
std::vector<std::string> words_of(std::string_view line) {
  const auto hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

// Blank or comment: nothing but blanks, tabs and a carriage return before any '#'.
bool starts_no_context(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

}  // namespace

std::size_t appfile_argument(const std::vector<std::string>& argv) {
  // A program's own "--app FILE" (after its name) is its argument, not mpirun's.
  const std::size_t end = std::min(program_index(LauncherKind::kOpenMpi, argv), argv.size());
  for (std::size_t i = 1; i < end; i += 1 + static_cast<std::size_t>(option_values(LauncherKind::kOpenMpi, argv[i])))
    if ((argv[i] == "--app" || argv[i] == "-app") && i + 1 < argv.size()) return i + 1;
  return 0;
}

bool parse_appfile(std::string_view text, Appfile* out, int* line, std::string* why) {
  *out = Appfile{};
  *line = 0;
  if (text.find('\0') != std::string_view::npos) {
    std::size_t nul = text.find('\0');
    *line = 1 + int(std::count(text.begin(), text.begin() + long(nul), '\n'));
    *why = "contains a NUL byte (not a text file?)";
    return false;
  }
  out->final_newline = text.empty() || text.back() == '\n';
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    out->lines.emplace_back(l);
    const int no = int(out->lines.size());
    if (l.size() > kMaxAppfileLine) {
      *line = no;
      *why = "line longer than " + std::to_string(kMaxAppfileLine) + " bytes";
      return false;
    }
    if (!starts_no_context(l)) out->contexts.push_back({no, words_of(l)});
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (out->contexts.empty()) {
    *why = "names no app context (every line is blank or a comment)";
    return false;
  }
  return true;
}

bool inline_in_appfile(std::string_view value) {
  return value.find_first_of(" \t\r\n#") == std::string_view::npos;
}

std::string rewrite_appfile(const Appfile& file, const std::vector<EnvVar>& vars) {
  std::string prefix;
  for (const auto& v : vars) prefix += "-x " + (v.name == "LD_PRELOAD" ? v.name + "=" + v.value : v.name) + " ";
  std::string out;
  std::size_t next = 0;  // index into contexts
  for (std::size_t i = 0; i < file.lines.size(); ++i) {
    if (next < file.contexts.size() && file.contexts[next].line == int(i + 1)) {
      out += prefix;
      ++next;
    }
    out += file.lines[i];
    if (i + 1 < file.lines.size() || file.final_newline) out += '\n';
  }
  return out;
}

int appfile_line_over_limit(std::string_view text) {
  int line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (end - start > kOpenMpiAppfileLine) return line;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
    ++line;
  }
  return 0;
}

}  // namespace hpcsens::mpi
