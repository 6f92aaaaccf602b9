#pragma once
// `kubectl rdmastack bench`, the pure part: from a ClientProfile and the command line, the Job
// that runs `rdmastack-client bench` on one of the profile's GPU nodes, or why it cannot run.
// The Job's pod carries the profile's label, so the admission webhook gives it what an
// application of the profile gets (docs/api.md "Workloads"); the profile's S3 user keys come with
// it. The Job's image is the one the profile's client DaemonSet runs.

#include <string>

#include "base/status.h"
#include "cli/kubectl-rdmastack/options.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/resource.h"

namespace rdmastack::plugin {

// batch/v1 Jobs (not among the operator's kinds: only the plugin makes one).
const k8s::ResourceType& JobType();

inline constexpr char kBenchAppLabel[] = "rdmastack-bench";
inline constexpr char kBenchContainer[] = "bench";

struct BenchJob {
  k8s::JsonObject job;      // to create (metadata.generateName)
  std::string bucket;       // the profile's bucket it writes under a prefix of its own
  int timeout_seconds = 0;  // the Job's activeDeadlineSeconds; the plugin waits a little longer
};

// FailedPrecondition (what to do) when the profile cannot be benchmarked: no spec.workload (the
// webhook would refuse the pod), no S3 keys for the pod (neither s3User nor credentialsSecret), no
// Ready client, a --bucket that is not the profile's. InvalidArgument for a bad flag value.
StatusOr<BenchJob> RenderBenchJob(const crd::ClientProfile& profile, const Options& options,
                                  const std::string& client_image);

// The image of the client container of the profile's DaemonSet `<profile>-client`.
StatusOr<std::string> ClientImageOf(const k8s::JsonObject& daemonset);

}  // namespace rdmastack::plugin
