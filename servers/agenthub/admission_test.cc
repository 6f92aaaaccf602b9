// Every way an agent can be refused, and the one way it is accepted, as a table.
#include "servers/agenthub/admission.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace rdmastack::agenthub {
namespace {

AgentPolicy Policy() {
  AgentPolicy p;
  p.service_account_namespace = "rdmastack-system";
  p.service_account_name = "rdmastack-agent";
  p.daemonset_name = "rdmastack-agent";
  return p;
}

constexpr const char* kDaemonSetUid = "ds-uid-1";

TokenReviewResult GoodReview() {
  TokenReviewResult r;
  r.authenticated = true;
  r.username = "system:serviceaccount:rdmastack-system:rdmastack-agent";
  r.audiences = {"rdmastack-agenthub"};
  r.pod_name = "agent-x1";
  r.pod_uid = "uid-1";
  r.node_name = "node-a";
  return r;
}

HelloClaim Claim(const std::string& node = "node-a") {
  HelloClaim c;
  c.node_name = node;
  c.agent_version = "0.1.0";
  c.has_token = true;
  return c;
}

k8s::OwnerReference Controller(const std::string& kind, const std::string& name,
                               const std::string& uid) {
  k8s::OwnerReference o;
  o.api_version = kind == "DaemonSet" ? "apps/v1" : "v1";
  o.kind = kind;
  o.name = name;
  o.uid = uid;
  o.controller = true;
  return o;
}

// An agent pod: controlled by the agent DaemonSet.
BoundPod PodOn(const std::string& node, const std::string& uid = "uid-1") {
  return BoundPod{uid, node, Controller("DaemonSet", "rdmastack-agent", kDaemonSetUid)};
}

BoundPod Controlled(std::optional<k8s::OwnerReference> controller) {
  BoundPod p = PodOn("node-a");
  p.controller = std::move(controller);
  return p;
}

struct Case {
  std::string name;
  HelloClaim claim;
  TokenReviewResult review;
  std::optional<BoundPod> pod;
  StatusCode code;
  std::string reason;
  std::string message_part;
};

TEST(AdmissionTest, DecisionTable) {
  std::vector<Case> cases;
  cases.push_back({"accepted", Claim(), GoodReview(), PodOn("node-a"), StatusCode::kOk, "", ""});
  {
    HelloClaim c = Claim("");
    cases.push_back({"no node name", c, GoodReview(), PodOn("node-a"), StatusCode::kInvalidArgument,
                     kReasonNoNodeName, "node_name is empty"});
  }
  {
    HelloClaim c = Claim();
    c.has_token = false;
    cases.push_back({"no token", c, TokenReviewResult{}, std::nullopt, StatusCode::kUnauthenticated,
                     kReasonNoToken, "carries no token"});
  }
  {
    TokenReviewResult r;
    r.error =
        "[invalid bearer token, square/go-jose/jwt: validation failed, token is expired "
        "(exp)]";
    cases.push_back({"expired", Claim(), r, std::nullopt, StatusCode::kUnauthenticated,
                     kReasonTokenExpired, "token is expired"});
  }
  {
    TokenReviewResult r;
    r.error =
        "[invalid bearer token, token audiences [\"other\"] is invalid for the target "
        "audiences [\"rdmastack-agenthub\"]]";
    cases.push_back({"wrong audience (review)", Claim(), r, std::nullopt,
                     StatusCode::kUnauthenticated, kReasonWrongAudience, "audiences"});
  }
  {
    TokenReviewResult r = GoodReview();
    r.audiences = {"https://kubernetes.default.svc"};
    cases.push_back({"wrong audience (authenticated)", Claim(), r, PodOn("node-a"),
                     StatusCode::kUnauthenticated, kReasonWrongAudience,
                     "not valid for audience rdmastack-agenthub"});
  }
  {
    TokenReviewResult r;
    r.error = "invalid bearer token";
    cases.push_back({"garbage", Claim(), r, std::nullopt, StatusCode::kUnauthenticated,
                     kReasonTokenRejected, "invalid bearer token"});
  }
  {
    TokenReviewResult r = GoodReview();
    r.username = "system:serviceaccount:rdmastack-system:intruder";
    cases.push_back({"other service account", Claim(), r, PodOn("node-a"),
                     StatusCode::kPermissionDenied, kReasonWrongServiceAccount,
                     "belongs to system:serviceaccount:rdmastack-system:intruder"});
  }
  {
    TokenReviewResult r = GoodReview();
    r.username = "system:serviceaccount:other-ns:rdmastack-agent";
    cases.push_back({"same name, other namespace", Claim(), r, PodOn("node-a"),
                     StatusCode::kPermissionDenied, kReasonWrongServiceAccount, "other-ns"});
  }
  {
    TokenReviewResult r = GoodReview();
    r.pod_name.clear();
    r.pod_uid.clear();
    r.node_name.clear();
    cases.push_back({"not pod-bound", Claim(), r, std::nullopt, StatusCode::kPermissionDenied,
                     kReasonNotPodBound, "not bound to a pod"});
  }
  cases.push_back({"token's node extra names another node", Claim("node-b"), GoodReview(),
                   PodOn("node-a"), StatusCode::kPermissionDenied, kReasonNodeMismatch,
                   "on node node-a, but Hello claims node node-b"});
  {
    TokenReviewResult r = GoodReview();
    r.node_name.clear();  // no node extra: the Pod decides
    cases.push_back({"pod on another node", Claim("node-b"), r, PodOn("node-a"),
                     StatusCode::kPermissionDenied, kReasonNodeMismatch, "on node node-a"});
    cases.push_back({"pod not scheduled", Claim("node-b"), r, PodOn(""),
                     StatusCode::kPermissionDenied, kReasonNodeMismatch, "on node (none)"});
  }
  cases.push_back({"pod deleted", Claim(), GoodReview(), std::nullopt, StatusCode::kUnauthenticated,
                   kReasonBoundPodGone, "no longer exists"});
  cases.push_back({"pod recreated under the same name", Claim(), GoodReview(),
                   PodOn("node-a", "uid-2"), StatusCode::kUnauthenticated, kReasonBoundPodGone,
                   "uid uid-1"});
  // Running as the agent's ServiceAccount is not enough: the agent DaemonSet must control the pod.
  cases.push_back({"bare pod", Claim(), GoodReview(), Controlled(std::nullopt),
                   StatusCode::kPermissionDenied, kReasonNotAgentPod, "controlled by nothing"});
  cases.push_back({"pod of another DaemonSet", Claim(), GoodReview(),
                   Controlled(Controller("DaemonSet", "look-alike", "ds-uid-9")),
                   StatusCode::kPermissionDenied, kReasonNotAgentPod,
                   "controlled by DaemonSet look-alike (uid ds-uid-9), not by DaemonSet "
                   "rdmastack-system/rdmastack-agent (uid ds-uid-1)"});
  cases.push_back({"owner reference copied from the agent DaemonSet's name only", Claim(),
                   GoodReview(), Controlled(Controller("DaemonSet", "rdmastack-agent", "forged")),
                   StatusCode::kPermissionDenied, kReasonNotAgentPod, "uid forged"});
  cases.push_back({"pod of a ReplicaSet", Claim(), GoodReview(),
                   Controlled(Controller("ReplicaSet", "rdmastack-agent", kDaemonSetUid)),
                   StatusCode::kPermissionDenied, kReasonNotAgentPod, "ReplicaSet"});

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AdmissionDecision d =
        Decide(c.claim, c.review, c.pod, Policy(), DaemonSetUid(kDaemonSetUid));
    EXPECT_EQ(d.code, c.code) << d.message;
    EXPECT_EQ(d.reason, c.reason);
    EXPECT_NE(d.message.find(c.message_part), std::string::npos) << d.message;
    if (c.code == StatusCode::kOk) {
      EXPECT_EQ(d.identity.node_name, "node-a");
      EXPECT_EQ(d.identity.pod_namespace, "rdmastack-system");
      EXPECT_EQ(d.identity.pod_name, "agent-x1");
      EXPECT_EQ(d.identity.pod_uid, "uid-1");
      EXPECT_EQ(d.identity.agent_version, "0.1.0");
    }
  }
}

TEST(AdmissionTest, AgentPodsAreRefusedWhileTheDaemonSetIsMissing) {
  const AdmissionDecision d =
      Decide(Claim(), GoodReview(), PodOn("node-a"), Policy(), /*daemonset_uid=*/std::nullopt);
  EXPECT_EQ(d.reason, kReasonNotAgentPod);
  EXPECT_NE(d.message.find("which does not exist"), std::string::npos) << d.message;
  // A policy without a DaemonSet name (bare test pods) does not look at the controller.
  AgentPolicy any = Policy();
  any.daemonset_name.clear();
  EXPECT_TRUE(Decide(Claim(), GoodReview(), Controlled(std::nullopt), any).accepted());
}

TEST(AdmissionTest, BoundPodFromObjectKeepsTheControllingOwner) {
  auto pod = k8s::JsonObject::Parse(R"({"metadata": {"uid": "u1", "ownerReferences": [
      {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "c1"},
      {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "rdmastack-agent", "uid": "d1",
       "controller": true}]}, "spec": {"nodeName": "node-a"}})");
  ASSERT_TRUE(pod.ok());
  const BoundPod p = BoundPodFromObject(*pod);
  EXPECT_EQ(p.node_name, "node-a");
  ASSERT_TRUE(p.controller);
  EXPECT_EQ(p.controller->kind, "DaemonSet");
  EXPECT_EQ(p.controller->uid, "d1");
}

TEST(AdmissionTest, TokenStepNeverLooksAtThePod) {
  // DecideFromToken accepting means "go and read the Pod": it must not accept what only the
  // Pod can prove.
  EXPECT_TRUE(DecideFromToken(Claim(), GoodReview(), Policy()).accepted());
  EXPECT_FALSE(DecideWithPod(Claim(), GoodReview(), std::nullopt, Policy()).accepted());
}

TEST(AdmissionTest, ParsesTheTokenReviewStatusTheApiServerReturns) {
  // The shape checked on the 1.36 harness (research/operator-facts.md §Tokens).
  auto status = k8s::JsonObject::Parse(R"({
    "authenticated": true,
    "user": {"username": "system:serviceaccount:ns1:agent", "uid": "u",
             "groups": ["system:serviceaccounts"],
             "extra": {"authentication.kubernetes.io/credential-id": ["JTI=abc"],
                       "authentication.kubernetes.io/node-name": ["kwok-1"],
                       "authentication.kubernetes.io/node-uid": ["n-uid"],
                       "authentication.kubernetes.io/pod-name": ["agent-abc"],
                       "authentication.kubernetes.io/pod-uid": ["p-uid"]}},
    "audiences": ["rdmastack-agenthub"]})");
  ASSERT_TRUE(status.ok());
  const TokenReviewResult r = ParseTokenReviewStatus(*status);
  EXPECT_TRUE(r.authenticated);
  EXPECT_EQ(r.username, "system:serviceaccount:ns1:agent");
  EXPECT_EQ(r.audiences, std::vector<std::string>{"rdmastack-agenthub"});
  EXPECT_EQ(r.pod_name, "agent-abc");
  EXPECT_EQ(r.pod_uid, "p-uid");
  EXPECT_EQ(r.node_name, "kwok-1");

  auto refused = k8s::JsonObject::Parse(R"({"authenticated": false, "error": "bad"})");
  ASSERT_TRUE(refused.ok());
  const TokenReviewResult n = ParseTokenReviewStatus(*refused);
  EXPECT_FALSE(n.authenticated);
  EXPECT_EQ(n.error, "bad");
  EXPECT_TRUE(n.pod_name.empty());
}

TEST(HelloShapeTest, BoundsAndNodeNameSyntax) {
  EXPECT_FALSE(CheckHelloShape("stg-node-0.rack-3", "0.1.0", 900));
  EXPECT_FALSE(CheckHelloShape("", "", 0));  // DecideFromToken says NoNodeName
  EXPECT_FALSE(CheckHelloShape(std::string(253, 'a'), std::string(64, 'v'), 16 * 1024));
  for (const auto& [name, version, token] :
       std::vector<std::tuple<std::string, std::string, size_t>>{
           {std::string(254, 'a'), "0.1.0", 1},
           {"node", std::string(65, 'v'), 1},
           {"node", "0.1.0", 16 * 1024 + 1},
           {"-node", "", 1},
           {"node-", "", 1},
           {"Node", "", 1},
           {"no de", "", 1},
           {"node", "0.1\n", 1}}) {
    auto d = CheckHelloShape(name, version, token);
    ASSERT_TRUE(d) << name << " " << version << " " << token;
    EXPECT_EQ(d->reason, kReasonMalformedHello);
    EXPECT_EQ(d->code, StatusCode::kInvalidArgument);
    EXPECT_LT(d->message.size(), 200u) << d->message;
  }
}

}  // namespace
}  // namespace rdmastack::agenthub
