// The hub's streams in-process, over TLS on loopback, with an API server faked at the client
// interface (Secrets, ConfigMaps, Pods, TokenReviews): replacement races, requirement pushes,
// limits, the Hello deadline and shutdown. Built under ThreadSanitizer too.
#include "servers/agenthub/agent_hub.h"

#include <absl/synchronization/mutex.h>
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <thread>

#include "agents/node-agent/transport/grpc_stream.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/runtime/testing/silent_peers.h"

namespace rdmastack::agenthub {
namespace {

namespace pb = agent::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kNs[] = "rdmastack-system";

// The API server in memory: the agent pods the test registers, and TokenReviews, where token
// "NODE/POD" authenticates the agent ServiceAccount bound to POD on NODE.
class FakeApi {
 public:
  FakeApi() {
    client.Answer("create", "TokenReview",
                  [this](const k8s::JsonObject& review) { return Review(review); });
  }

  void AddPod(const std::string& name, const std::string& node) {
    k8s::JsonObject pod;
    pod.SetName(name);
    pod.SetNamespace(kNs);
    (void)pod.SetString({"metadata", "uid"}, "uid-" + name);
    (void)pod.SetString({"spec", "nodeName"}, node);
    ASSERT_TRUE(client.Put(k8s::kinds::Pod(), pod).ok());
  }

  k8s::testing::FakeClient client;
  std::atomic<int> reviews{0};
  std::function<void()> before_review;  // set before the hub starts

 private:
  StatusOr<k8s::JsonObject> Review(const k8s::JsonObject& review) {
    ++reviews;
    if (before_review) before_review();
    const std::string token = review.GetString({"spec", "token"}).value_or("");
    const size_t slash = token.find('/');
    auto out = *k8s::JsonObject::Parse(R"({"status": {"authenticated": false,
      "error": "invalid bearer token"}})");
    if (slash == std::string::npos) return out;
    const std::string node = token.substr(0, slash), pod = token.substr(slash + 1);
    out = *k8s::JsonObject::Parse(R"({"status": {"authenticated": true,
      "audiences": ["rdmastack-agenthub"],
      "user": {"username": "system:serviceaccount:rdmastack-system:rdmastack-agent"}}})");
    auto one = [](const std::string& v) { return *k8s::JsonObject::Parse("[\"" + v + "\"]"); };
    (void)out.Set({"status", "user", "extra", "authentication.kubernetes.io/pod-name"}, one(pod));
    (void)out.Set({"status", "user", "extra", "authentication.kubernetes.io/pod-uid"},
                  one("uid-" + pod));
    (void)out.Set({"status", "user", "extra", "authentication.kubernetes.io/node-name"}, one(node));
    return out;
  }
};

class NoEvents final : public runtime::EventRecorder {
 public:
  void Record(const k8s::JsonObject& regarding, runtime::EventType, const std::string& reason,
              const std::string&, const std::string&) override {
    std::lock_guard<std::mutex> l(mu);
    recorded.push_back(reason + " " + std::string(regarding.Name()));
  }
  std::mutex mu;
  std::vector<std::string> recorded;
};

// Checks the sink's contract per node: connects and disconnects alternate.
class CheckingSink final : public AgentEventSink {
 public:
  void OnAgentConnected(const AgentIdentity& id) override {
    std::lock_guard<std::mutex> l(mu);
    if (connected[id.node_name]) ++violations;
    connected[id.node_name] = true;
    ++connects;
  }
  void OnReport(const AgentIdentity& id, const pb::NodeReport&) override {
    std::lock_guard<std::mutex> l(mu);
    if (!connected[id.node_name]) ++violations;
    ++reports;
  }
  void OnPortCounters(const AgentIdentity& id, const pb::PortCounters&) override {
    std::lock_guard<std::mutex> l(mu);
    if (!connected[id.node_name]) ++violations;
    ++counter_samples;
  }
  void OnHeartbeat(const AgentIdentity&, std::chrono::system_clock::time_point) override {}
  void OnAgentDisconnected(const AgentIdentity& id) override {
    std::lock_guard<std::mutex> l(mu);
    if (!connected[id.node_name]) ++violations;
    connected[id.node_name] = false;
  }
  std::mutex mu;
  std::map<std::string, bool> connected;
  int violations = 0, connects = 0, reports = 0, counter_samples = 0;
};

using runtime::testing::SilentPeers;

class AgentHubTest : public ::testing::Test {
 protected:
  void Start(const std::function<void(AgentHubOptions&)>& adjust = {}) {
    AgentHubOptions o;
    o.listen_address = "127.0.0.1:0";
    o.policy.service_account_namespace = kNs;
    o.policy.service_account_name = "rdmastack-agent";
    o.certificates.namespace_ = kNs;
    o.certificates.hosts = {"127.0.0.1"};
    if (adjust) adjust(o);
    hub_ = std::make_unique<AgentHub>(api_.client, api_.client, events_, metrics_, sink_,
                                      RealClock::Instance(), o);
    Status s = hub_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = hub_->certificates().ca_pem();
    creds_ = grpc::SslCredentials(ssl);
  }

  struct Call {
    grpc::ClientContext context;
    std::unique_ptr<pb::AgentHub::Stub> stub;
    std::unique_ptr<grpc::ClientReaderWriter<pb::AgentMessage, pb::HubMessage>> stream;
    grpc::Status Drain() {
      pb::HubMessage m;
      while (stream->Read(&m)) {
      }
      return stream->Finish();
    }
  };
  std::unique_ptr<Call> Open(const std::string& token, const std::string& node, bool hello = true) {
    auto call = std::make_unique<Call>();
    call->context.set_deadline(std::chrono::system_clock::now() + seconds(30));
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    call->stub = pb::AgentHub::NewStub(
        grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(hub_->port()), creds_, args));
    call->stream = call->stub->Connect(&call->context);
    if (hello) {
      pb::AgentMessage m;
      m.mutable_hello()->set_node_name(node);
      m.mutable_hello()->set_token(token);
      call->stream->Write(m);
    }
    return call;
  }
  static pb::AgentMessage Report(const std::string& node, const std::string& hash) {
    pb::AgentMessage m;
    m.mutable_report()->set_node_name(node);
    m.mutable_report()->set_content_hash(hash);
    return m;
  }
  std::string Metrics() { return metrics_.Render(); }

  FakeApi api_;
  NoEvents events_;
  runtime::MetricsRegistry metrics_;
  CheckingSink sink_;
  std::unique_ptr<AgentHub> hub_;
  std::shared_ptr<grpc::ChannelCredentials> creds_;
};

TEST_F(AgentHubTest, RacingStreamsForOneNodeLeaveOneConnectedAndTheSinkConsistent) {
  api_.AddPod("agent-1", "node-1");
  // Twenty connections from this test's one address, up to eight at once.
  ASSERT_NO_FATAL_FAILURE(
      Start([](AgentHubOptions& o) { o.connections.max_connections_per_address = 0; }));
  std::atomic<bool> done{false};
  std::thread publisher([&] {
    for (int i = 0; !done; ++i) {
      pb::Requirements r;
      r.set_gateway(i % 2 == 0);
      hub_->Publish("node-1", r);
      std::this_thread::sleep_for(milliseconds(1));
    }
  });
  std::vector<std::thread> agents;
  std::mutex mu;
  std::vector<std::unique_ptr<Call>> survivors;
  for (int t = 0; t < 4; ++t) {
    agents.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        auto call = Open("node-1/agent-1", "node-1");
        pb::HubMessage m;
        if (call->stream->Read(&m) && m.has_ack()) {
          call->stream->Write(Report("node-1", "h" + std::to_string(t * 10 + i)));
        }
        if (i == 4) {
          std::lock_guard<std::mutex> l(mu);
          survivors.push_back(std::move(call));
        } else {
          call->context.TryCancel();
          (void)call->Drain();
        }
      }
    });
  }
  for (auto& a : agents) a.join();
  done = true;
  publisher.join();
  // Of the four streams left open, the newest is the node's; the others were replaced.
  int aborted = 0;
  ASSERT_EQ(hub_->connected_agents(), 1u);
  hub_->Stop();
  for (auto& call : survivors) {
    const grpc::Status s = call->Drain();
    aborted += s.error_code() == grpc::StatusCode::ABORTED;
    EXPECT_TRUE(s.error_code() == grpc::StatusCode::ABORTED ||
                s.error_code() == grpc::StatusCode::UNAVAILABLE)
        << s.error_code() << " " << s.error_message();
  }
  EXPECT_EQ(aborted, 3);
  std::lock_guard<std::mutex> l(sink_.mu);
  EXPECT_EQ(sink_.violations, 0);
  EXPECT_EQ(sink_.connects, 20);
  EXPECT_FALSE(sink_.connected["node-1"]);
  EXPECT_EQ(api_.reviews, 1) << "one token, one review";
}

TEST_F(AgentHubTest, TooManyReportsEndTheStreamWithResourceExhausted) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) { o.streams.reports_per_minute = 3; }));
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  for (int i = 0; i < 4; ++i) call->stream->Write(Report("node-1", std::to_string(i)));
  int acks = 0;
  while (call->stream->Read(&m)) acks += m.has_ack();
  const grpc::Status s = call->stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("more than 3 reports in a minute"), std::string::npos);
  // The refusal ends the stream at once: acks of the first three still queued behind a write in
  // flight are dropped with it (the agent resends on its next stream), so up to three arrive.
  EXPECT_LE(acks, 3);
  EXPECT_NE(
      Metrics().find(R"(rdmastack_agenthub_streams_refused_total{reason="ReportRateExceeded"} 1)"),
      std::string::npos);
}

// Port counters reach the sink apart from reports, under their own rate budget, and a sample
// larger than any server's ports could fill is refused.
TEST_F(AgentHubTest, PortCountersReachTheSinkAndABloatedSampleIsRefused) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) { o.streams.reports_per_minute = 3; }));
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  auto counters = [](int ports) {
    pb::AgentMessage out;
    for (int i = 0; i < ports; ++i) {
      auto* set = out.mutable_port_counters()->add_ports();
      set->set_device("mlx5_" + std::to_string(i));
      set->set_port(1);
      for (int c = 0; c < 10; ++c) {
        auto* counter = set->add_counters();
        counter->set_name("port_xmit_data_" + std::to_string(c));
        counter->set_value(1ull << 40);
      }
    }
    return out;
  };
  // Three reports and three samples: each within its own budget of three a minute.
  for (int i = 0; i < 3; ++i) {
    call->stream->Write(Report("node-1", std::to_string(i)));
    call->stream->Write(counters(2));
  }
  call->stream->Write(counters(400));  // some 130 KiB
  const grpc::Status s = call->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("port counters of"), std::string::npos) << s.error_message();
  std::lock_guard<std::mutex> l(sink_.mu);
  EXPECT_EQ(sink_.reports, 3);
  EXPECT_EQ(sink_.counter_samples, 3);
  EXPECT_EQ(sink_.violations, 0);
}

TEST_F(AgentHubTest, AReportForAnotherNodeIsRefused) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start());
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  call->stream->Write(Report("node-2", "x"));
  const grpc::Status s = call->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(s.error_message().find("a report for node node-2"), std::string::npos);
}

TEST_F(AgentHubTest, NoHelloInTimeEndsTheStream) {
  ASSERT_NO_FATAL_FAILURE(
      Start([](AgentHubOptions& o) { o.streams.hello_timeout = milliseconds(300); }));
  auto call = Open("", "", /*hello=*/false);
  const grpc::Status s = call->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  EXPECT_NE(s.error_message().find("no Hello"), std::string::npos);
}

// A peer that never sends a whole Hello (a message head announcing 512 KiB, then 1 KiB of it)
// holds its stream no longer than one that sends nothing: the Hello deadline ends it.
TEST_F(AgentHubTest, AHelloThatNeverFinishesEndsAtTheHelloDeadline) {
  ASSERT_NO_FATAL_FAILURE(
      Start([](AgentHubOptions& o) { o.streams.hello_timeout = milliseconds(300); }));
  agent::transport::GrpcStreamOptions options;
  options.address = "127.0.0.1:" + std::to_string(hub_->port());
  options.ca_pem = hub_->certificates().ca_pem();
  options.method_path = "/rdmastack.agent.v1.AgentHub/Connect";
  options.user_agent = "unfinished-hello";
  auto stream = agent::transport::GrpcBidiStream::Open(options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::string head = {0, 0, 8, 0, 0};  // uncompressed, 512 KiB
  ASSERT_TRUE((*stream)->WriteUnframed(head + std::string(1024, 'x')));
  const auto start = std::chrono::steady_clock::now();
  const Status s = (*stream)->Finish();
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("no Hello"), std::string::npos) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
}

// One pod that opens connections and never starts TLS gets its address's share (8 by default):
// the next is closed at once, before any handshake, and an agent from another address is served
// meanwhile. Before the per-address limit, each stayed open for the 10 s handshake timeout.
TEST_F(AgentHubTest, ConnectionsFromOneAddressOverItsShareAreClosedBeforeTls) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start());
  SilentPeers pod("127.0.0.2", hub_->port(), 9);
  EXPECT_TRUE(pod.Closed(8, seconds(2))) << "the ninth from one address";
  EXPECT_FALSE(pod.Closed(0, milliseconds(0))) << "its share stays until the handshake timeout";
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  EXPECT_TRUE(m.has_ack());
  EXPECT_NE(Metrics().find(R"(rdmastack_listener_connections_refused_total{listener="agenthub",)"
                           R"(reason="max_connections_per_address"} 1)"),
            std::string::npos)
      << Metrics();
}

// The total counts every address; a connection gRPC closed frees its slot for the next peer.
TEST_F(AgentHubTest, TheConnectionLimitCountsEveryAddressAndFreesWhatGrpcClosed) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    o.connections = {.max_connections = 3, .max_connections_per_address = 0};
  }));
  SilentPeers a("127.0.0.2", hub_->port(), 2);
  SilentPeers b("127.0.0.3", hub_->port(), 2);
  EXPECT_TRUE(b.Closed(1, seconds(2))) << "a fourth connection, from any address";
  EXPECT_FALSE(a.Closed(0, milliseconds(0)));
  EXPECT_NE(Metrics().find(R"(rdmastack_listener_connections_refused_total{listener="agenthub",)"
                           R"(reason="max_connections"} 1)"),
            std::string::npos)
      << Metrics();
  // The peer goes; gRPC ends its handshake and closes the socket, and an agent gets the slot.
  a.Hangup(0);
  bool accepted = false;
  for (int i = 0; i < 50 && !accepted; ++i) {
    auto call = Open("node-1/agent-1", "node-1");
    pb::HubMessage m;
    accepted = call->stream->Read(&m) && m.has_ack();
    if (!accepted) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_TRUE(accepted) << Metrics();
}

TEST_F(AgentHubTest, AMessageOverTheLimitIsRefusedByGrpc) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) { o.max_message_bytes = 64 * 1024; }));
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  pb::AgentMessage big = Report("node-1", "big");
  big.mutable_report()->mutable_host()->set_kernel_release(std::string(100 * 1024, 'x'));
  call->stream->Write(big);
  const grpc::Status s = call->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  std::lock_guard<std::mutex> l(sink_.mu);
  EXPECT_EQ(sink_.reports, 0);
}

TEST_F(AgentHubTest, ASilentPeerIsClosedAfterTheHandshakeTimeoutAStreamlessOneWhenIdle) {
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    o.handshake_timeout = milliseconds(500);
    o.connection_idle = milliseconds(500);
  }));
  // A TCP peer that never starts its TLS handshake: the hub closes it (EOF) well before the
  // 10 s this socket waits; gRPC's default would wait 120 s.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(hub_->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  timeval wait{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  char byte = 0;
  EXPECT_EQ(::recv(fd, &byte, 1, 0), 0) << "closed by the hub, not by our own timeout";
  ::close(fd);

  // A TLS connection that opens no stream: closed once idle (the channel leaves READY).
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel =
      grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(hub_->port()), creds_, args);
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + seconds(5)));
  bool left_ready = false;
  for (int i = 0; i < 100 && !left_ready; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
    left_ready = channel->GetState(false) != GRPC_CHANNEL_READY;
  }
  EXPECT_TRUE(left_ready) << "the idle connection was not closed";
}

TEST_F(AgentHubTest, RefusalsRecordAWarningEventOnTheClaimedNode) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start());
  auto liar = Open("node-1/agent-1", "node-2");
  EXPECT_EQ(liar->Drain().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  auto garbage = Open("garbage", "node-3");
  EXPECT_EQ(garbage->Drain().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  std::lock_guard<std::mutex> l(events_.mu);
  EXPECT_EQ(events_.recorded,
            (std::vector<std::string>{"NodeMismatch node-2", "TokenRejected node-3"}));
}

// A Hello is checked before anything reads it: a node name of a megabyte (a message within the
// gRPC limit, sent before any authentication) is refused without a TokenReview, a Warning
// Event or an echo of the name, and a name that is no node name likewise.
TEST_F(AgentHubTest, AMalformedHelloIsRefusedBeforeItIsReviewedLoggedOrRecorded) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start());
  auto huge = Open("node-1/agent-1", std::string(512 << 10, 'n'));
  grpc::Status s = huge->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "Hello.node_name is 524288 bytes, over the limit of 253");
  auto odd = Open("node-1/agent-1", "Node_1");
  s = odd->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("not a Kubernetes node name"), std::string::npos);
  EXPECT_EQ(api_.reviews.load(), 0);
  {
    std::lock_guard<std::mutex> l(events_.mu);
    EXPECT_TRUE(events_.recorded.empty());
  }
  EXPECT_NE(
      Metrics().find(R"(rdmastack_agenthub_streams_refused_total{reason="MalformedHello"} 2)"),
      std::string::npos)
      << Metrics();
  // A well-formed agent still gets in.
  auto good = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  EXPECT_TRUE(good->stream->Read(&m));
}

// A peer that sends Hellos with made-up tokens: its first refusals are reviewed as usual (a
// TokenReview, a log line, a Warning Event each), then its address is throttled: later Hellos are
// refused RESOURCE_EXHAUSTED at once, without a review or an Event. An agent already connected
// from the same address is untouched.
TEST_F(AgentHubTest, AFloodOfBadHellosFromOneAddressIsThrottledWithoutReviews) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    o.streams.per_address.max_pending = 2;
    o.streams.per_address.max_failures_per_minute = 5;
  }));
  auto good = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(good->stream->Read(&m));
  const int reviews_before = api_.reviews.load();
  std::map<grpc::StatusCode, int> codes;
  for (int i = 0; i < 40; ++i) {
    auto bad = Open("made-up-" + std::to_string(i), "node-" + std::to_string(i % 3));
    ++codes[bad->Drain().error_code()];
  }
  EXPECT_EQ(codes[grpc::StatusCode::UNAUTHENTICATED], 5);
  EXPECT_EQ(codes[grpc::StatusCode::RESOURCE_EXHAUSTED], 35);
  EXPECT_EQ(api_.reviews.load() - reviews_before, 5)
      << "one review per refusal before the throttle";
  {
    std::lock_guard<std::mutex> l(events_.mu);
    EXPECT_EQ(events_.recorded.size(), 5u);
  }
  EXPECT_NE(
      Metrics().find(R"(rdmastack_agenthub_streams_refused_total{reason="AddressThrottled"} 35)"),
      std::string::npos)
      << Metrics();
  // The connected agent still speaks.
  good->stream->Write(Report("node-1", "after-flood"));
  ASSERT_TRUE(good->stream->Read(&m));
  EXPECT_EQ(m.ack().report_hash(), "after-flood");
}

// The node's agent and whatever else runs on its host network (a tenant's gateway, an init
// container) share one address. A neighbour that fails Hellos from it has the address throttled,
// but the node's agent, accepted before, reconnects (its stream dropped) and is accepted again,
// while the neighbour's next Hello is still refused unreviewed.
TEST_F(AgentHubTest, ANeighbourOnTheAgentsAddressCannotLockTheAgentOut) {
  api_.AddPod("agent-1", "node-1");
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    o.streams.per_address.max_pending = 2;
    o.streams.per_address.max_failures_per_minute = 5;
  }));
  pb::HubMessage m;
  {
    auto first = Open("node-1/agent-1", "node-1");
    ASSERT_TRUE(first->stream->Read(&m));
    first->context.TryCancel();
    first->Drain();
  }
  for (int i = 0; i < 10; ++i) Open("made-up-" + std::to_string(i), "node-1")->Drain();
  EXPECT_EQ(Open("made-up-last", "node-1")->Drain().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  auto again = Open("node-1/agent-1", "node-1");
  ASSERT_TRUE(again->stream->Read(&m)) << again->Drain().error_message();
  EXPECT_TRUE(m.has_ack());
  EXPECT_EQ(Open("made-up-after", "node-1")->Drain().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(AgentHubTest, StopEndsConnectedStreamsWithUnavailable) {
  api_.AddPod("agent-1", "node-1");
  // ":port", as the operator's --agent-bind-address is written, listens on every address.
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) { o.listen_address = ":0"; }));
  auto call = Open("node-1/agent-1", "node-1");
  pb::HubMessage m;
  ASSERT_TRUE(call->stream->Read(&m));
  hub_->Stop();
  const grpc::Status s = call->Drain();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(s.error_message().find("shutting down"), std::string::npos);
  std::lock_guard<std::mutex> l(sink_.mu);
  EXPECT_FALSE(sink_.connected["node-1"]);
}

TEST_F(AgentHubTest, StopAnswersQueuedHellosInsteadOfReviewingThem) {
  // One authentication thread, held in its first TokenReview while more Hellos queue behind it:
  // Stop must not work through the backlog (it would hold the lease release past the grace
  // period), only finish the review under way.
  constexpr int kAgents = 12;
  for (int i = 0; i < kAgents; ++i)
    api_.AddPod("agent-" + std::to_string(i), "node-" + std::to_string(i));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  api_.before_review = [released] { released.wait(); };
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    o.auth_threads = 1;
    // Twelve agents share this test's one address.
    o.streams.per_address.max_pending = 0;
    o.connections.max_connections_per_address = 0;
  }));
  std::vector<std::unique_ptr<Call>> calls;
  for (int i = 0; i < kAgents; ++i) {
    calls.push_back(Open("node-" + std::to_string(i) + "/agent-" + std::to_string(i),
                         "node-" + std::to_string(i)));
  }
  auto waited = [](const std::function<bool()>& done) {
    for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(milliseconds(10));
    return done();
  };
  ASSERT_TRUE(waited(
      [&] { return api_.reviews.load() == 1 && hub_->queued_authentications() == kAgents - 1; }));
  std::thread stopper([&] { hub_->Stop(); });
  ASSERT_TRUE(waited([&] { return hub_->shutting_down(); }));
  release.set_value();
  stopper.join();
  EXPECT_EQ(api_.reviews.load(), 1);
  int unavailable = 0;
  for (auto& call : calls) {
    const grpc::Status s = call->Drain();
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) ++unavailable;
  }
  EXPECT_EQ(unavailable, kAgents);
  EXPECT_NE(
      Metrics().find(R"(rdmastack_agenthub_streams_refused_total{reason="HubShuttingDown"} )" +
                     std::to_string(kAgents - 1)),
      std::string::npos)
      << Metrics();
}

// Debian's Abseil keeps a global lock-order graph on every Mutex lock (deadlock detection, a
// debugging aid), which cost the hub ~16% of its CPU under heartbeats; Start() turns it off.
// A lock-order inversion (A then B, later B then A, never at once) shows which mode is on: with
// detection it aborts with "Potential Mutex deadlock".
void InvertLockOrder() {
  absl::Mutex a, b;
  a.Lock();
  b.Lock();
  b.Unlock();
  a.Unlock();
  b.Lock();
  a.Lock();
  a.Unlock();
  b.Unlock();
}

TEST_F(AgentHubTest, StartTurnsOffAbseilsMutexDeadlockDetection) {
  // The hub's gRPC threads run when the checks fork: the child re-runs the test instead.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // This Abseil detects the inversion when detection is on (else the check below proves nothing).
  EXPECT_DEATH(
      {
        absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
        InvertLockOrder();
      },
      "Potential Mutex deadlock");
  ASSERT_NO_FATAL_FAILURE(Start());
  // _Exit, not exit: the child's hub threads still run, and exit's static destructors would
  // pull the clock they use from under them.
  EXPECT_EXIT(
      {
        InvertLockOrder();
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// The hub's gRPC buffers, all connections together, stay within its ResourceQuota: a thousand
// idle agents (gRPC counts about 26-33 KiB for each connection with its stream) do not fit in
// 16 MiB, so gRPC cuts streams instead of growing past it. Without the quota all are served.
TEST_F(AgentHubTest, GrpcHoldsNoMoreThanItsMemoryQuota) {
  constexpr int kAgents = 1000;
  for (int i = 0; i < kAgents; ++i)
    api_.AddPod("agent-" + std::to_string(i), "node-" + std::to_string(i));
  ASSERT_NO_FATAL_FAILURE(Start([](AgentHubOptions& o) {
    // A thousand agents share this test's one address.
    o.streams.per_address.max_pending = 0;
    o.connections = {.max_connections = 100'000, .max_connections_per_address = 0};
    o.memory_quota_bytes = 16u << 20;
  }));
  std::vector<std::unique_ptr<Call>> calls;
  for (int i = 0; i < kAgents; ++i) {
    const std::string n = std::to_string(i);
    calls.push_back(Open("node-" + n + "/agent-" + n, "node-" + n));
  }
  int acked = 0;
  for (auto& call : calls) {
    pb::HubMessage m;
    acked += call->stream->Read(&m) && m.has_ack();
  }
  EXPECT_GT(acked, 0);
  EXPECT_LT(acked, kAgents) << "all served within 16 MiB: is the quota set?";
  hub_->Stop();
}

}  // namespace
}  // namespace rdmastack::agenthub
