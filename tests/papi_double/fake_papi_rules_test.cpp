// The PAPI TEST DOUBLE (fake_papi.c) itself: it must answer PAPI's rules with PAPI 7.0's error
// codes (the ones the real libpapi gave on this machine where they do not depend on a PMU), log
// each broken rule as MISUSE, and read exactly the script's values. This binary links the double
// in place of libpapi; nothing here is a measurement.
#include <papi.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace {

class PapiDoubleRules : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/hpcsens-papi-double-" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0700);
    write("script",
          "# test double script\ncounters 2\nevent perf::TASK-CLOCK 1000 10\nevent PAPI_TOT_CYC 5000 -7\n"
          "event PAPI_TOT_INS 9 1\nrefuse perf::CONTEXT-SWITCHES:k=1 PAPI_EPERM\nrefuse_on_rank 3 PAPI_TOT_INS PAPI_ENOSUPP\nevent PAPI_L1_DCM 1 0\n");
    ::setenv("HPCSENS_PAPI_DOUBLE_SCRIPT", (dir_ + "/script").c_str(), 1);
    ::setenv("HPCSENS_PAPI_DOUBLE_LOG", (dir_ + "/log").c_str(), 1);
    ::setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  }
  void TearDown() override {
    if (PAPI_is_initialized()) PAPI_shutdown();
    std::system(("rm -rf " + dir_).c_str());
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  std::string log() const {
    std::ifstream in(dir_ + "/log");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  int misuses() const {
    const std::string l = log();
    int n = 0;
    for (auto p = l.find("MISUSE"); p != std::string::npos; p = l.find("MISUSE", p + 1)) ++n;
    return n;
  }
  int new_set() {
    int es = PAPI_NULL;
    EXPECT_EQ(PAPI_create_eventset(&es), PAPI_OK);
    EXPECT_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
    return es;
  }
  std::string dir_;
};

TEST_F(PapiDoubleRules, InitMustComeFirstWithTheCurrentVersion) {
  int es = PAPI_NULL;
  EXPECT_EQ(PAPI_create_eventset(&es), PAPI_ENOINIT);
  EXPECT_EQ(PAPI_strerror(PAPI_ENOEVNT), nullptr) << "PAPI 7.0 has no error table before init";
  EXPECT_EQ(PAPI_library_init(PAPI_VER_CURRENT + 1), PAPI_EINVAL);
  EXPECT_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
  EXPECT_EQ(PAPI_disable_component_by_name("cuda"), PAPI_ENOCMP);  // before init: allowed
  EXPECT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  EXPECT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  EXPECT_EQ(PAPI_disable_component_by_name("cuda"), PAPI_ENOINIT);  // after init: refused
  EXPECT_STREQ(PAPI_strerror(PAPI_ENOEVNT), "Event does not exist");
  EXPECT_EQ(PAPI_get_component_index("perf_event"), 0);
  EXPECT_EQ(PAPI_get_component_index("cuda"), PAPI_ENOCMP);
  ASSERT_NE(PAPI_get_component_info(0), nullptr);
  EXPECT_EQ(PAPI_get_component_info(0)->disabled, 0);
  EXPECT_NE(std::string(PAPI_get_component_info(0)->description).find("test double"), std::string::npos);
  EXPECT_EQ(misuses(), 3) << log();  // create before init, bad version, disable after init
}

TEST_F(PapiDoubleRules, EventSetLifecycleRules) {
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  int bad = 5;
  EXPECT_EQ(PAPI_create_eventset(&bad), PAPI_EINVAL);
  int es = PAPI_NULL;
  ASSERT_EQ(PAPI_create_eventset(&es), PAPI_OK);
  EXPECT_EQ(PAPI_attach(es, static_cast<unsigned long>(::getpid())), PAPI_ENOCMP);  // bind first
  EXPECT_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
  EXPECT_EQ(PAPI_assign_eventset_component(es, 0), PAPI_EINVAL);
  EXPECT_EQ(PAPI_attach(es, 999999999ul), PAPI_ESYS);  // no such thread
  EXPECT_EQ(PAPI_start(es), PAPI_EINVAL);              // no events
  long long v[4] = {};
  EXPECT_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);
  EXPECT_EQ(PAPI_add_named_event(es, "NO_SUCH_EVENT"), PAPI_ENOEVNT);
  EXPECT_EQ(PAPI_add_named_event(es, "perf::CONTEXT-SWITCHES:k=1"), PAPI_EPERM);
  EXPECT_EQ(PAPI_add_named_event(es, "PAPI_TOT_INS"), PAPI_ENOSUPP);  // refused on rank 3, ours
  EXPECT_EQ(PAPI_add_named_event(es, "perf::TASK-CLOCK"), PAPI_OK);
  EXPECT_EQ(PAPI_add_named_event(es, "perf::TASK-CLOCK"), PAPI_ECNFLCT);  // twice
  EXPECT_EQ(PAPI_add_named_event(es, "PAPI_TOT_CYC"), PAPI_OK);
  EXPECT_EQ(PAPI_add_named_event(es, "PAPI_L1_DCM"), PAPI_ECNFLCT);  // counters 2
  EXPECT_EQ(PAPI_start(es), PAPI_OK);
  EXPECT_EQ(PAPI_start(es), PAPI_EISRUN);
  EXPECT_EQ(PAPI_add_named_event(es, "PAPI_TOT_INS"), PAPI_EISRUN);
  EXPECT_EQ(PAPI_cleanup_eventset(es), PAPI_EISRUN);
  EXPECT_EQ(PAPI_destroy_eventset(&es), PAPI_EISRUN);
  ASSERT_EQ(PAPI_stop(es, v), PAPI_OK);
  EXPECT_EQ(v[0], 1000 + 10 * 3);  // BASE + PER_RANK * rank, rank 3 from the environment
  EXPECT_EQ(v[1], 5000 - 7 * 3);
  EXPECT_EQ(PAPI_destroy_eventset(&es), PAPI_EINVAL);  // not empty
  EXPECT_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
  EXPECT_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
  EXPECT_EQ(es, PAPI_NULL);
  EXPECT_EQ(PAPI_start(es), PAPI_ENOEVST);
  EXPECT_EQ(misuses(), 11) << log();
}

TEST_F(PapiDoubleRules, AttachedSetsReadTheCountedThreadsRankAndOneSetCountsAThreadAtATime) {
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  // A child whose environment names rank 2 stands in for a rank.
  const pid_t child = ::fork();
  if (child == 0) {
    char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    char* envp[] = {const_cast<char*>("OMPI_COMM_WORLD_RANK=2"), nullptr};
    ::execve("/bin/sleep", argv, envp);
    ::_exit(127);
  }
  // Wait for the exec (a state, not a time): its environment then names the rank.
  for (int i = 0; i < 100000; ++i) {
    std::ifstream env("/proc/" + std::to_string(child) + "/environ");
    if (std::string((std::istreambuf_iterator<char>(env)), {}).find("OMPI_COMM_WORLD_RANK=2") != std::string::npos) break;
    ::usleep(1000);
  }
  const int a = new_set(), b = new_set();
  ASSERT_EQ(PAPI_attach(a, static_cast<unsigned long>(child)), PAPI_OK);
  ASSERT_EQ(PAPI_attach(b, static_cast<unsigned long>(child)), PAPI_OK);
  EXPECT_EQ(PAPI_attach(a, static_cast<unsigned long>(child)), PAPI_EINVAL);
  ASSERT_EQ(PAPI_add_named_event(a, "PAPI_TOT_INS"), PAPI_OK);
  ASSERT_EQ(PAPI_add_named_event(b, "PAPI_TOT_INS"), PAPI_OK);
  ASSERT_EQ(PAPI_start(a), PAPI_OK);
  EXPECT_EQ(PAPI_start(b), PAPI_EISRUN);  // the same thread is already counted
  long long v = 0;
  ASSERT_EQ(PAPI_stop(a, &v), PAPI_OK);
  EXPECT_EQ(v, 9 + 1 * 2);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST_F(PapiDoubleRules, MultiplexingLiftsTheCounterLimitAndScriptedFailures) {
  write("script", "counters 1\nevent A 1 0\nevent B 2 0\nstop_error PAPI_ESYS\ndisabled no PMU in this double\n");
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  EXPECT_NE(PAPI_get_component_info(0)->disabled, 0);
  EXPECT_STREQ(PAPI_get_component_info(0)->disabled_reason, "no PMU in this double");
  PAPI_shutdown();
  write("script", "counters 1\nevent A 1 0\nevent B 2 0\nstop_error PAPI_ESYS\n");
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  const int es = new_set();
  EXPECT_EQ(PAPI_set_multiplex(es), PAPI_EINVAL);  // before PAPI_multiplex_init
  ASSERT_EQ(PAPI_multiplex_init(), PAPI_OK);
  ASSERT_EQ(PAPI_set_multiplex(es), PAPI_OK);
  EXPECT_EQ(PAPI_add_named_event(es, "A"), PAPI_OK);
  EXPECT_EQ(PAPI_add_named_event(es, "B"), PAPI_OK);  // beyond `counters 1`: multiplexed
  ASSERT_EQ(PAPI_start(es), PAPI_OK);
  long long v[2] = {};
  EXPECT_EQ(PAPI_stop(es, v), PAPI_ESYS);
  EXPECT_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);  // a failed stop has stopped
  PAPI_shutdown();
  write("script", "event A 1 0\nstart_refuse A PAPI_ECNFLCT\nmultiplex_error PAPI_ENOSUPP\n");
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  ASSERT_EQ(PAPI_multiplex_init(), PAPI_OK);
  EXPECT_EQ(PAPI_set_multiplex(new_set()), PAPI_ENOSUPP);
  const int with_a = new_set();
  EXPECT_EQ(PAPI_add_named_event(with_a, "A"), PAPI_OK);  // adding works,
  EXPECT_EQ(PAPI_start(with_a), PAPI_ECNFLCT);             // starting does not
  EXPECT_EQ(PAPI_stop(with_a, v), PAPI_ENOTRUN);
}

TEST_F(PapiDoubleRules, ABadScriptNamesItsLineAndRefusesInit) {
  write("script", "counters 2\nevent X 1\n");
  EXPECT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_ESYS);
  EXPECT_NE(log().find("/script:2: cannot read 'event'"), std::string::npos) << log();
  EXPECT_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
}

}  // namespace
