#pragma once
// BAR1 total/free per GPU through NVML, loaded with dlopen (nvml.h is not a build dependency).
// One nvmlInit/nvmlShutdown covers every GPU asked about: the init alone costs ~50 ms of CPU on
// an H200 host.

#include <cstdint>
#include <string>
#include <vector>

#include "agents/node-agent/probe/facts.h"

namespace rdmastack::agent {

struct NvmlBar1 {
  std::string bdf;  // sysfs form, 0000:1a:00.0
  int64_t total = 0;
  int64_t free = 0;
};

// GPUs NVML does not know are left out; a missing library or a failed init becomes an issue.
std::vector<NvmlBar1> QueryNvmlBar1(const std::vector<std::string>& bdfs,
                                    std::vector<ProbeIssue>* issues);

// The results as recorded-probe lines ("nvml <bdf> bar1 <total> <free>", device_prober.h).
std::string RecordedNvmlLines(const std::vector<NvmlBar1>& results);

}  // namespace rdmastack::agent
