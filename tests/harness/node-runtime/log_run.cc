#include "tests/harness/node-runtime/log_run.h"

#include <charconv>
#include <optional>

namespace rdmastack::sim {
namespace {

constexpr std::string_view kContainerIdPrefix = "rdmastack-sim://";

std::optional<k8s::JsonObject> FindByName(const std::vector<k8s::JsonObject>& items,
                                          const std::string& name) {
  for (const k8s::JsonObject& item : items) {
    if (item.GetString({"name"}) == name) return item;
  }
  return std::nullopt;
}

}  // namespace

pid_t PidOfContainerId(const std::string& container_id) {
  if (container_id.rfind(kContainerIdPrefix, 0) != 0) return 0;
  const std::string_view digits = std::string_view(container_id).substr(kContainerIdPrefix.size());
  pid_t pid = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return ec == std::errc() && ptr == digits.data() + digits.size() && pid > 0 ? pid : 0;
}

StatusOr<LogRun> ChooseLogRun(const k8s::JsonObject& pod, const std::string& container,
                              bool previous) {
  const std::string pod_name(pod.GetString({"metadata", "name"}).value_or(""));
  const bool in_spec = FindByName(pod.GetArray({"spec", "containers"}), container) ||
                       FindByName(pod.GetArray({"spec", "initContainers"}), container);
  if (!in_spec) {
    return NotFoundError("container \"" + container + "\" not found in pod \"" + pod_name + "\"");
  }
  std::optional<k8s::JsonObject> status =
      FindByName(pod.GetArray({"status", "containerStatuses"}), container);
  if (!status) status = FindByName(pod.GetArray({"status", "initContainerStatuses"}), container);
  const std::string quoted = "container \"" + container + "\" in pod \"" + pod_name + "\"";
  if (!status) return InvalidArgumentError(quoted + " is waiting to start: ContainerCreating");

  const int restarts = static_cast<int>(status->GetInt({"restartCount"}).value_or(0));
  const bool running = status->Has({"state", "running"});
  const bool terminated = status->Has({"state", "terminated"});
  const bool last_terminated = status->Has({"lastState", "terminated"});
  if (previous) {
    if (!last_terminated) {
      return InvalidArgumentError("previous terminated " + quoted + " not found");
    }
    // lastState is the run before the current one, except while the container waits to restart:
    // then it is the run that just ended, whose number restartCount still is.
    const int run = running || terminated ? restarts - 1 : restarts;
    if (run < 0) return InvalidArgumentError("previous terminated " + quoted + " not found");
    return LogRun{run, 0};
  }
  if (running) {
    return LogRun{restarts, PidOfContainerId(status->GetString({"containerID"}).value_or(""))};
  }
  if (terminated || last_terminated) return LogRun{restarts, 0};
  const std::string reason =
      status->GetString({"state", "waiting", "reason"}).value_or("ContainerCreating");
  return InvalidArgumentError(quoted + " is waiting to start: " + reason);
}

Status NotRunHere(const k8s::JsonObject* pod, const std::string& ns, const std::string& name,
                  const std::string& node) {
  const std::string quoted = "pod \"" + ns + "/" + name + "\"";
  if (pod == nullptr || pod->GetString({"spec", "nodeName"}).value_or("") != node) {
    return NotFoundError(quoted + " does not exist on node \"" + node + "\"");
  }
  if (pod->GetString({"metadata", "labels", "rdmastack.io/simulate"}) == "run") {
    return InvalidArgumentError(quoted + " on node \"" + node +
                                "\" has not been started by the simulated node runtime yet");
  }
  return InvalidArgumentError(
      quoted + " runs no processes on simulated node \"" + node +
      "\": only pods labelled rdmastack.io/simulate=run run there; kwok keeps this one and "
      "runs nothing for it, so there are no logs");
}

}  // namespace rdmastack::sim
