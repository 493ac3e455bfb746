# Spack recipe for hpcsens. UNTESTED against Spack itself: the project's CI only checks that
# this file is valid Python with the expected class (tests/deploy); try it with
#   spack repo create myrepo && cp package.py myrepo/packages/hpcsens/ && spack install hpcsens
# and report what breaks.
from spack.package import *  # noqa: F401,F403  (Spack's recipe API)


class Hpcsens(CMakePackage):
    """MPI performance sensitivity: an LD_PRELOAD PMPI profiler (per-rank MPI/I/O/compute time,
    PAPI counters, Top-Down), frequency sweeps with guaranteed restore, and McCalpin's
    sensitivity model fitted with Ceres and bounded with GLPK."""

    homepage = "https://example.invalid/hpcsens"
    git = "https://example.invalid/hpcsens.git"
    maintainers("hpcsens")

    version("main", branch="main")

    variant("tests", default=False, description="Build the GoogleTest suite and benchmarks")

    depends_on("cmake@3.20:", type="build")
    depends_on("ninja", type="build")
    depends_on("python@3:", type="build")  # wrapper generator
    depends_on("mpi")
    depends_on("papi")
    depends_on("libpfm4")
    depends_on("ceres-solver")
    depends_on("glpk")
    depends_on("nlohmann-json")
    depends_on("cli11")
    depends_on("yaml-cpp")
    depends_on("fmt")
    depends_on("simdjson")
    depends_on("googletest", when="+tests", type="build")
    depends_on("benchmark", when="+tests", type="build")

    generator("ninja")

    def cmake_args(self):
        return [
            self.define_from_variant("HPCSENS_BUILD_TESTS", "tests"),
            self.define_from_variant("HPCSENS_BUILD_BENCH", "tests"),
        ]

    def setup_run_environment(self, env):
        env.set("HPCSENS_PRELOAD", join_path(self.prefix.lib, "libhpcsens_preload.so"))
