#include "controllers/common/owned_pod.h"

#include "base/utf8.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::controllers {
namespace {

void ReadContainer(const k8s::JsonObject& status, OwnedPod* out) {
  out->restarts += static_cast<int32_t>(status.GetInt({"restartCount"}).value_or(0));
  if (auto reason = status.GetString({"state", "waiting", "reason"})) {
    out->waiting_reason = *reason;
    out->message = ClipUtf8(status.GetString({"state", "waiting", "message"}).value_or(""),
                            kMaxPodMessageLength, TextUnit::kCodePoints);
  }
  // The launcher's refusal (one line on stderr) is the last termination message.
  if (auto last = status.GetString({"lastState", "terminated", "message"}); last && !last->empty())
    out->message = LastWords(*last);
}

}  // namespace

std::string LastWords(std::string_view message) {
  constexpr TextUnit kUnit = TextUnit::kCodePoints;
  if (TextLength(message, kUnit) <= kMaxPodMessageLength) return std::string(message);
  // The earliest line start whose lines fit after the marker line.
  for (size_t start = message.find('\n'); start != std::string_view::npos;
       start = message.find('\n', start + 1)) {
    const std::string_view lines = message.substr(start + 1);
    const std::string marker =
        std::string(kEllipsis) + " (" + std::to_string(start + 1) + " bytes cut)\n";
    if (!lines.empty() &&
        TextLength(marker, kUnit) + TextLength(lines, kUnit) <= kMaxPodMessageLength) {
      return marker + std::string(lines);
    }
  }
  // The last line alone is too long: its beginning, which says what it is (the client's
  // `LibraryRefused: ...` names every refused file after the reason and can run past the limit;
  // the controllers find the refusal by that start).
  std::string_view last = message;
  while (!last.empty() && last.back() == '\n') last.remove_suffix(1);
  if (const size_t nl = last.rfind('\n'); nl != std::string_view::npos) last = last.substr(nl + 1);
  constexpr size_t kMarkerRoom = 40;  // " … (N bytes cut)"
  const std::string kept = ClipUtf8(last, kMaxPodMessageLength - kMarkerRoom, kUnit);
  return kept + " " + std::string(kEllipsis) + " (" + std::to_string(message.size() - kept.size()) +
         " bytes cut)";
}

OwnedPod ReadOwnedPod(const k8s::JsonObject& pod, std::string_view container) {
  OwnedPod p;
  p.name = std::string(pod.Name());
  p.uid = std::string(pod.Uid());
  p.node = pod.GetString({"spec", "nodeName"}).value_or("");
  p.component = pod.Label(gatewaypool::kComponentLabel).value_or("");
  p.track = pod.Label(gatewaypool::kTrackLabel).value_or("");
  p.library_version = pod.Label(gatewaypool::kLibraryVersionLabel).value_or("");
  p.template_hash = pod.Label(gatewaypool::kTemplateHashLabel).value_or("");
  p.ip = pod.GetString({"status", "podIP"}).value_or("");
  p.terminating = pod.IsBeingDeleted();
  for (const auto& c : pod.GetArray({"status", "conditions"})) {
    if (c.GetString({"type"}) == "Ready") p.ready = c.GetString({"status"}) == "True";
  }
  for (const auto& c : pod.GetArray({"status", "initContainerStatuses"})) ReadContainer(c, &p);
  // A multi-rail gateway pod runs `<container>-<rail>`, one per rail: each counts.
  const std::string rail_prefix = std::string(container) + "-";
  for (const auto& c : pod.GetArray({"status", "containerStatuses"})) {
    const std::string name = c.GetString({"name"}).value_or("");
    if (name == container || name.starts_with(rail_prefix)) ReadContainer(c, &p);
  }
  return p;
}

PodsByNode GroupByNode(const std::vector<OwnedPod>& pods,
                       const std::function<std::string(const OwnedPod&)>& slot) {
  PodsByNode out;
  for (const OwnedPod& p : pods) {
    if (p.node.empty()) continue;
    auto [it, inserted] = out[p.node].emplace(slot(p), p);
    if (!inserted && Supersedes(p, it->second)) it->second = p;
  }
  return out;
}

bool IsFailing(const OwnedPod& pod) {
  static constexpr std::string_view kFailing[] = {
      "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError", "ErrImagePull",
      "ImagePullBackOff", "InvalidImageName",           "RunContainerError"};
  for (std::string_view r : kFailing) {
    if (pod.waiting_reason == r) return true;
  }
  return false;
}

}  // namespace rdmastack::controllers
