// PAPI 7.0's perf_event component checks PAPI_attach (and PAPI_set_multiplex) by opening
// PERF_COUNT_HW_INSTRUCTIONS on the target thread. Without a hardware PMU (virtual machines)
// that event does not exist (ENOENT), so PAPI refuses to attach even where the software events
// it would count are allowed. PAPI makes the call through syscall(2); this agent-only definition
// (the executable's symbol comes first for libpapi) answers exactly that probe, when the
// hardware event does not exist, with the same permission check on a software event (task-clock)
// of the same thread: ptrace access and perf_event_paranoid are judged by the kernel as before.
// Every event PAPI actually counts is opened by PAPI itself, unchanged.
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

namespace {

using SyscallFn = long (*)(long, ...);

SyscallFn real_syscall() {
  static SyscallFn fn = reinterpret_cast<SyscallFn>(dlsym(RTLD_NEXT, "syscall"));
  return fn;
}

// PAPI's check_permissions(): a zeroed attr (size 0) with only config and read format set,
// enabled at once, on a given thread (pid > 0), in no group, no flags. Every event PAPI counts
// is opened differently: a group leader disabled (enabled later by ioctl), a member with its
// leader's descriptor, so none of them can be taken for the probe.
bool is_attach_probe(const perf_event_attr* attr, long pid, long group_fd, long flags) {
  return attr != nullptr && attr->size == 0 && attr->type == PERF_TYPE_HARDWARE &&
         attr->config == PERF_COUNT_HW_INSTRUCTIONS && attr->disabled == 0 && pid > 0 &&
         group_fd == -1 && flags == 0;
}

}  // namespace

extern "C" long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& v : a) v = va_arg(ap, long);
  va_end(ap);
  SyscallFn real = real_syscall();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  long rc = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (number != SYS_perf_event_open || rc >= 0 || errno != ENOENT) return rc;
  const auto* attr = reinterpret_cast<const perf_event_attr*>(a[0]);
  // pid and group_fd are C ints passed in full registers: only their low 32 bits are defined.
  if (!is_attach_probe(attr, static_cast<int>(a[1]), static_cast<int>(a[3]), a[4])) return rc;
  perf_event_attr sw = *attr;
  sw.type = PERF_TYPE_SOFTWARE;
  sw.config = PERF_COUNT_SW_TASK_CLOCK;
  sw.read_format = 0;  // the permission is what is asked; a software event has no group to read
  return real(number, reinterpret_cast<long>(&sw), a[1], a[2], a[3], a[4]);
}
