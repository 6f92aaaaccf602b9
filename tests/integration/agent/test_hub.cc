#include "tests/integration/agent/test_hub.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

namespace rdmastack::agent::testing {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

bool TestPki::Make(const std::string& name) {
  dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
  std::ofstream(dir / "ext.cnf") << "subjectAltName=DNS:agenthub.test,IP:127.0.0.1\n";
  // One redirection for the whole chain: openssl req prints "-----" progress lines.
  const std::string cmd =
      "(cd " + dir.string() + " && openssl req -x509" + ec +
      "-keyout ca.key -out ca.pem -days 1 -subj /CN=test-ca && openssl req" + ec +
      "-keyout hub.key -out hub.csr -subj /CN=agenthub.test && openssl x509 -req -in hub.csr"
      " -CA ca.pem -CAkey ca.key -CAcreateserial -out hub.pem -days 1 -extfile ext.cnf)"
      " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return false;
  ca = Slurp(dir / "ca.pem");
  cert = Slurp(dir / "hub.pem");
  key = Slurp(dir / "hub.key");
  std::ofstream(dir / "token") << "test-token-123\n";
  return !ca.empty() && !cert.empty() && !key.empty();
}

grpc::Status FakeHub::Connect(grpc::ServerContext* ctx,
                              grpc::ServerReaderWriter<pb::HubMessage, pb::AgentMessage>* stream) {
  pb::AgentMessage first;
  if (!stream->Read(&first) || !first.has_hello()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "first message must be Hello"};
  }
  Record(first);
  if (first.hello().token() != "test-token-123")
    return {grpc::StatusCode::UNAUTHENTICATED, "bad token"};
  pb::HubMessage ack;
  ack.mutable_ack()->set_heartbeat_seconds(1);
  stream->Write(ack);
  bool done = false;
  std::thread writer([&] {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return done || !outbox_.empty(); });
      if (done) return;
      pb::HubMessage m = outbox_.front();
      outbox_.pop_front();
      lock.unlock();
      stream->Write(m);
      lock.lock();
    }
  });
  pb::AgentMessage msg;
  while (!ctx->IsCancelled() && stream->Read(&msg)) Record(msg);
  {
    std::lock_guard<std::mutex> lock(mu_);
    done = true;
    cv_.notify_all();
  }
  writer.join();
  return grpc::Status::OK;
}

void FakeHub::Send(const pb::HubMessage& m) {
  std::lock_guard<std::mutex> lock(mu_);
  outbox_.push_back(m);
  cv_.notify_all();
}

bool FakeHub::WaitFor(const std::function<bool(const std::vector<pb::AgentMessage>&)>& pred,
                      std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return pred(log_); });
}

std::vector<pb::AgentMessage> FakeHub::Log() {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

void FakeHub::Record(const pb::AgentMessage& m) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(m);
  cv_.notify_all();
}

std::unique_ptr<grpc::Server> StartHub(const TestPki& pki, FakeHub* hub, int* port) {
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({pki.key, pki.cert});
  grpc::ServerBuilder b;
  b.AddListeningPort("127.0.0.1:" + std::to_string(*port), grpc::SslServerCredentials(ssl), port);
  b.RegisterService(hub);
  return b.BuildAndStart();
}

int Count(const std::vector<pb::AgentMessage>& log, pb::AgentMessage::BodyCase body) {
  int n = 0;
  for (const auto& m : log) n += m.body_case() == body;
  return n;
}

pb::AgentMessage LastOf(const std::vector<pb::AgentMessage>& log, pb::AgentMessage::BodyCase body) {
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->body_case() == body) return *it;
  }
  return {};
}

}  // namespace rdmastack::agent::testing
