#include "mpi/rank_mpi.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "mpi/elf_needed.h"
#include "mpi/mpmd_programs.h"

namespace hpcsens::mpi {

std::string_view rank_mpi_name(RankMpi mpi) {
  return mpi == RankMpi::kMpich ? "MPICH" : "Open MPI";
}

std::string_view preload_file_name(RankMpi mpi) {
  return mpi == RankMpi::kMpich ? "libhpcsens_preload_mpich.so" : "libhpcsens_preload.so";
}

RankMpi rank_mpi_from_needed(const std::vector<std::string>& needed) {
  for (const auto& lib : needed) {
    const std::string_view l = lib;
    if (l.starts_with("libmpich.so") || l.starts_with("libmpichfort.so") ||
        l.starts_with("libmpifort.so") || l == "libmpi.so.12")
      return RankMpi::kMpich;
  }
  return RankMpi::kOpenMpi;
}

RankMpi rank_mpi_for(LauncherKind kind, const std::vector<std::string>& executable_needed) {
  switch (kind) {
    case LauncherKind::kMpichHydra: return RankMpi::kMpich;
    case LauncherKind::kSingleton: return rank_mpi_from_needed(executable_needed);
    default: return RankMpi::kOpenMpi;
  }
}

std::string find_executable(const std::string& name, std::string_view path_env) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return name;
  while (true) {
    const auto colon = path_env.find(':');
    const std::string_view dir = path_env.substr(0, colon);
    std::string candidate(dir.empty() ? std::string_view(".") : dir);
    candidate.append("/").append(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return {};
    path_env.remove_prefix(colon + 1);
  }
}

bool links_open_mpi(const std::vector<std::string>& needed) {
  for (const auto& lib : needed)
    if (lib.starts_with("libmpi.so.") && lib != "libmpi.so.12") return true;
  return false;
}

RankMpi detect_rank_mpi(LauncherKind kind, const std::vector<std::string>& argv) {
  const char* path = std::getenv("PATH");
  if (kind == LauncherKind::kMpichHydra) {
    // An Open MPI program started by Hydra still loads Open MPI: judge by the first context's
    // program we can find (option values are not executable files).
    for (const auto& words : app_contexts(argv)) {
      const std::string exe = context_program(words, path ? path : "/usr/bin:/bin");
      if (!exe.empty()) return links_open_mpi(elf_needed_libraries_of_file(exe)) ? RankMpi::kOpenMpi : RankMpi::kMpich;
    }
    return RankMpi::kMpich;
  }
  if (kind != LauncherKind::kSingleton || argv.empty()) return rank_mpi_for(kind, {});
  const std::string exe = find_executable(argv[0], path ? path : "/usr/bin:/bin");
  return rank_mpi_for(kind, exe.empty() ? std::vector<std::string>{}
                                        : elf_needed_libraries_of_file(exe));
}

}  // namespace hpcsens::mpi
