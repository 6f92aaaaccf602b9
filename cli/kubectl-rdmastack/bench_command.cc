#include "cli/kubectl-rdmastack/bench_command.h"

#include "cli/kubectl-rdmastack/bench_job.h"
#include "cli/kubectl-rdmastack/printable.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "lib/s3/bench_report.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/rest_codec.h"

namespace rdmastack::plugin {
namespace {

constexpr auto kPoll = std::chrono::seconds(2);
// Beyond the Job's own deadline: the time to schedule and start its pod.
constexpr auto kStartAllowance = std::chrono::seconds(120);
constexpr int64_t kMaxLogBytes = int64_t{1} << 20;

CommandResult Failure(std::string line) {
  return {"", "error: " + line + "\n", 1};
}

// "Complete" or "Failed" once the Job has finished, else "".
std::string Finished(const k8s::JsonObject& job) {
  for (const k8s::JsonObject& c : job.GetArray({"status", "conditions"})) {
    const std::string type = c.GetString({"type"}).value_or("");
    if ((type == "Complete" || type == "Failed") && c.GetString({"status"}) == "True") return type;
  }
  return "";
}

// The last lines of a log, for a report that is missing.
std::string Tail(const std::string& log, size_t lines) {
  size_t at = log.size();
  for (size_t n = 0; n <= lines && at > 0; ++n) {
    const size_t nl = log.rfind('\n', at - 1);
    if (nl == std::string::npos) return log;
    at = nl;
  }
  return log.substr(at + 1);
}

}  // namespace

CommandResult RunBench(const BenchIo& io, const Options& options,
                       const std::string& default_namespace, const ClusterInfo& cluster) {
  k8s::Client& client = *io.api.client;
  const std::string ns = UpgradeNamespace(options, default_namespace);
  const k8s::ResourceType& profiles = crd::kinds::ClientProfile();
  StatusOr<k8s::JsonObject> object = client.Get(profiles, ns, options.argument);
  if (!object.ok()) {
    if (k8s::IsNotFound(object.status()) && !IsNotServed(object.status()))
      return Failure("no ClientProfile \"" + options.argument + "\" in namespace " + ns +
                     " (kubectl get cprof -n " + ns + ")");
    return Failure(DescribeApiError(object.status(), "get", profiles, cluster));
  }
  StatusOr<crd::ClientProfile> profile =
      crd::ParseResource<crd::ClientProfile>(object->Serialize());
  if (!profile.ok())
    return Failure("ClientProfile " + ns + "/" + options.argument + ": " +
                   profile.status().message());
  const std::string ds_name = options.argument + "-client";
  StatusOr<k8s::JsonObject> ds = client.Get(k8s::kinds::DaemonSet(), ns, ds_name);
  if (!ds.ok())
    return Failure("the profile's client DaemonSet " + ns + "/" + ds_name + ": " +
                   DescribeApiError(ds.status(), "get", k8s::kinds::DaemonSet(), cluster));
  StatusOr<std::string> image = ClientImageOf(*ds);
  if (!image.ok()) return Failure(image.status().message());
  StatusOr<BenchJob> plan = RenderBenchJob(*profile, options, *image);
  if (!plan.ok())
    return {"", "error: " + plan.status().message() + "\n",
            plan.status().code() == StatusCode::kInvalidArgument ? 2 : 1};

  StatusOr<k8s::JsonObject> created = client.Create(JobType(), plan->job);
  if (!created.ok())
    return Failure("create the bench Job in " + ns + ": " +
                   DescribeApiError(created.status(), "create", JobType(), cluster));
  const std::string job = std::string(created->Name());
  io.progress("Job " + ns + "/" + job + " created (image " + *image + ", bucket " + plan->bucket +
              "); waiting for it to finish");
  // The Job goes whatever happens next; its TTL removes it should this process die first.
  struct DeleteJob {
    k8s::Client& client;
    const std::string& ns;
    const std::string& job;
    ~DeleteJob() {
      (void)client.Delete(JobType(), ns, job,
                          {.propagation_policy = k8s::PropagationPolicy::kBackground});
    }
  } delete_job{client, ns, job};

  const auto deadline = io.now() + std::chrono::seconds(plan->timeout_seconds) + kStartAllowance;
  std::string finished;
  while (finished.empty()) {
    if (io.now() > deadline)
      return Failure("the bench Job " + ns + "/" + job + " did not finish within " +
                     std::to_string(plan->timeout_seconds) +
                     " s and the start allowance; kubectl describe job -n " + ns + " " + job);
    io.sleep(kPoll);
    StatusOr<k8s::JsonObject> now = client.Get(JobType(), ns, job);
    if (!now.ok()) return Failure(DescribeApiError(now.status(), "get", JobType(), cluster));
    finished = Finished(*now);
  }

  k8s::ListOptions selector;
  selector.label_selector = "batch.kubernetes.io/job-name=" + job;
  StatusOr<k8s::ObjectList> pods = client.List(k8s::kinds::Pod(), ns, selector);
  if (!pods.ok())
    return Failure(DescribeApiError(pods.status(), "list", k8s::kinds::Pod(), cluster));
  if (pods->items.empty())
    return Failure("the bench Job " + job + " " + finished +
                   " without a pod (kubectl describe "
                   "job -n " +
                   ns + " " + job + ")");
  const k8s::JsonObject& pod = pods->items.front();
  const std::string pod_name(pod.Name());
  const std::string node = pod.GetString({"spec", "nodeName"}).value_or("?");
  StatusOr<std::string> log = io.api.get(
      "/api/v1/namespaces/" + k8s::UrlEncode(ns) + "/pods/" + k8s::UrlEncode(pod_name) + "/log" +
      k8s::BuildQuery({{"container", kBenchContainer},
                       // The report is the last line; the pod's image runs the
                       // profile's library too, so its log is not ours to read whole.
                       {"tailLines", "200"},
                       {"limitBytes", std::to_string(kMaxLogBytes)}}));
  if (!log.ok())
    return Failure("the log of bench pod " + pod_name + " on " + node + ": " +
                   log.status().message());
  StatusOr<s3::BenchReport> report = s3::BenchReportFromLog(*log);
  if (!report.ok())
    return PrintableResult(Failure("bench pod " + pod_name + " on " + node + " (" +
                                   pod.GetString({"status", "phase"}).value_or("?") +
                                   ") gave no report: " + report.status().message() +
                                   "; its log ends:\n" + Tail(*log, 15)));

  CommandResult result;
  result.out = options.output == OutputFormat::kJson ? s3::BenchReportToJson(*report) + "\n"
                                                     : s3::RenderBenchTable(*report);
  const bool clean = report->AllVerified() && report->left_behind == 0;
  if (!clean)
    result.err = "error: the bench " +
                 std::string(!report->AllVerified() ? "found failed requests or checksums"
                                                    : "left objects behind") +
                 " (above)\n";
  result.exit_code = clean ? 0 : 1;
  // The report's strings came from the pod's log: shown escaped, as everything from the cluster.
  return PrintableResult(std::move(result));
}

}  // namespace rdmastack::plugin
