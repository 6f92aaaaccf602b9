#pragma once
// Command-line options of `rdmastack-agent check` (pure parsing, unit-tested).

#include <string>
#include <vector>

#include "base/status.h"
#include "node/checks/check.h"

namespace rdmastack::agent {

enum class OutputFormat { kTable, kJson };

struct CheckOptions {
  std::string root = "/";
  std::string ips_file;
  std::string probes_file;  // recorded verbs/NVML results (fixtures)
  bool live_probes =
      false;  // use libibverbs/NVML even when --root is not "/" (the DaemonSet's /host)
  OutputFormat output = OutputFormat::kTable;
  node::Requirements requirements;
};

// args excludes the program name and the "check" word.
StatusOr<CheckOptions> ParseCheckOptions(const std::vector<std::string>& args);

inline constexpr const char* kCheckUsage =
    "usage: rdmastack-agent check [--root DIR] --role gateway|client\n"
    "         [--transport Auto|GPUDirect|HostMemory] [--memory-registration Auto|DMABuf|PeerMem]\n"
    "         [--max-transfer-size 192Mi] [--max-gpu-nic-distance PIX|PXB|PHB|SYS] [--gid-index "
    "N]\n"
    "         [--rdma-ip A.B.C.D] [--ips-file F] [--probes-file F] [--live-probes]\n"
    "         [--output table|json]\n";

}  // namespace rdmastack::agent
