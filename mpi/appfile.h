#pragma once
// Open MPI appfiles (`mpirun --app FILE`): one app context per line. mpirun applies command-line
// `-x VAR=value` to none of them, so the preload and its settings must go into every line. The
// lines are kept byte for byte; our options are put in front of each context line, so mpirun
// reads the user's part exactly as it would have. Pure: reading and writing files is run/'s job.
//
// Open MPI 4.1 reads a line as blank-separated words (no quoting: quotes are part of a word) and
// drops everything from a '#' on. A line that is blank or a comment starts no context.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mpi/launcher.h"

namespace hpcsens::mpi {

inline constexpr std::size_t kMaxAppfileBytes = 1u << 20;
inline constexpr std::size_t kMaxAppfileLine = 64u << 10;
// Open MPI reads appfile lines into a fixed 8 KiB buffer: a longer line makes mpirun abort (134).
// Measured with Debian 12's Open MPI 4.1.4: a line of 8184 bytes runs, 8185 aborts. The copy's
// lines are checked against it (appfile_line_over_limit).
inline constexpr std::size_t kOpenMpiAppfileLine = 8184;

struct AppContextLine {
  int line = 0;                     // 1-based
  std::vector<std::string> words;   // as mpirun splits it (comment dropped)
};

struct Appfile {
  std::vector<std::string> lines;        // the file's lines, without their '\n'
  std::vector<AppContextLine> contexts;  // the lines that start a context
  bool final_newline = true;
};

// Index in argv of the appfile's name (the word after `--app` / `-app` among mpirun's own options,
// before the program name: mpi/launcher_args.h), 0 when none.
std::size_t appfile_argument(const std::vector<std::string>& argv);

// Parses an appfile. On a problem returns false and sets *line (0: the whole file) and *why:
// a NUL byte, a line longer than kMaxAppfileLine, no context at all.
bool parse_appfile(std::string_view text, Appfile* out, int* line, std::string* why);

// Whether a value can stand inline in a line as `-x NAME=value`: no blank, tab, '#' or line end
// (mpirun would split or cut it). Other values are passed by name (`-x NAME`) from mpirun's
// own environment.
bool inline_in_appfile(std::string_view value);

// The appfile with `-x NAME` for every var in front of each context line (the values travel in
// mpirun's environment, so a line grows by a few bytes per setting whatever the values), except
// LD_PRELOAD, which mpirun must not load itself: `-x LD_PRELOAD=value` (inline_in_appfile values
// only; the caller checks).
std::string rewrite_appfile(const Appfile& file, const std::vector<EnvVar>& vars);

// The 1-based number of the first line of `text` longer than kOpenMpiAppfileLine bytes, 0 if none.
int appfile_line_over_limit(std::string_view text);

}  // namespace hpcsens::mpi
