#include "cli/kubectl-rdmastack/bench_job.h"

#include <algorithm>

#include "base/duration.h"
#include "base/quantity.h"
#include "lib/s3/bench_report.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::plugin {
namespace {

constexpr int kDefaultTimeoutSeconds = 600;
constexpr int64_t kDefaultObjectBytes = int64_t{8} << 20;
constexpr int kDefaultLargestStreams = 4;  // rdmastack-client bench's default 1,2,4
constexpr int64_t kMemoryHeadroom = int64_t{96} << 20;

k8s::JsonObject Str(std::string_view s) {
  k8s::JsonObject o;
  o.document().SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()),
                         o.document().GetAllocator());
  return o;
}

}  // namespace

const k8s::ResourceType& JobType() {
  static const k8s::ResourceType type{"batch", "v1", "Job", "jobs", true};
  return type;
}

StatusOr<std::string> ClientImageOf(const k8s::JsonObject& daemonset) {
  for (const k8s::JsonObject& c : daemonset.GetArray({"spec", "template", "spec", "containers"})) {
    if (c.GetString({"name"}) == "client") {
      std::optional<std::string> image = c.GetString({"image"});
      if (image && !image->empty()) return *image;
    }
  }
  return FailedPreconditionError("DaemonSet " + std::string(daemonset.Name()) +
                                 " has no client container with an image");
}

StatusOr<BenchJob> RenderBenchJob(const crd::ClientProfile& profile, const Options& options,
                                  const std::string& client_image) {
  const std::string& name = profile.metadata.name;
  const std::string ns = profile.metadata.namespace_.value_or("");
  const std::string where = "ClientProfile " + ns + "/" + name;
  if (!profile.spec.workload)
    return FailedPreconditionError(where +
                                   " has no spec.workload, so the admission webhook gives its "
                                   "pods nothing; add spec.workload (docs/api.md \"Workloads\")");
  if (!profile.spec.s3_user && !profile.spec.credentials_secret)
    return FailedPreconditionError(where +
                                   " has neither spec.s3User nor spec.credentialsSecret: "
                                   "the bench has no S3 keys to sign with");
  const int ready =
      profile.status && profile.status->node_counts ? profile.status->node_counts->ready : 0;
  if (ready == 0)
    return FailedPreconditionError(where +
                                   " has no node whose client data plane is Ready "
                                   "(kubectl rdmastack status says why)");

  BenchJob out;
  if (!options.bench_bucket.empty()) {
    out.bucket = options.bench_bucket;
    if (profile.spec.s3_user) {
      const auto& buckets = profile.spec.s3_user->buckets;
      if (std::find(buckets.begin(), buckets.end(), out.bucket) == buckets.end())
        return FailedPreconditionError("--bucket " + out.bucket + " is not one of " + where +
                                       "'s spec.s3User.buckets, the only ones its user may use");
    }
  } else if (profile.spec.s3_user && !profile.spec.s3_user->buckets.empty()) {
    out.bucket = profile.spec.s3_user->buckets.front();
  } else {
    return InvalidArgumentError("--bucket is required for " + where +
                                " (it names no buckets: spec.credentialsSecret)");
  }

  int64_t object_bytes = kDefaultObjectBytes;
  if (!options.bench_size.empty()) {
    StatusOr<int64_t> q = ParseByteQuantity(options.bench_size);
    if (!q.ok()) return InvalidArgumentError("--size: " + q.status().message());
    object_bytes = *q;
  }
  int largest = kDefaultLargestStreams;
  if (!options.bench_streams.empty()) {
    RDMASTACK_ASSIGN_OR_RETURN(std::vector<int> counts,
                               s3::ParseStreamCounts(options.bench_streams));
    largest = counts.back();
  }
  out.timeout_seconds = kDefaultTimeoutSeconds;
  if (!options.bench_timeout.empty()) {
    StatusOr<std::chrono::milliseconds> d = ParseDuration(options.bench_timeout);
    if (!d.ok() || *d < std::chrono::seconds(10) || *d > std::chrono::hours(2))
      return InvalidArgumentError("--timeout " + options.bench_timeout +
                                  " must be a duration from 10s to 2h");
    out.timeout_seconds =
        static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(*d).count());
  }

  k8s::JsonBuilder job;
  job.SetApiVersion("batch/v1");
  job.SetKind("Job");
  // 63 characters at most, of which the API server's random suffix takes 5.
  job.SetString({"metadata", "generateName"}, ("rdmastack-bench-" + name).substr(0, 57) + "-");
  job.SetNamespace(ns);
  job.SetLabel("app.kubernetes.io/name", kBenchAppLabel);
  job.SetLabel("app.kubernetes.io/managed-by", "kubectl-rdmastack");
  job.SetLabel("rdmastack.io/client-profile", name);
  job.SetInt({"spec", "backoffLimit"}, 0);
  // Gone by itself if the plugin was interrupted before it deleted the Job.
  job.SetInt({"spec", "ttlSecondsAfterFinished"}, 600);
  job.SetInt({"spec", "activeDeadlineSeconds"}, out.timeout_seconds);

  k8s::JsonBuilder pod;
  for (const auto& [k, v] : options.pod_labels) pod.SetString({"metadata", "labels", k}, v);
  pod.SetString({"metadata", "labels", "app.kubernetes.io/name"}, kBenchAppLabel);
  pod.SetString({"metadata", "labels", "rdmastack.io/client-profile"}, name);
  pod.SetString({"spec", "restartPolicy"}, "Never");
  pod.SetBool({"spec", "automountServiceAccountToken"}, false);
  if (!options.bench_node.empty())
    pod.SetString({"spec", "nodeSelector", "kubernetes.io/hostname"}, options.bench_node);

  k8s::JsonBuilder c;
  c.SetString({"name"}, kBenchContainer);
  c.SetString({"image"}, client_image);
  std::vector<std::string> args = {"bench", "--bucket", out.bucket};
  auto flag = [&](const char* f, const std::string& v) {
    if (!v.empty()) args.insert(args.end(), {f, v});
  };
  flag("--size", options.bench_size);
  flag("--streams", options.bench_streams);
  flag("--objects-per-stream", options.bench_objects);
  for (const std::string& a : args) c.Append({"args"}, Str(a));
  c.Append({"env"},
           k8s::JsonObject::Parse(
               R"({"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}})")
               .value());
  // With s3User the webhook adds the user's keys; a credentialsSecret's are the pod's to name.
  if (!profile.spec.s3_user && profile.spec.credentials_secret) {
    const crd::CredentialsSecretRef& ref = *profile.spec.credentials_secret;
    for (const auto& [var, key] : {std::pair{"AWS_ACCESS_KEY_ID", ref.access_key_id_key},
                                   std::pair{"AWS_SECRET_ACCESS_KEY", ref.secret_access_key_key}}) {
      k8s::JsonBuilder e;
      e.SetString({"name"}, var);
      e.SetString({"valueFrom", "secretKeyRef", "name"}, ref.name);
      e.SetString({"valueFrom", "secretKeyRef", "key"}, key);
      c.Append({"env"}, e);
    }
  }
  // Each stream holds the object it sends and the one it reads back.
  const std::string memory =
      std::to_string(object_bytes * static_cast<int64_t>(largest) * 2 + kMemoryHeadroom);
  c.SetString({"resources", "requests", "memory"}, memory);
  c.SetString({"resources", "limits", "memory"}, memory);
  c.SetString({"resources", "requests", "cpu"}, "500m");
  c.SetBool({"securityContext", "allowPrivilegeEscalation"}, false);
  c.SetBool({"securityContext", "readOnlyRootFilesystem"}, true);
  c.Append({"securityContext", "capabilities", "drop"}, Str("ALL"));
  pod.Append({"spec", "containers"}, c);
  job.Set({"spec", "template"}, pod);
  out.job = std::move(job).Build();
  return out;
}

}  // namespace rdmastack::plugin
