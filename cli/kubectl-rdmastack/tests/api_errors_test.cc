#include "cli/kubectl-rdmastack/api_errors.h"

#include <gtest/gtest.h>

#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {
namespace {

const ClusterInfo kErrorsCluster{"https://127.0.0.1:6443",
                                 "kubeconfig /home/me/.kube/config, context dev"};

Status FromServer(int code, const std::string& body) {
  return k8s::ApiErrorFromResponse(code, body).ToStatus();
}

TEST(ApiErrorsTest, CrdNotInstalled) {
  // The apiserver answers an unknown group/resource path with a plain-text 404.
  const Status s = FromServer(404, "404 page not found");
  EXPECT_TRUE(IsNotServed(s));
  EXPECT_EQ(DescribeApiError(s, "list", crd::kinds::GatewayPool(), kErrorsCluster),
            "the API server at https://127.0.0.1:6443 does not serve gatewaypools.rdmastack.io: "
            "the rdmastack CRDs are not installed in this cluster (install them with kubectl "
            "apply -f crds/ or the Helm chart), or --context picks another cluster");
}

TEST(ApiErrorsTest, OneMissingObjectIsNotAMissingCrd) {
  const Status s = FromServer(
      404,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,)"
      R"("message":"gatewaypools.rdmastack.io \"x\" not found",)"
      R"("details":{"name":"x","group":"rdmastack.io","kind":"gatewaypools"}})");
  EXPECT_FALSE(IsNotServed(s));
  EXPECT_TRUE(k8s::IsNotFound(s));
}

TEST(ApiErrorsTest, Forbidden) {
  const Status s = FromServer(
      403,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,)"
      R"("message":"rdmanodes.rdmastack.io is forbidden: User \"dev\" cannot list resource )"
      R"(\"rdmanodes\" in API group \"rdmastack.io\" at the cluster scope"})");
  EXPECT_EQ(DescribeApiError(s, "list", crd::kinds::RdmaNode(), kErrorsCluster),
            "forbidden to list rdmanodes.rdmastack.io (rdmanodes.rdmastack.io is forbidden: User "
            "\"dev\" cannot list resource \"rdmanodes\" in API group \"rdmastack.io\" at the "
            "cluster scope): the plugin needs get and list on gatewaypools, clientprofiles and "
            "rdmanodes (rdmastack.io), and on nodes for why and upgrade; ask a cluster admin for a "
            "ClusterRole with those rights");
}

TEST(ApiErrorsTest, Unauthorized) {
  const Status s = FromServer(401, R"({"kind":"Status","reason":"Unauthorized","code":401,)"
                                   R"("message":"Unauthorized"})");
  EXPECT_EQ(DescribeApiError(s, "list", crd::kinds::GatewayPool(), kErrorsCluster),
            "the API server at https://127.0.0.1:6443 refused the credentials from kubeconfig "
            "/home/me/.kube/config, context dev: 401 Unauthorized; log in again or fix the user in "
            "the kubeconfig");
}

TEST(ApiErrorsTest, Unreachable) {
  // What the transport returns when nothing listens: no API error payload.
  const Status s =
      UnavailableError("connecting failed (https://127.0.0.1:6443): Connection refused");
  EXPECT_EQ(DescribeApiError(s, "list", crd::kinds::GatewayPool(), kErrorsCluster),
            "cannot reach the API server at https://127.0.0.1:6443, from kubeconfig "
            "/home/me/.kube/config, context dev: connecting failed (https://127.0.0.1:6443): "
            "Connection refused; check that the cluster is up and that --kubeconfig/--context "
            "point at it");
}

TEST(ApiErrorsTest, Overloaded) {
  const Status s = FromServer(429, R"({"kind":"Status","reason":"TooManyRequests","code":429,)"
                                   R"("message":"too many requests"})");
  EXPECT_EQ(DescribeApiError(s, "get", crd::kinds::GatewayPool(), kErrorsCluster),
            "the API server at https://127.0.0.1:6443 could not answer get "
            "gatewaypools.rdmastack.io (too many requests); try again in a moment");
}

}  // namespace
}  // namespace rdmastack::plugin
