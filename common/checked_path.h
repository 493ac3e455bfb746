#pragma once
// Resolving a directory path the way root must when other users share the machine: from a trusted
// start ("/" for an absolute path, the current directory for a relative one) one component at a
// time with openat(O_NOFOLLOW|O_DIRECTORY), checking every directory on the way (owner, mode), and
// creating missing ones ourselves. Checking only the last component is not enough: a parent owned
// by another user can be swapped for a symlink after the check, and every later use of the path by
// name (ours or another program's) then lands in that user's directory.
//
// Rules, for every directory reached (docs/deployment.md, "Output paths"):
//  - owned by the effective user or root, else refused;
//  - writable by group or others only with the sticky bit (/tmp): there nobody else can rename or
//    remove what we own, and what they created there is refused by the owner rule;
//  - a symlink as the last component is refused; one on the way is followed only when the link
//    itself is owned by us or root (it lies in a directory already checked, so only its owner
//    could change it), and its target is walked by the same rules;
//  - "..", when given, is walked and checked like any other component.
// Never throws (the preload uses it).
#include <sys/types.h>

#include <deque>
#include <string>
#include <string_view>

namespace hpcsens::safe_file {

// The components of `path` in order: empty ones and "." dropped, ".." kept (walked like a name).
std::deque<std::string> path_components(std::string_view path);

// An open descriptor (O_RDONLY|O_DIRECTORY|O_CLOEXEC) of the checked directory, or -1 with *why:
// one line naming the offending prefix of `path` and the cause. `create`: missing components are
// made (mode 0755) and then checked like existing ones. *untrusted (when given) tells a refusal
// (another user's directory or link, a shared directory, a symlink at the end) from a failure
// (missing, unreadable, read-only file system).
int open_checked_dir(const std::string& path, bool create, std::string* why, bool* untrusted = nullptr);

// Why code must not be loaded from `file` (a preload library, the counter agent), or "": its
// directory must pass open_checked_dir and, stricter than for output, be writable by nobody but
// its owner (no sticky exception), owned by root or us; the file must be a regular file owned by
// root or us and writable by nobody else. Another user's preload would run inside root's job.
std::string code_file_problem(const std::string& file);

// The rule for one directory or file holding code. Pure.
std::string code_owner_problem(uid_t owner, mode_t mode, uid_t euid);

// Random lowercase hex of `bytes` random bytes (getrandom; falls back on time and pid mixing if the
// kernel has none). For names another user must not guess in advance.
std::string random_hex(std::size_t bytes);

}  // namespace hpcsens::safe_file
