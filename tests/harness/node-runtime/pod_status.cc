#include "tests/harness/node-runtime/pod_status.h"

#include "tests/harness/node-runtime/service_account_token.h"

namespace rdmastack::sim {
namespace {

k8s::JsonObject Terminated(const TerminatedView& t) {
  k8s::JsonObject o;
  (void)o.SetInt({"exitCode"}, t.exit_code);
  (void)o.SetString({"reason"}, t.reason);
  if (!t.message.empty()) (void)o.SetString({"message"}, t.message);
  (void)o.SetString({"startedAt"}, FormatTimestamp(t.started_at));
  (void)o.SetString({"finishedAt"}, FormatTimestamp(t.finished_at));
  if (!t.container_id.empty()) (void)o.SetString({"containerID"}, t.container_id);
  return o;
}

k8s::JsonObject Container(const ContainerView& c) {
  k8s::JsonObject o;
  (void)o.SetString({"name"}, c.name);
  (void)o.SetString({"image"}, c.image);
  (void)o.SetString({"imageID"}, "");
  if (!c.container_id.empty()) (void)o.SetString({"containerID"}, c.container_id);
  (void)o.SetBool({"ready"}, c.ready);
  (void)o.SetBool({"started"}, c.started);
  (void)o.SetInt({"restartCount"}, c.restart_count);
  switch (c.state) {
    case ContainerView::State::kWaiting:
      (void)o.SetString({"state", "waiting", "reason"}, c.waiting_reason);
      if (!c.waiting_message.empty()) {
        (void)o.SetString({"state", "waiting", "message"}, c.waiting_message);
      }
      break;
    case ContainerView::State::kRunning:
      (void)o.SetString({"state", "running", "startedAt"}, FormatTimestamp(c.running_since));
      break;
    case ContainerView::State::kTerminated:
      (void)o.Set({"state", "terminated"}, Terminated(c.terminated));
      break;
  }
  if (c.last_termination)
    (void)o.Set({"lastState", "terminated"}, Terminated(*c.last_termination));
  else
    (void)o.Set({"lastState"}, k8s::JsonObject());
  return o;
}

k8s::JsonObject IpList(const std::string& ip) {
  k8s::JsonObject list = k8s::JsonObject::Array();
  k8s::JsonObject entry;
  (void)entry.SetString({"ip"}, ip);
  (void)list.Append({}, entry);
  return list;
}

}  // namespace

std::string PodPhase(const std::string& restart_policy, bool initialized, bool init_failed,
                     const std::vector<ContainerView>& containers) {
  if (init_failed) return "Failed";
  if (!initialized) return "Pending";
  int running = 0, waiting = 0, succeeded = 0, failed = 0, restarted = 0;
  for (const ContainerView& c : containers) {
    if (c.restart_count > 0 || c.last_termination) ++restarted;
    switch (c.state) {
      case ContainerView::State::kRunning: ++running; break;
      case ContainerView::State::kWaiting: ++waiting; break;
      case ContainerView::State::kTerminated:
        ++(c.terminated.exit_code == 0 ? succeeded : failed);
        break;
    }
  }
  if (waiting > 0) return restarted > 0 && restart_policy != "Never" ? "Running" : "Pending";
  if (running > 0) return "Running";
  if (restart_policy == "Always") return "Running";
  if (restart_policy == "OnFailure" && failed > 0) return "Running";
  return failed > 0 ? "Failed" : "Succeeded";
}

std::string ContainerListMessage(const std::string& what, const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : " ") + n;
  return "containers with " + what + " status: [" + joined + "]";
}

k8s::JsonObject StatusPatch(const PodView& pod) {
  k8s::JsonObject status;
  (void)status.SetString({"phase"}, pod.phase);
  if (!pod.host_ip.empty()) {
    (void)status.SetString({"hostIP"}, pod.host_ip);
    (void)status.Set({"hostIPs"}, IpList(pod.host_ip));
  }
  if (!pod.pod_ip.empty()) {
    (void)status.SetString({"podIP"}, pod.pod_ip);
    (void)status.Set({"podIPs"}, IpList(pod.pod_ip));
  }
  if (pod.start_time) (void)status.SetString({"startTime"}, FormatTimestamp(*pod.start_time));
  (void)status.Set({"conditions"}, k8s::JsonObject::Array());
  for (const ConditionView& c : pod.conditions) {
    k8s::JsonObject o;
    (void)o.SetString({"type"}, c.type);
    (void)o.SetString({"status"}, c.status ? "True" : "False");
    (void)o.SetString({"lastTransitionTime"}, FormatTimestamp(c.since));
    (void)o.SetNull({"lastProbeTime"});
    // Conditions merge by type: an empty reason or message must be cleared, not left as it was.
    if (c.reason.empty())
      (void)o.SetNull({"reason"});
    else
      (void)o.SetString({"reason"}, c.reason);
    if (c.message.empty())
      (void)o.SetNull({"message"});
    else
      (void)o.SetString({"message"}, c.message);
    (void)status.Append({"conditions"}, o);
  }
  if (!pod.init_containers.empty()) {
    (void)status.Set({"initContainerStatuses"}, k8s::JsonObject::Array());
    for (const ContainerView& c : pod.init_containers) {
      (void)status.Append({"initContainerStatuses"}, Container(c));
    }
  }
  (void)status.Set({"containerStatuses"}, k8s::JsonObject::Array());
  for (const ContainerView& c : pod.containers) {
    (void)status.Append({"containerStatuses"}, Container(c));
  }
  k8s::JsonObject patch;
  (void)patch.Set({"status"}, status);
  return patch;
}

}  // namespace rdmastack::sim
