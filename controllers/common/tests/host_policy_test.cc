#include "controllers/common/host_policy.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

using crd::TaintEffect;
using crd::Toleration;
using crd::TolerationOperator;

Toleration Tol(std::optional<std::string> key, TolerationOperator op,
               std::optional<TaintEffect> effect = std::nullopt,
               std::optional<std::string> value = std::nullopt) {
  Toleration t;
  t.key = std::move(key);
  t.op = op;
  t.effect = effect;
  t.value = std::move(value);
  return t;
}

TEST(HostPolicyTest, PortRangeParses) {
  HostPortRange r;
  ASSERT_TRUE(ParseHostPortRange("2000-3000", &r).ok());
  EXPECT_EQ(r.min, 2000);
  EXPECT_EQ(r.max, 3000);
  ASSERT_TRUE(ParseHostPortRange("1-65535", &r).ok());
  EXPECT_EQ(r.min, 1);
  for (const char* bad : {"", "1024", "0-100", "100-65536", "3000-2000", "a-b", "-5", "10-",
                          "1024-65535x", " 1024-65535"}) {
    Status s = ParseHostPortRange(bad, &r);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("MIN-MAX"), std::string::npos) << bad;
  }
}

TEST(HostPolicyTest, DefaultRangeRefusesPrivilegedPortsAndNamesTheField) {
  const TenancyPolicy p;
  EXPECT_FALSE(CheckHostPort(p, "s3.port", 1024));
  EXPECT_FALSE(CheckHostPort(p, "s3.port", 65535));
  for (int32_t port : {1, 22, 443, 1023}) {
    auto refused = CheckHostPort(p, "rdma.port", port);
    ASSERT_TRUE(refused) << port;
    EXPECT_EQ(refused->reason, kReasonHostPortNotAllowed);
    EXPECT_NE(refused->message.find("rdma.port " + std::to_string(port)), std::string::npos);
    EXPECT_NE(refused->message.find("1024-65535"), std::string::npos);
    EXPECT_NE(refused->message.find("--host-port-range"), std::string::npos);
  }
}

TEST(HostPolicyTest, AdminRangeBoundsBothEnds) {
  TenancyPolicy p;
  p.host_ports = {7000, 7999};
  EXPECT_FALSE(CheckHostPort(p, "s3.port", 7000));
  EXPECT_FALSE(CheckHostPort(p, "s3.port", 7999));
  EXPECT_TRUE(CheckHostPort(p, "s3.port", 6999));
  EXPECT_TRUE(CheckHostPort(p, "s3.port", 8000));
  EXPECT_TRUE(CheckHostPort(p, "rdma.port", 19100));
}

TEST(HostPolicyTest, EveryFormThatReachesTheControlPlaneIsRefused) {
  const TenancyPolicy p;
  const std::vector<Toleration> reaching = {
      Tol("node-role.kubernetes.io/control-plane", TolerationOperator::kExists),
      Tol("node-role.kubernetes.io/control-plane", TolerationOperator::kExists,
          TaintEffect::kNoSchedule),
      Tol("node-role.kubernetes.io/control-plane", TolerationOperator::kEqual, std::nullopt, ""),
      Tol("node-role.kubernetes.io/control-plane", TolerationOperator::kEqual,
          TaintEffect::kNoExecute, "true"),
      Tol("node-role.kubernetes.io/master", TolerationOperator::kExists),
      Tol("node-role.kubernetes.io/master", TolerationOperator::kEqual, TaintEffect::kAll, ""),
      // No key: every taint.
      Tol(std::nullopt, TolerationOperator::kExists),
      Tol("", TolerationOperator::kExists),
      Tol(std::nullopt, TolerationOperator::kExists, TaintEffect::kNoSchedule),
      Tol(std::nullopt, TolerationOperator::kExists, TaintEffect::kNoExecute),
  };
  for (size_t i = 0; i < reaching.size(); ++i) {
    EXPECT_TRUE(ToleratesControlPlane(reaching[i])) << i;
    // Behind a harmless one, at its index.
    std::vector<Toleration> spec = {Tol("nvidia.com/gpu", TolerationOperator::kExists),
                                    reaching[i]};
    auto refused = CheckTolerations(p, "tolerations", spec);
    ASSERT_TRUE(refused) << i;
    EXPECT_EQ(refused->reason, kReasonControlPlaneToleration);
    EXPECT_NE(refused->message.find("tolerations[1]"), std::string::npos) << refused->message;
    EXPECT_NE(refused->message.find("tenancy.allowControlPlaneTolerations"), std::string::npos);
  }
}

TEST(HostPolicyTest, OtherTolerationsAndTheAdminsOptInPass) {
  const TenancyPolicy p;
  const std::vector<Toleration> fine = {
      Tol("nvidia.com/gpu", TolerationOperator::kExists),
      Tol("rdmastack.io/storage", TolerationOperator::kEqual, TaintEffect::kNoSchedule, "true"),
      Tol("node-role.kubernetes.io/control-plane-ish", TolerationOperator::kExists),
      Tol("node.kubernetes.io/not-ready", TolerationOperator::kExists, TaintEffect::kNoExecute),
      // PreferNoSchedule never keeps a pod off a node.
      Tol(std::nullopt, TolerationOperator::kExists, TaintEffect::kPreferNoSchedule),
      Tol("node-role.kubernetes.io/control-plane", TolerationOperator::kExists,
          TaintEffect::kPreferNoSchedule),
  };
  for (size_t i = 0; i < fine.size(); ++i) EXPECT_FALSE(ToleratesControlPlane(fine[i])) << i;
  EXPECT_FALSE(CheckTolerations(p, "tolerations", fine));
  EXPECT_FALSE(CheckTolerations(p, "tolerations", {}));

  TenancyPolicy allowed;
  allowed.allow_control_plane_tolerations = true;
  EXPECT_FALSE(
      CheckTolerations(allowed, "tolerations", {Tol(std::nullopt, TolerationOperator::kExists)}));
}

TEST(HostPolicyTest, MessageSaysWhatTheTolerationIs) {
  auto refused = CheckTolerations(TenancyPolicy{}, "tolerations",
                                  {Tol("node-role.kubernetes.io/master",
                                       TolerationOperator::kExists, TaintEffect::kNoSchedule)});
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("{key: node-role.kubernetes.io/master, operator: Exists, effect: "
                                  "NoSchedule} tolerates the control plane's taint"),
            std::string::npos)
      << refused->message;
  refused = CheckTolerations(TenancyPolicy{}, "tolerations",
                             {Tol(std::nullopt, TolerationOperator::kExists)});
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("{operator: Exists} tolerates every taint"), std::string::npos)
      << refused->message;
}

}  // namespace
}  // namespace rdmastack::controllers
