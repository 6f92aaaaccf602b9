#include "servers/agenthub/agent_authenticator.h"

#include "operator/k8s/api_error.h"

namespace rdmastack::agenthub {

AdmissionDecision AgentAuthenticator::Authenticate(const agent::v1::Hello& hello) {
  HelloClaim claim;
  claim.node_name = hello.node_name();
  claim.agent_version = hello.agent_version();
  claim.has_token = !hello.token().empty();
  TokenReviewResult review;
  if (claim.has_token && !claim.node_name.empty()) {
    auto reviewed = reviewer_.Review(hello.token());
    if (!reviewed.ok()) return Unavailable("the TokenReview", reviewed.status());
    review = std::move(*reviewed);
  }
  AdmissionDecision decision = DecideFromToken(claim, review, policy_);
  if (!decision.accepted()) return decision;

  std::optional<BoundPod> pod;
  auto object = reader_.Get(k8s::kinds::Pod(), policy_.service_account_namespace, review.pod_name);
  if (object.ok()) {
    pod = BoundPodFromObject(*object);
  } else if (!k8s::IsNotFound(object.status())) {
    return Unavailable("reading pod " + policy_.service_account_namespace + "/" + review.pod_name,
                       object.status());
  }
  DaemonSetUid daemonset_uid;
  if (pod && !policy_.daemonset_name.empty()) {
    auto uid = AgentDaemonSetUid(pod->controller ? pod->controller->uid : "");
    if (!uid.ok()) {
      return Unavailable(
          "reading DaemonSet " + policy_.service_account_namespace + "/" + policy_.daemonset_name,
          uid.status());
    }
    daemonset_uid = std::move(*uid);
  }
  decision = DecideWithPod(claim, review, pod, policy_, daemonset_uid);
  // A cached review would otherwise keep vouching for a token whose Pod is gone.
  if (decision.reason == kReasonBoundPodGone) reviewer_.Invalidate(hello.token());
  return decision;
}

StatusOr<DaemonSetUid> AgentAuthenticator::AgentDaemonSetUid(const std::string& owner_uid) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!daemonset_uid_.empty() && daemonset_uid_ == owner_uid) return DaemonSetUid(owner_uid);
  }
  auto object = reader_.Get(k8s::kinds::DaemonSet(), policy_.service_account_namespace,
                            policy_.daemonset_name);
  if (!object.ok()) {
    if (k8s::IsNotFound(object.status())) return DaemonSetUid();
    return object.status();
  }
  std::string uid(object->Uid());
  std::lock_guard<std::mutex> lock(mu_);
  daemonset_uid_ = uid;
  return DaemonSetUid(std::move(uid));
}

}  // namespace rdmastack::agenthub
