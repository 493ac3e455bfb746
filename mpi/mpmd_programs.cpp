#include "mpi/mpmd_programs.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "mpi/elf_needed.h"

namespace hpcsens::mpi {

std::vector<std::vector<std::string>> app_contexts(const std::vector<std::string>& argv) {
  std::vector<std::vector<std::string>> out(1);
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == ":") out.emplace_back();
    else out.back().push_back(argv[i]);
  }
  return out;
}

std::string context_program(const std::vector<std::string>& words, const std::string& path_env) {
  for (const auto& w : words) {
    if (w.empty() || w[0] == '-') continue;
    const std::string exe = find_executable(w, path_env);
    std::error_code ec;
    if (!exe.empty() && std::filesystem::is_regular_file(exe, ec) && ::access(exe.c_str(), X_OK) == 0) return exe;
  }
  return {};
}

std::optional<RankMpi> linked_mpi(const std::string& program) {
  if (program.empty()) return std::nullopt;
  const auto needed = elf_needed_libraries_of_file(program);
  if (links_open_mpi(needed)) return RankMpi::kOpenMpi;
  if (rank_mpi_from_needed(needed) == RankMpi::kMpich) return RankMpi::kMpich;
  return std::nullopt;
}

std::string mixed_mpi_problem(const std::vector<ProgramMpi>& programs) {
  const ProgramMpi* first_of[2] = {nullptr, nullptr};
  for (const auto& p : programs) {
    auto& slot = first_of[p.mpi == RankMpi::kMpich ? 1 : 0];
    if (slot == nullptr) slot = &p;
  }
  if (first_of[0] == nullptr || first_of[1] == nullptr) return {};
  return "the app contexts mix programs built against different MPIs (" + first_of[0]->program + ": " +
         std::string(rank_mpi_name(RankMpi::kOpenMpi)) + ", " + first_of[1]->program + ": " +
         std::string(rank_mpi_name(RankMpi::kMpich)) + ")";
}

std::vector<ProgramMpi> programs_mpi(const std::vector<std::vector<std::string>>& contexts) {
  const char* path = std::getenv("PATH");
  const std::string path_env = path ? path : "/usr/bin:/bin";
  std::vector<ProgramMpi> out;
  for (const auto& words : contexts) {
    const std::string program = context_program(words, path_env);
    if (const auto mpi = linked_mpi(program)) out.push_back({program, *mpi});
  }
  return out;
}

}  // namespace hpcsens::mpi
