#pragma once
// A directory only the invoking user can write, for files hpcsens hands to another program by
// name (the rewritten appfile mpirun reads, the batch script sbatch reads). A file beside names
// other users can write could be swapped between our write and their read; here it cannot.
//
// The base is /run/hpcsens/<uid> for root, else $XDG_RUNTIME_DIR/hpcsens when that runtime
// directory is the user's own and private, else /tmp/hpcsens-<uid>. Each level is reached with
// the checked walk (common/checked_path.h); the last one is created 0700 and must be owned by us
// with no access for group or others. Each use gets a fresh subdirectory with a random name.
#include <string>
#include <string_view>

#include "common/safe_file.h"

namespace hpcsens::safe_file {

// The base directory's path for this process (not created).
std::string private_base_path();

// Creates a fresh private directory "<base>/<prefix>.<random>" (0700) and opens it; "" or why not.
std::string make_private_dir(std::string_view prefix, Dir* out);

// Removes the named files from `dir` and then the directory itself (best effort, never throws).
void remove_private_dir(Dir& dir, std::initializer_list<std::string_view> names);

// Why a directory with this owner and mode is not private to `euid` ("" when it is). Pure.
std::string private_dir_problem(uid_t owner, mode_t mode, uid_t euid);

}  // namespace hpcsens::safe_file
