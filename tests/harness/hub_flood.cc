#include "tests/harness/hub_flood.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "agents/proto/agenthub.grpc.pb.h"

namespace rdmastack::testing {
namespace {

namespace pb = agent::v1;

std::shared_ptr<grpc::Channel> NewConnection(const HubFloodOptions& o) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = o.ca_pem;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
  if (!o.server_name.empty()) args.SetSslTargetNameOverride(o.server_name);
  return grpc::CreateCustomChannel(o.host + ":" + std::to_string(o.port), grpc::SslCredentials(ssl),
                                   args);
}

}  // namespace

HubFlood::~HubFlood() {
  StopHellos();
  for (int fd : sockets_) ::close(fd);
}

void HubFlood::Start() {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(options_.port);
  ::inet_pton(AF_INET, options_.host.c_str(), &addr.sin_addr);
  for (int i = 0; i < options_.silent_sockets; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd);
      continue;
    }
    sockets_.push_back(fd);
  }
  for (int t = 0; t < options_.hello_threads; ++t)
    threads_.emplace_back([this, t] { SendHellos(t); });
  // Connected one after another beside the Hellos: each is a full TLS handshake.
  for (int i = 0; i < options_.idle_channels; ++i) {
    auto channel = NewConnection(options_);
    if (channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10)))
      ++idle_connected_;
    idle_.push_back(std::move(channel));
  }
}

void HubFlood::StopHellos() {
  stop_ = true;
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void HubFlood::SendHellos(int thread) {
  std::mt19937_64 random(static_cast<uint64_t>(thread) * 7919 + 1);
  auto channel = NewConnection(options_);
  auto stub = pb::AgentHub::NewStub(channel);
  // Thread 0 sends node names of 900 KiB (inside the 1 MiB message limit); the others made-up
  // tokens claiming the real nodes, each token new (so no review cache helps).
  const std::string huge(900 * 1024, 'n');
  for (uint64_t i = 0; !stop_; ++i) {
    pb::AgentMessage hello;
    if (thread == 0) {
      hello.mutable_hello()->set_node_name(huge);
    } else if (!options_.node_names.empty()) {
      hello.mutable_hello()->set_node_name(options_.node_names[i % options_.node_names.size()]);
    }
    hello.mutable_hello()->set_agent_version("0.0.0-flood");
    hello.mutable_hello()->set_token("eyJhbGciOiJSUzI1NiJ9." + std::to_string(random()) + "." +
                                     std::to_string(random()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    auto stream = stub->Connect(&context);
    stream->Write(hello);
    stream->WritesDone();
    pb::HubMessage in;
    while (stream->Read(&in)) {
    }
    const grpc::Status status = stream->Finish();
    ++hellos_;
    {
      std::lock_guard<std::mutex> l(mu_);
      ++codes_[status.error_code()];
    }
    std::this_thread::sleep_for(options_.hello_interval);
  }
}

std::map<grpc::StatusCode, int> HubFlood::HelloCodes() const {
  std::lock_guard<std::mutex> l(mu_);
  return codes_;
}

int HubFlood::SilentSocketsClosed(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  int closed = 0;
  for (int fd : sockets_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count()))) <= 0) continue;
    char byte = 0;
    const ssize_t r = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno == ECONNRESET)) ++closed;
  }
  return closed;
}

int HubFlood::IdleChannelsReady() const {
  int ready = 0;
  for (const auto& channel : idle_) ready += channel->GetState(false) == GRPC_CHANNEL_READY;
  return ready;
}

}  // namespace rdmastack::testing
