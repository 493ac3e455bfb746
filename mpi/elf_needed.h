#pragma once
// The shared libraries an ELF executable names directly (its DT_NEEDED entries), used to tell
// which MPI a bare executable will load. Reading the file is the only side effect; the parsing is
// a pure function over the file's bytes.
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::mpi {

// DT_NEEDED names of a 64-bit little-endian ELF image; empty if `image` is not one (a script, a
// static or truncated file).
std::vector<std::string> elf_needed_libraries(std::string_view image);

// The same for a file; empty if it cannot be read.
std::vector<std::string> elf_needed_libraries_of_file(const std::string& path);

}  // namespace hpcsens::mpi
