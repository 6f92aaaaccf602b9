#include "servers/agenthub/admission.h"

#include <algorithm>

namespace rdmastack::agenthub {
namespace {

constexpr const char* kExtraPodName = "authentication.kubernetes.io/pod-name";
constexpr const char* kExtraPodUid = "authentication.kubernetes.io/pod-uid";
constexpr const char* kExtraNodeName = "authentication.kubernetes.io/node-name";

std::string FirstExtra(const k8s::JsonObject& status, const char* key) {
  const auto values = status.GetArray({"user", "extra", key});
  if (values.empty() || !values.front().value().IsString()) return "";
  return values.front().value().GetString();
}

AdmissionDecision Refuse(StatusCode code, const char* reason, std::string message) {
  AdmissionDecision d;
  d.code = code;
  d.reason = reason;
  d.message = std::move(message);
  return d;
}

bool Contains(const std::string& text, const char* needle) {
  return text.find(needle) != std::string::npos;
}

std::string PodRef(const AgentPolicy& policy, const TokenReviewResult& review) {
  return policy.service_account_namespace + "/" + review.pod_name;
}

}  // namespace

std::optional<AdmissionDecision> CheckHelloShape(std::string_view node_name,
                                                 std::string_view agent_version,
                                                 size_t token_bytes) {
  auto too_long = [](const char* field, size_t size, size_t max) {
    return Refuse(StatusCode::kInvalidArgument, kReasonMalformedHello,
                  std::string("Hello.") + field + " is " + std::to_string(size) +
                      " bytes, over the limit of " + std::to_string(max));
  };
  if (node_name.size() > kMaxNodeNameBytes)
    return too_long("node_name", node_name.size(), kMaxNodeNameBytes);
  if (agent_version.size() > kMaxAgentVersionBytes)
    return too_long("agent_version", agent_version.size(), kMaxAgentVersionBytes);
  if (token_bytes > kMaxTokenBytes) return too_long("token", token_bytes, kMaxTokenBytes);
  // DNS-1123 subdomain: lower-case alphanumerics, '-' and '.', alphanumeric at both ends.
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  const bool valid =
      node_name.empty() || (alnum(node_name.front()) && alnum(node_name.back()) &&
                            std::all_of(node_name.begin(), node_name.end(),
                                        [&](char c) { return alnum(c) || c == '-' || c == '.'; }));
  if (!valid) {
    return Refuse(StatusCode::kInvalidArgument, kReasonMalformedHello,
                  "Hello.node_name is not a Kubernetes node name (a DNS-1123 subdomain: "
                  "lower-case letters, digits, '-' and '.'); run the agent with $NODE_NAME from "
                  "spec.nodeName");
  }
  for (char c : agent_version) {
    if (c < 0x20 || c > 0x7e) {
      return Refuse(StatusCode::kInvalidArgument, kReasonMalformedHello,
                    "Hello.agent_version has a byte that is not printable ASCII");
    }
  }
  return std::nullopt;
}

TokenReviewResult ParseTokenReviewStatus(const k8s::JsonObject& status) {
  TokenReviewResult r;
  r.authenticated = status.GetBool({"authenticated"}).value_or(false);
  r.error = status.GetString({"error"}).value_or("");
  r.username = status.GetString({"user", "username"}).value_or("");
  for (const auto& a : status.GetArray({"audiences"})) {
    if (a.value().IsString()) r.audiences.emplace_back(a.value().GetString());
  }
  r.pod_name = FirstExtra(status, kExtraPodName);
  r.pod_uid = FirstExtra(status, kExtraPodUid);
  r.node_name = FirstExtra(status, kExtraNodeName);
  return r;
}

BoundPod BoundPodFromObject(const k8s::JsonObject& pod) {
  BoundPod p;
  p.uid = std::string(pod.Uid());
  p.node_name = pod.GetString({"spec", "nodeName"}).value_or("");
  for (auto& owner : pod.OwnerReferences()) {
    if (owner.controller) p.controller = std::move(owner);
  }
  return p;
}

AdmissionDecision DecideFromToken(const HelloClaim& claim, const TokenReviewResult& review,
                                  const AgentPolicy& policy) {
  if (claim.node_name.empty()) {
    return Refuse(StatusCode::kInvalidArgument, kReasonNoNodeName,
                  "Hello.node_name is empty; run the agent with --node-name or $NODE_NAME "
                  "(spec.nodeName through the downward API)");
  }
  if (!claim.has_token) {
    return Refuse(StatusCode::kUnauthenticated, kReasonNoToken,
                  "Hello carries no token; mount a projected ServiceAccount token with audience " +
                      policy.audience + " and pass it with --token-file");
  }
  if (!review.authenticated) {
    // The API server says why only in prose; the two causes an operator can act on are told
    // apart so that the event and the metric name them.
    const char* reason = kReasonTokenRejected;
    if (Contains(review.error, "expired")) reason = kReasonTokenExpired;
    if (Contains(review.error, "audience")) reason = kReasonWrongAudience;
    return Refuse(StatusCode::kUnauthenticated, reason,
                  std::string("the API server did not authenticate the token (") + reason +
                      "): " + (review.error.empty() ? "no reason given" : review.error) +
                      "; the token must be a current projected ServiceAccount token with "
                      "audience " +
                      policy.audience);
  }
  bool audience_ok = false;
  for (const auto& a : review.audiences) audience_ok = audience_ok || a == policy.audience;
  if (!audience_ok) {
    return Refuse(StatusCode::kUnauthenticated, kReasonWrongAudience,
                  "the token is not valid for audience " + policy.audience +
                      "; set the projected token's audience to " + policy.audience);
  }
  const std::string want = "system:serviceaccount:" + policy.service_account_namespace + ":" +
                           policy.service_account_name;
  if (review.username != want) {
    return Refuse(StatusCode::kPermissionDenied, kReasonWrongServiceAccount,
                  "the token belongs to " + review.username + "; only " + want +
                      " (the agent DaemonSet's ServiceAccount) may connect");
  }
  if (review.pod_name.empty() || review.pod_uid.empty()) {
    return Refuse(StatusCode::kPermissionDenied, kReasonNotPodBound,
                  "the token is not bound to a pod; use the projected ServiceAccount token of "
                  "the agent pod, not a token made with `kubectl create token` alone");
  }
  if (!review.node_name.empty() && review.node_name != claim.node_name) {
    return Refuse(StatusCode::kPermissionDenied, kReasonNodeMismatch,
                  "the token is bound to pod " + PodRef(policy, review) + " on node " +
                      review.node_name + ", but Hello claims node " + claim.node_name);
  }
  return {};
}

AdmissionDecision DecideWithPod(const HelloClaim& claim, const TokenReviewResult& review,
                                const std::optional<BoundPod>& pod, const AgentPolicy& policy,
                                const DaemonSetUid& daemonset_uid) {
  if (!pod || pod->uid != review.pod_uid) {
    return Refuse(StatusCode::kUnauthenticated, kReasonBoundPodGone,
                  "pod " + PodRef(policy, review) + " (uid " + review.pod_uid +
                      ") the token is bound to no longer exists; its token is void");
  }
  if (pod->node_name != claim.node_name) {
    return Refuse(StatusCode::kPermissionDenied, kReasonNodeMismatch,
                  "the token is bound to pod " + PodRef(policy, review) + " on node " +
                      (pod->node_name.empty() ? "(none)" : pod->node_name) +
                      ", but Hello claims node " + claim.node_name);
  }
  if (!policy.daemonset_name.empty()) {
    const std::string daemonset =
        "DaemonSet " + policy.service_account_namespace + "/" + policy.daemonset_name;
    const auto& owner = pod->controller;
    const bool owned = owner && owner->kind == "DaemonSet" && owner->api_version == "apps/v1" &&
                       owner->name == policy.daemonset_name && daemonset_uid &&
                       owner->uid == *daemonset_uid;
    if (!owned) {
      const std::string by =
          owner ? owner->kind + " " + owner->name + " (uid " + owner->uid + ")" : "nothing";
      return Refuse(
          StatusCode::kPermissionDenied, kReasonNotAgentPod,
          "pod " + PodRef(policy, review) + " is controlled by " + by + ", not by " + daemonset +
              (daemonset_uid ? " (uid " + *daemonset_uid + ")" : ", which does not exist") +
              "; only the agent DaemonSet's pods may report for a node");
    }
  }
  AdmissionDecision d;
  d.identity.node_name = claim.node_name;
  d.identity.pod_namespace = policy.service_account_namespace;
  d.identity.pod_name = review.pod_name;
  d.identity.pod_uid = review.pod_uid;
  d.identity.agent_version = claim.agent_version;
  return d;
}

AdmissionDecision Decide(const HelloClaim& claim, const TokenReviewResult& review,
                         const std::optional<BoundPod>& pod, const AgentPolicy& policy,
                         const DaemonSetUid& daemonset_uid) {
  AdmissionDecision first = DecideFromToken(claim, review, policy);
  if (!first.accepted()) return first;
  return DecideWithPod(claim, review, pod, policy, daemonset_uid);
}

AdmissionDecision Unavailable(const std::string& what, const Status& status) {
  return Refuse(StatusCode::kUnavailable, kReasonReviewUnavailable,
                what + " failed: " + status.ToString() + "; the agent retries");
}

AdmissionDecision ShuttingDownRefusal() {
  return Refuse(StatusCode::kUnavailable, kReasonShuttingDown,
                "the agent hub is shutting down (a new leader takes over); the agent retries");
}

}  // namespace rdmastack::agenthub
