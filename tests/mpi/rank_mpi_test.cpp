// Which preload `hpcsens run` injects: the MPI the ranks load, from the launcher or from the
// DT_NEEDED entries of a bare executable.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "mpi/elf_needed.h"
#include "mpi/rank_mpi.h"

namespace hpcsens::mpi {
namespace {

TEST(RankMpi, FromNeededLibraries) {
  EXPECT_EQ(rank_mpi_from_needed({"libmpich.so.12", "libc.so.6"}), RankMpi::kMpich);
  EXPECT_EQ(rank_mpi_from_needed({"libmpichfort.so.12", "libgfortran.so.5"}), RankMpi::kMpich);
  EXPECT_EQ(rank_mpi_from_needed({"libmpi.so.12"}), RankMpi::kMpich);  // MPICH ABI (Intel MPI)
  EXPECT_EQ(rank_mpi_from_needed({"libmpi.so.40", "libc.so.6"}), RankMpi::kOpenMpi);
  EXPECT_EQ(rank_mpi_from_needed({"libmpi_mpifh.so.40"}), RankMpi::kOpenMpi);
  EXPECT_EQ(rank_mpi_from_needed({}), RankMpi::kOpenMpi);
}

TEST(RankMpi, LauncherDecidesUnlessBare) {
  EXPECT_EQ(rank_mpi_for(LauncherKind::kMpichHydra, {}), RankMpi::kMpich);
  EXPECT_EQ(rank_mpi_for(LauncherKind::kOpenMpi, {"libmpich.so.12"}), RankMpi::kOpenMpi);
  EXPECT_EQ(rank_mpi_for(LauncherKind::kSingleton, {"libmpich.so.12"}), RankMpi::kMpich);
  EXPECT_EQ(rank_mpi_for(LauncherKind::kSingleton, {"libmpi.so.40"}), RankMpi::kOpenMpi);
  EXPECT_EQ(preload_file_name(RankMpi::kMpich), "libhpcsens_preload_mpich.so");
  EXPECT_EQ(preload_file_name(RankMpi::kOpenMpi), "libhpcsens_preload.so");
}

TEST(RankMpi, FindExecutableSearchesPath) {
  EXPECT_EQ(find_executable("./prog", "/usr/bin"), "./prog");
  EXPECT_EQ(find_executable("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(find_executable("no-such-program-hpcsens", "/bin:/usr/bin"), "");
}

TEST(ElfNeeded, ReadsDynamicSectionOfARealBinary) {
  // /bin/sh is dynamically linked against libc on Debian.
  const auto needed = elf_needed_libraries_of_file("/bin/sh");
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end());
}

TEST(ElfNeeded, NotElfOrTruncatedGivesNothing) {
  EXPECT_TRUE(elf_needed_libraries("#!/bin/sh\necho hi\n").empty());
  EXPECT_TRUE(elf_needed_libraries("").empty());
  EXPECT_TRUE(elf_needed_libraries("\x7f" "ELF\x02\x01").empty());
  EXPECT_TRUE(elf_needed_libraries_of_file("/nonexistent/hpcsens").empty());
}

TEST(ElfNeeded, TruncatedImageStaysInsideTheBuffer) {
  std::ifstream in("/bin/sh", std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(image.size(), 4096u);
  EXPECT_FALSE(elf_needed_libraries(image).empty());
  for (std::size_t n : {std::size_t{16}, std::size_t{64}, std::size_t{700}, std::size_t{4096}})
    EXPECT_LE(elf_needed_libraries(std::string_view(image).substr(0, n)).size(), 4u) << n;
}

TEST(RankMpi, LinksOpenMpiOnlyForOpenMpisLibmpi) {
  EXPECT_TRUE(links_open_mpi({"libc.so.6", "libmpi.so.40"}));
  EXPECT_FALSE(links_open_mpi({"libmpi.so.12"}));  // the MPICH ABI (Intel MPI)
  EXPECT_FALSE(links_open_mpi({"libmpich.so.12", "libc.so.6"}));
  EXPECT_FALSE(links_open_mpi({}));
}

TEST(RankMpi, HydraJudgesTheProgramByItsElf) {
  // ompi_info is a real Open MPI executable (links libmpi.so.40); an Open MPI program started by
  // Hydra still loads Open MPI, so it must get the Open MPI preload.
  ASSERT_TRUE(links_open_mpi(elf_needed_libraries_of_file("/usr/bin/ompi_info")));
  EXPECT_EQ(detect_rank_mpi(LauncherKind::kMpichHydra,
                            {"mpiexec.hydra", "-n", "2", "-ppn", "1", "/usr/bin/ompi_info", "-a"}),
            RankMpi::kOpenMpi);
  // No MPI of its own, or no program found: Hydra's own MPICH.
  EXPECT_EQ(detect_rank_mpi(LauncherKind::kMpichHydra, {"mpiexec.hydra", "-n", "2", "/bin/sh"}),
            RankMpi::kMpich);
  EXPECT_EQ(detect_rank_mpi(LauncherKind::kMpichHydra, {"mpiexec.hydra", "-n", "2", "./no-such-prog"}),
            RankMpi::kMpich);
}

}  // namespace
}  // namespace hpcsens::mpi
