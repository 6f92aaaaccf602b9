#include "servers/agenthub/serving_pod_label.h"

#include <spdlog/spdlog.h>

#include "crds/types/label_names.h"
#include "operator/k8s/json_builder.h"
#include "operator/k8s/resource.h"

namespace rdmastack::agenthub {
std::string ServingLabelPatch(bool serving) {
  k8s::JsonBuilder patch;
  if (serving) {
    patch.SetLabel(kServingPodLabelKey, kServingPodLabelValue);
  } else {
    patch.SetNull({"metadata", "labels", kServingPodLabelKey});
  }
  return patch.object().Serialize();
}

std::vector<std::string> StaleServingPods(const std::vector<k8s::JsonObject>& pods,
                                          const std::string& own_pod) {
  std::vector<std::string> stale;
  for (const k8s::JsonObject& pod : pods) {
    if (pod.Name() == own_pod) continue;
    const auto labels = pod.Labels();
    if (auto it = labels.find(kServingPodLabelKey); it != labels.end()) {
      stale.emplace_back(pod.Name());
    }
  }
  return stale;
}

ServingPodLabel::ServingPodLabel(k8s::Client& writer, std::string namespace_, std::string own_pod)
    : writer_(writer), namespace_(std::move(namespace_)), own_pod_(std::move(own_pod)) {}

Status ServingPodLabel::Patch(const std::string& pod, bool serving) {
  k8s::PatchOptions options;
  options.field_manager = crd::kFieldManager;
  auto patched = writer_.Patch(k8s::kinds::Pod(), namespace_, pod, k8s::PatchType::kMerge,
                               ServingLabelPatch(serving), options);
  // A former leader's pod that is gone by now needs nothing.
  if (!serving && !patched.ok() && patched.status().code() == StatusCode::kNotFound) {
    return OkStatus();
  }
  if (!patched.ok()) {
    return patched.status().WithContext(std::string(serving ? "label" : "unlabel") + " pod " +
                                        namespace_ + "/" + pod + " (" + kServingPodLabelKey +
                                        ", which steers the agent hub's Service)");
  }
  return OkStatus();
}

Status ServingPodLabel::Set() {
  k8s::ListOptions list;
  list.label_selector = kServingPodLabelKey;
  auto labelled = writer_.List(k8s::kinds::Pod(), namespace_, list);
  if (!labelled.ok()) {
    return labelled.status().WithContext("list pods labelled " + std::string(kServingPodLabelKey) +
                                         " in " + namespace_);
  }
  for (const std::string& pod : StaleServingPods(labelled->items, own_pod_)) {
    RDMASTACK_RETURN_IF_ERROR(Patch(pod, false));
    spdlog::info("agenthub: took {} off pod {}, a former leader's", kServingPodLabelKey, pod);
  }
  RDMASTACK_RETURN_IF_ERROR(Patch(own_pod_, true));
  spdlog::info("agenthub: labelled pod {}/{} {}={}: the agent hub's Service sends agents here",
               namespace_, own_pod_, kServingPodLabelKey, kServingPodLabelValue);
  return OkStatus();
}

void ServingPodLabel::Clear() {
  if (Status s = Patch(own_pod_, false); !s.ok()) {
    spdlog::warn("agenthub: {} (the next leader takes it off)", s.ToString());
  }
}

}  // namespace rdmastack::agenthub
