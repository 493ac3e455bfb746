#pragma once
// Where the published data sets live: beside the repository, never in it (design.md, "Published
// data for validation"). HPCSENS_VALIDATION_DATA in the environment wins over the path CMake
// compiled in (-DHPCSENS_VALIDATION_DATA=DIR, default ../shared/validation-data from the source
// root). A test that needs a file calls REQUIRE_PUBLISHED(path): absent data skips with the path
// it looked at and how to provide it; present data is used as is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hpcsens::model::testing {

inline std::string validation_data_dir() {
  if (const char* e = std::getenv("HPCSENS_VALIDATION_DATA"); e && *e) return e;
  return HPCSENS_VALIDATION_DATA;
}

// A file of the published data: `folder` is project-published, gpu-and-mpi-sweeps or cpu-sweeps.
inline std::string published_file(const std::string& folder, const std::string& name) {
  return validation_data_dir() + "/" + folder + "/" + name;
}

#ifdef HPCSENS_FIXTURES
// A series the model tests read: the project's own synthetic ones (named synthetic_*) from
// tests/model/fixtures, the published ones from the shared folder's project-published/.
inline std::string fixture_path(const std::string& name) {
  if (name.rfind("synthetic_", 0) == 0) return std::string(HPCSENS_FIXTURES) + "/" + name;
  return published_file("project-published", name);
}
#endif

inline std::string missing_published_message(const std::string& path) {
  return "published data not found: " + path +
         " (it lives beside the repository in ../shared/validation-data; set HPCSENS_VALIDATION_DATA=DIR or "
         "configure with -DHPCSENS_VALIDATION_DATA=DIR)";
}

}  // namespace hpcsens::model::testing

// Skips the calling test, saying where it looked, only when the published file is absent.
#define REQUIRE_PUBLISHED(path)                                                                        \
  do {                                                                                                 \
    if (!std::filesystem::exists(path))                                                                \
      GTEST_SKIP() << ::hpcsens::model::testing::missing_published_message(path);                     \
  } while (0)
