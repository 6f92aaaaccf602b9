#include "controllers/agenthub/agent_authenticator.h"

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
  decision = DecideWithPod(claim, review, pod, policy_);
  // A cached review would otherwise keep vouching for a token whose Pod is gone.
  if (decision.reason == kReasonBoundPodGone) reviewer_.Invalidate(hello.token());
  return decision;
}

}  // namespace rdmastack::agenthub
