#pragma once
// A directory only the invoking user can write, for files hpcsens hands to another program by
// name (the rewritten appfile mpirun reads, the batch script sbatch reads). A file beside names
// other users can write could be swapped between our write and their read; here it cannot.
//
// Root's are made in /run/hpcsens/<uid>, another user's in $XDG_RUNTIME_DIR/hpcsens when that
// runtime directory is the user's own and private (each level reached with the checked walk,
// common/checked_path.h, the last created 0700 and checked to be ours with no access for group or
// others). Without one, each is made straight in /tmp as hpcsens-<uid>.<prefix>.<random>: no
// fixed name there that another user could take first. Each use gets a fresh directory.
#include <string>
#include <string_view>

#include "common/safe_file.h"

namespace hpcsens::safe_file {

// The base directory's path for this process (not created); "" when fresh directories are made
// in /tmp under unpredictable names.
std::string private_base_path();

// How a fresh directory's path looks, for messages: "<base>/<prefix>.RANDOM".
std::string private_dir_pattern(std::string_view prefix);

// Creates a fresh private directory (0700, see private_dir_pattern) and opens it; "" or why not.
std::string make_private_dir(std::string_view prefix, Dir* out);

// Removes the named files from `dir` and then the directory itself (best effort, never throws).
void remove_private_dir(Dir& dir, std::initializer_list<std::string_view> names);

// Why a directory with this owner and mode is not private to `euid` ("" when it is). Pure.
std::string private_dir_problem(uid_t owner, mode_t mode, uid_t euid);

}  // namespace hpcsens::safe_file
