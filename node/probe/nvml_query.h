#pragma once
// BAR1 total/free per GPU through NVML, loaded with dlopen (nvml.h is not a build dependency).
// One nvmlInit/nvmlShutdown covers every GPU asked about: the init alone costs ~50 ms of CPU on
// an H200 host.

#include <cstdint>
#include <string>
#include <vector>

#include "node/probe/facts.h"

namespace rdmastack::node {

struct NvmlBar1 {
  std::string bdf;  // sysfs form, 0000:1a:00.0
  int64_t total = 0;
  int64_t free = 0;
};

// GPUs NVML does not know are left out; a missing library or a failed init becomes an issue.
// The library is the host's: looked for below `root` first (nvml_library.h).
std::vector<NvmlBar1> QueryNvmlBar1(const std::vector<std::string>& bdfs, const std::string& root,
                                    std::vector<ProbeIssue>* issues);

// The results as recorded-probe lines ("nvml <bdf> bar1 <total> <free>", device_prober.h).
std::string RecordedNvmlLines(const std::vector<NvmlBar1>& results);

// The internal command `nvml-bar1 [--root DIR] BDF...` of rdmastack-agent and rdmastack-client,
// which the live prober runs in a child (device_prober.h): NvmlHelperArgs builds the words after
// the program, RunNvmlBar1Command runs them, printing recorded-probe lines to stdout and each
// issue's message to stderr. Exit status 0, or 2 for a malformed command line.
std::vector<std::string> NvmlHelperArgs(const std::string& root,
                                        const std::vector<std::string>& bdfs);
int RunNvmlBar1Command(const std::vector<std::string>& args);

}  // namespace rdmastack::node
