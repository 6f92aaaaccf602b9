#pragma once
// Command line of `kubectl rdmastack` (pure parsing, unit-tested). kubectl hands a plugin every
// word after its name, so global flags may come before or after the command, in kubectl's forms:
// `--flag value`, `--flag=value`, and `-n value`, `-nvalue`, `-o json`, `-ojson`.

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::plugin {

enum class Command { kStatus, kWhy, kUpgrade, kMustGather, kBench, kVersion, kHelp };
enum class OutputFormat { kTable, kJson };

struct Options {
  Command command = Command::kHelp;
  std::string argument;    // NODE for why, POOL for upgrade, PROFILE for bench
  std::string kubeconfig;  // --kubeconfig; "" = $KUBECONFIG, ~/.kube/config, in-cluster
  std::string context;     // --context; "" = current-context
  std::string namespace_;  // -n; "" = all namespaces (status, why) or the context's (upgrade)
  OutputFormat output = OutputFormat::kTable;
  // must-gather: -o DIR (default "."), -q, --operator-namespace NS.
  std::string output_dir = ".";
  bool quiet = false;
  std::string operator_namespace = "rdmastack-system";
  // bench: what `rdmastack-client bench` in the Job is told ("" = its default), checked there;
  // --pod-label KEY=VALUE adds labels to the Job's pod (a policy's, or the harness's
  // rdmastack.io/simulate=run).
  std::string bench_bucket, bench_node, bench_size, bench_streams, bench_objects, bench_timeout;
  std::map<std::string, std::string> pod_labels;
};

// `args` excludes the program name. Errors are usage errors (exit code 2).
StatusOr<Options> ParseOptions(const std::vector<std::string>& args);

inline constexpr const char* kUsage =
    "kubectl rdmastack: read-only views of rdmastack (GatewayPools, ClientProfiles, RdmaNodes).\n"
    "\n"
    "Usage:\n"
    "  kubectl rdmastack status [-n NS]         pools, profiles and nodes in one screen\n"
    "  kubectl rdmastack why NODE [-n NS]       why a node fails: checks with remedies, and the\n"
    "                                           pools and profiles that leave it out\n"
    "  kubectl rdmastack upgrade POOL [-n NS]   a pool's library upgrade, node by node\n"
    "  kubectl rdmastack must-gather [-n NS] [-o DIR] [-q] [--operator-namespace NS]\n"
    "                                           a support bundle (.tar.gz in DIR, default .):\n"
    "                                           objects, events, logs, versions; no secret\n"
    "                                           values\n"
    "  kubectl rdmastack bench PROFILE [-n NS] [--bucket B] [--node NODE] [--size 8Mi]\n"
    "         [--streams 1,2,4] [--objects-per-stream 4] [--timeout 10m] [--pod-label K=V]\n"
    "                                           PUT/GET throughput of the profile's pool from a\n"
    "                                           GPU node, as its applications see it: a Job in\n"
    "                                           NS with the profile's S3 user, checksums\n"
    "                                           verified, every object removed\n"
    "  kubectl rdmastack version\n"
    "  kubectl rdmastack help\n"
    "\n"
    "Flags:\n"
    "  --kubeconfig FILE      kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)\n"
    "  --context NAME         kubeconfig context (default: current-context)\n"
    "  -n, --namespace NS     status/why: only pools and profiles in NS (default: all);\n"
    "                         upgrade: the pool's namespace (default: the context's, else\n"
    "                         \"default\")\n"
    "  -A, --all-namespaces   status/why: every namespace (the default)\n"
    "  -o, --output FORMAT    table (default) or json; must-gather: the directory\n"
    "  --bucket, --node, --size, --streams, --objects-per-stream, --timeout, --pod-label\n"
    "                         bench only (docs/plugin.md \"bench\")\n"
    "  -q, --quiet            must-gather: no progress lines on stderr\n"
    "  --operator-namespace NS  must-gather: where the operator and agents run\n"
    "                         (default rdmastack-system)\n"
    "  -h, --help             this text\n"
    "\n"
    "Exit codes: 0 ok; 1 an API error, or `why` found something failing (docs/plugin.md);\n"
    "2 a usage error.\n";

}  // namespace rdmastack::plugin
