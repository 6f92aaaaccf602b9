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

}  // namespace rdmastack::testing
