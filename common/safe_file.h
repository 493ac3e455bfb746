#pragma once
// Files hpcsens writes, made safe for a tool that runs as root beside other users.
//
// Every write goes through a directory descriptor that was reached component by component from
// "/" or the current directory, each component checked (common/checked_path.h); names inside it are created with
// O_EXCL|O_NOFOLLOW and moved into place with renameat, so a symlink planted by another
// user is never written through and a directory swapped after the check is not used.
//
// Functions return an empty string on success and a one-line reason naming the path and
// the cause (strerror) on failure; they never throw, so the preload can call them.
#include <sys/types.h>

#include <string>
#include <string_view>

namespace hpcsens::safe_file {

// An open, checked directory. Move-only; closes its descriptor.
class Dir {
 public:
  Dir() = default;
  // Takes ownership of an open directory descriptor (already checked by the caller).
  Dir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Dir(Dir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  Dir& operator=(Dir&& o) noexcept;
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  bool is_open() const { return fd_ >= 0; }
  // "<dir>/<name>" for messages.
  std::string child(std::string_view name) const;

 private:
  int fd_ = -1;
  std::string path_;
};

// Why a directory with this owner and mode must not be written into by this process,
// or "" when it may. Refused: owned by a user other than the effective user and root;
// writable by group or others without the sticky bit. Pure, for tests.
std::string dir_trust_problem(uid_t owner, mode_t mode, uid_t euid);

// Opens `path` as a directory (creating it and missing parents with mode 0755 when
// `create`), every component checked by open_checked_dir (common/checked_path.h): a symlink as
// the last component, an untrusted directory anywhere on the way and a symlink on the way owned
// by another user are refused.
std::string open_dir(const std::string& path, bool create, Dir* out);

// Writes `content` to dir/name atomically: a private temporary (O_EXCL|O_NOFOLLOW, mode
// `mode`), write, fsync, close (all checked), then renameat over `name`. On any failure
// the temporary is removed and `name` is untouched.
std::string write_atomic(const Dir& dir, std::string_view name, std::string_view content,
                         mode_t mode = 0644);

// The same in pieces, for content too large to hold in memory (a run record of many ranks):
// create() makes the private temporary, append() writes to it, commit() fsyncs, closes and
// renames it over `name`; a file never committed is removed (abandon() or the destructor).
// The Dir must outlive the AtomicFile.
class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() { abandon(); }
  std::string create(const Dir& dir, std::string_view name, mode_t mode = 0644);
  std::string append(std::string_view data);
  std::string commit();
  // As commit(), but to a fresh name "<stem>.<16 hex digits><suffix>" that did not exist (never
  // replacing anything: renameat2 RENAME_NOREPLACE, or link+unlink where the file system lacks
  // it). Names another user planted (a directory, a link) cannot take the file's place.
  // *written is the name used.
  std::string commit_unique(std::string_view stem, std::string_view suffix, std::string* written);
  void abandon() noexcept;

 private:
  const Dir* dir_ = nullptr;
  std::string name_, tmp_;
  int fd_ = -1;
};

// write_atomic's content under a fresh name (AtomicFile::commit_unique); *written is the name.
std::string write_unique(const Dir& dir, std::string_view stem, std::string_view suffix,
                         std::string_view content, std::string* written, mode_t mode = 0644);

// Convenience: open_dir(dirname(path), create_dir) + write_atomic(basename(path)).
std::string write_file_atomic(const std::string& path, std::string_view content,
                              bool create_dir = false, mode_t mode = 0644);

// Why a file of this type is not one hpcsens reads or writes ("is a FIFO (named pipe), not a
// regular file"), or "" for a regular file. Pure.
std::string file_type_problem(mode_t mode);

// Opens dir/name (`flags`: O_RDONLY, O_WRONLY or O_RDWR, maybe O_APPEND, O_CREAT with `mode`) in a
// directory another user may add to (a sticky shared one): never blocking (O_NONBLOCK, cleared
// once checked: a planted FIFO cannot hang us), never through a symlink (O_NOFOLLOW), and checked
// on the descriptor before any read or write: a regular file of this user with one link. Else
// the reason, naming the file and its type or owner. *fd_out (O_CLOEXEC) is the caller's to close.
std::string open_private(const Dir& dir, std::string_view name, int flags, mode_t mode, int* fd_out);

// open_private for appending, created 0644 when missing.
std::string open_append(const Dir& dir, std::string_view name, int* fd_out);

// Writes all of data to fd, retrying on EINTR and short writes. `what` names the file.
std::string write_all(int fd, std::string_view data, const std::string& what);

// Reads a user-given input file: it must be a regular file (after following symlinks,
// which is the user's choice for input) of at most max_bytes, opened without blocking (a FIFO is
// refused, never waited on). Throws InputError naming
// the path ("is not a regular file", "is larger than N bytes", strerror).
std::string read_input_file(const std::string& path, std::size_t max_bytes = 256u << 20);

// Reads a file hpcsens itself wrote into a checked directory (a partial rank record, a note):
// as read_input_file, but a symlink as the last component and a file owned by another user are
// refused too (in a sticky shared directory another user may plant either under our names).
std::string read_own_file(const std::string& path, std::size_t max_bytes);

// At most the first n bytes of a user-given input file, opened and checked as read_input_file
// does (non-blocking, a regular file on the descriptor before any read): a look at a file that
// must not hang on a FIFO. Throws InputError.
std::string read_input_head(const std::string& path, std::size_t n);

}  // namespace hpcsens::safe_file
