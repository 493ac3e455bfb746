// The node agent's socket and its clients without MPI: the real hpcsens-counter-agent hosted by
// one CounterClient and joined by another (two "ranks" in this process), the private directory
// and the peer check.
#include "preload/account/agent_socket.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>

#include "preload/account/counter_client.h"
#include "tests/common/papi_state.h"

namespace hpcsens::preload {
namespace {

pid_t own_tid() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

TEST(AgentSocket, LivesInAPrivateDirectoryAndIsRemovedWithIt) {
  AgentSocket s;
  ASSERT_EQ(listen_for_ranks(&s), "");
  struct stat dir {}, sock {};
  ASSERT_EQ(::stat(s.dir.path().c_str(), &dir), 0);
  EXPECT_EQ(dir.st_uid, ::geteuid());
  EXPECT_EQ(dir.st_mode & 0777, 0700u) << s.dir.path();
  ASSERT_EQ(::lstat(s.path.c_str(), &sock), 0);
  EXPECT_TRUE(S_ISSOCK(sock.st_mode));
  const std::string path = s.path, dir_path = s.dir.path();
  remove_agent_socket(s);
  EXPECT_NE(::lstat(path.c_str(), &sock), 0);
  EXPECT_NE(::stat(dir_path.c_str(), &dir), 0) << "directory removed";
}

TEST(AgentSocket, ASocketMadeByAnotherProcessIsRefused) {
  AgentSocket s;
  ASSERT_EQ(listen_for_ranks(&s), "");
  std::string error;
  // The socket is ours (this pid): a rank told that another pid made it must not trust it.
  EXPECT_EQ(connect_to_agent(s.path, ::getpid() + 1, &error), -1);
  EXPECT_NE(error.find("is not the node agent's socket"), std::string::npos) << error;
  const int fd = connect_to_agent(s.path, ::getpid(), &error);
  EXPECT_GE(fd, 0) << error;
  if (fd >= 0) ::close(fd);
  remove_agent_socket(s);
}

// Two ranks of one node: the host starts the agent, the other joins; each gets its own answer
// and the agent says it served both. The joiner's thread is another thread of this process (PAPI
// runs one event set per thread at a time).
TEST(NodeAgent, HostAndJoinerShareOneAgent) {
  const auto papi_off = test::papi_perf_event_disabled();
  std::promise<pid_t> tid;
  std::promise<void> done;
  std::thread other([&] {
    tid.set_value(own_tid());
    done.get_future().wait();
  });
  const pid_t other_tid = tid.get_future().get();
  AgentSocket s;
  ASSERT_EQ(listen_for_ranks(&s), "");
  CounterClient host, joiner;
  ASSERT_TRUE(host.host(HPCSENS_COUNTER_AGENT, "default", s.listener)) << host.status();
  host.prepare_counting("default", own_tid());
  ASSERT_TRUE(joiner.join(s.path, ::getpid(), "default")) << joiner.status();
  joiner.prepare_counting("default", other_tid);
  remove_agent_socket(s);
  EXPECT_EQ(joiner.agent_ranks(), 2);
  host.start();
  joiner.start();
  joiner.stop();
  host.stop();
  done.set_value();
  other.join();
  for (const CounterClient* c : {&host, &joiner}) {
    if (papi_off) {
      EXPECT_EQ(c->status().rfind("counters unavailable: " + test::papi_disabled_words(*papi_off), 0), 0u) << c->status();
      EXPECT_TRUE(c->values().empty());
    } else {
      EXPECT_EQ(c->status(), "ok");
      EXPECT_GT(c->values().at("perf::TASK-CLOCK"), 0);
    }
    EXPECT_GT(c->agent_private_kib(), 0);
  }
  host.release();  // both stopped: the agent exits and is reaped
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "no child left";
}

}  // namespace
}  // namespace hpcsens::preload
