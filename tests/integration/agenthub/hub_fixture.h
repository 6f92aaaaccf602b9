#pragma once
// What the AgentHub integration tests share: a namespace with the agent ServiceAccount, pods on
// simulated (kwok) nodes and TokenRequest tokens bound to them, a hub on loopback whose API calls
// carry a user agent of their own (so that the audit log tells its writes apart), a recording
// sink, and a gRPC test client that trusts the CA the hub published.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/proto/agenthub.grpc.pb.h"
#include "operator/k8s/client.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/metrics.h"
#include "servers/agenthub/agent_hub.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::agenthub::testing {

namespace pb = ::rdmastack::agent::v1;

inline constexpr const char* kAgentServiceAccount = "rdmastack-agent";
inline constexpr const char* kAudience = "rdmastack-agenthub";

// What the sink heard, in order: "connected <node> <pod>", "report <node> <hash>",
// "heartbeat <node>", "disconnected <node> <pod>".
class RecordingSink final : public AgentEventSink {
 public:
  void OnAgentConnected(const AgentIdentity& id) override;
  void OnReport(const AgentIdentity& id, const pb::NodeReport& report) override;
  void OnPortCounters(const AgentIdentity& id, const pb::PortCounters& counters) override;
  void OnHeartbeat(const AgentIdentity& id, std::chrono::system_clock::time_point at) override;
  void OnAgentDisconnected(const AgentIdentity& id) override;
  std::vector<std::string> Log();
  bool WaitFor(const std::string& line, std::chrono::seconds timeout);
  // Waits for a line starting with `prefix`; returns it ("" on timeout).
  std::string WaitForPrefix(const std::string& prefix, std::chrono::seconds timeout);

 private:
  void Add(std::string line);
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
};

// One test's cluster objects and hub.
class HubFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts the hub with `options` adjusted by `adjust` (namespace, policy and names are set).
  void StartHub(const std::function<void(AgentHubOptions&)>& adjust = {});
  // A pod on `node` running as `service_account`; returns its uid. With `controller`, the pod
  // names that DaemonSet (name, uid) as its controller, as the hub's policy may require, and
  // carries the labels its selector matches.
  struct Controller {
    std::string daemonset, uid;
    std::map<std::string, std::string> labels;
  };
  std::string CreatePod(const std::string& name, const std::string& node,
                        const std::string& service_account = kAgentServiceAccount,
                        const std::optional<Controller>& controller = std::nullopt);
  void CreateServiceAccount(const std::string& name);
  // A TokenRequest token for `service_account`, bound to pod `pod` (uid), for `audience`.
  std::string BoundToken(const std::string& pod, const std::string& uid,
                         const std::string& audience = kAudience,
                         const std::string& service_account = kAgentServiceAccount);
  // The CA bundle from the ConfigMap the hub published.
  std::string PublishedCa();
  std::shared_ptr<grpc::Channel> TlsChannel(const std::string& ca_pem);

  // Two simulated nodes of the cluster.
  std::string node_a_, node_b_;
  const rdmastack::testing::ClusterEnv* env_ = nullptr;
  k8s::ClientPtr admin_;
  k8s::ClientPtr hub_client_;  // user agent hub_user_agent_
  std::string ns_;
  std::string hub_user_agent_;
  runtime::MetricsRegistry metrics_;
  std::unique_ptr<runtime::ApiEventRecorder> events_;
  RecordingSink sink_;
  std::unique_ptr<AgentHub> hub_;
};

// A client stream: Hello, then reads with a deadline.
struct AgentCall {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<pb::AgentHub::Stub> stub;
  std::unique_ptr<grpc::ClientReaderWriter<pb::AgentMessage, pb::HubMessage>> stream;

  static AgentCall Open(const std::shared_ptr<grpc::Channel>& channel, const std::string& node,
                        const std::string& token);
  bool Read(pb::HubMessage* m) { return stream->Read(m); }
  // Reads until the stream ends; returns its status.
  grpc::Status Drain();
};

pb::AgentMessage Report(const std::string& node, const std::string& hash);

}  // namespace rdmastack::agenthub::testing
