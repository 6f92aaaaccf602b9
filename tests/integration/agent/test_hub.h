#pragma once
// An in-test AgentHub: a TLS gRPC server on loopback with a CA and certificate made by openssl
// for each run. Used by the agent's integration test and its benchmark.

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agents/proto/agenthub.grpc.pb.h"

namespace rdmastack::agent::testing {

namespace pb = ::rdmastack::agent::v1;

// A CA and a hub certificate for "agenthub.test" / 127.0.0.1, plus a token file ("test-token-123").
struct TestPki {
  std::filesystem::path dir;
  std::string ca, cert, key;
  bool Make(const std::string& name);
};

// Records what agents send (first message must be Hello with token "test-token-123"); pushes
// HubMessages down the stream.
class FakeHub final : public pb::AgentHub::Service {
 public:
  grpc::Status Connect(grpc::ServerContext* ctx,
                       grpc::ServerReaderWriter<pb::HubMessage, pb::AgentMessage>* stream) override;
  void Send(const pb::HubMessage& m);
  // Waits until pred(log) holds or the timeout passes.
  bool WaitFor(const std::function<bool(const std::vector<pb::AgentMessage>&)>& pred,
               std::chrono::milliseconds timeout);
  std::vector<pb::AgentMessage> Log();

 private:
  void Record(const pb::AgentMessage& m);
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<pb::AgentMessage> log_;
  std::deque<pb::HubMessage> outbox_;
};

// Listens on 127.0.0.1:*port (0 = pick one; the chosen port is written back).
std::unique_ptr<grpc::Server> StartHub(const TestPki& pki, FakeHub* hub, int* port);

int Count(const std::vector<pb::AgentMessage>& log, pb::AgentMessage::BodyCase body);

// The last message of that kind (heartbeats interleave with reports); an empty one if none.
pb::AgentMessage LastOf(const std::vector<pb::AgentMessage>& log, pb::AgentMessage::BodyCase body);

}  // namespace rdmastack::agent::testing
