#include "operator/cmd/operator_options.h"

#include <gtest/gtest.h>

namespace rdmastack::operator_cmd {
namespace {

using namespace std::chrono_literals;

TEST(OperatorOptionsTest, DefaultsAreKubebuilders) {
  auto o = ParseOperatorOptions({});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_FALSE(o->leader_elect);
  EXPECT_EQ(o->metrics_bind_address, ":8443");
  EXPECT_TRUE(o->metrics_secure);
  EXPECT_EQ(o->health_probe_bind_address, ":8081");
  EXPECT_EQ(o->agent_bind_address, ":9443");
  EXPECT_EQ(o->lease_duration, 15s);
  EXPECT_EQ(o->renew_deadline, 10s);
  EXPECT_EQ(o->retry_period, 2s);
  EXPECT_EQ(o->log_format, LogFormat::kText);
}

TEST(OperatorOptionsTest, BothValueSpellingsAndBareBooleans) {
  auto o = ParseOperatorOptions(
      {"--kubeconfig", "/k", "--leader-elect", "--metrics-secure=false",
       "--leader-election-id=my-lock", "--log-format", "json", "--metrics-bind-address=0",
       "--health-probe-bind-address", "127.0.0.1:0", "--leader-election-lease-duration=4s",
       "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_TRUE(o->leader_elect);
  EXPECT_FALSE(o->metrics_secure);
  EXPECT_EQ(o->leader_election_id, "my-lock");
  EXPECT_EQ(o->log_format, LogFormat::kJson);
  EXPECT_EQ(o->metrics_bind_address, "0");
  EXPECT_EQ(o->health_probe_bind_address, "127.0.0.1:0");
  EXPECT_EQ(o->lease_duration, 4s);
  EXPECT_EQ(o->renew_deadline, 3s);
  EXPECT_EQ(o->retry_period, 500ms);
}

// Every bad flag or value is one line that names the flag.
TEST(OperatorOptionsTest, BadInputNamesTheFlag) {
  struct Case {
    std::vector<std::string> args;
    const char* names;
  };
  const Case cases[] = {
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--log-format", "xml"}, "--log-format"},
      {{"--log-level=loud"}, "--log-level"},
      {{"--leader-elect=maybe"}, "--leader-elect"},
      {{"--metrics-bind-address", "localhost"}, "--metrics-bind-address"},
      {{"--agent-bind-address=0"}, "--agent-bind-address"},
      {{"--leader-election-lease-duration", "fast"}, "--leader-election-lease-duration"},
      {{"--leader-election-retry-period=0s"}, "--leader-election-retry-period"},
      {{"--leader-election-lease-duration=5s"}, "--leader-election-renew-deadline"},
      {{"--leader-election-retry-period=9s"}, "--leader-election-retry-period"},
      {{"--kubeconfig"}, "--kubeconfig"},
      {{"--kubeconfig="}, "--kubeconfig"},
      {{"stray"}, "stray"},
  };
  for (const Case& c : cases) {
    auto o = ParseOperatorOptions(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_NE(o.status().message().find(c.names), std::string::npos) << o.status().message();
    EXPECT_EQ(o.status().message().find('\n'), std::string::npos) << o.status().message();
  }
}

TEST(OperatorOptionsTest, HelpAndVersion) {
  EXPECT_TRUE(ParseOperatorOptions({"--help"})->show_help);
  EXPECT_TRUE(ParseOperatorOptions({"-h"})->show_help);
  EXPECT_TRUE(ParseOperatorOptions({"--version"})->show_version);
  for (const char* flag : {"--kubeconfig", "--leader-elect", "--leader-election-namespace",
                           "--leader-election-id", "--metrics-bind-address", "--metrics-secure",
                           "--metrics-cert-dir", "--health-probe-bind-address",
                           "--agent-bind-address", "--log-level", "--log-format", "--version"}) {
    EXPECT_NE(std::string(kOperatorUsage).find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace rdmastack::operator_cmd
