#pragma once
// A process's CPU time and resident memory from /proc, for benchmarks that measure another
// process (the node runtime, the agent hub).

#include <sys/types.h>

namespace rdmastack::testing {

struct ProcStat {
  double cpu_s = 0;           // utime + stime
  double children_cpu_s = 0;  // of reaped children
  long rss_kib = 0;
  long hwm_kib = 0;
};

// Zeroes when the process does not exist.
ProcStat ReadProcStat(pid_t pid);

// Its threads and their context switches, summed over /proc/PID/task/* (the process's own
// status line counts only the main thread). Threads that already exited are not counted.
struct TaskSwitches {
  int threads = 0;
  long voluntary = 0;    // the thread blocked (a wait, a poll with nothing ready): wakeups
  long involuntary = 0;  // the scheduler took the core away
};
TaskSwitches ReadTaskSwitches(pid_t pid);

// The sockets the process holds open (its /proc/PID/fd entries that are sockets): what a server
// really keeps of its peers' connections, whatever the peers believe; -1 when it cannot be read.
int CountOpenSockets(pid_t pid);

}  // namespace rdmastack::testing
