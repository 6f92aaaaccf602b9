#include "servers/agenthub/hub_listener.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <string_view>

namespace rdmastack::agenthub {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// A look at every handed-over descriptor costs one fstat each (a few ms for thousands): a flood
// of refused connections may ask for one per connection, so at most this often.
constexpr auto kReclaimEvery = std::chrono::milliseconds(100);

}  // namespace

HubListener::HubListener(runtime::ConnectionLimits limits, runtime::MetricsRegistry& metrics)
    : limiter_(limits),
      acceptor_(io_, limiter_,
                runtime::ListenerOptions{
                    .name = "agenthub",
                    .limits = limits,
                    .metrics = &metrics,
                    .reclaim = [this](const std::string& address, const char* refusal) {
                      const bool own =
                          std::string_view(refusal) == runtime::kRefusedMaxConnectionsPerAddress;
                      Reclaim(own ? address : "", /*always=*/own);
                    }}) {}

HubListener::~HubListener() {
  Stop();
}

Status HubListener::Listen(const std::string& address) {
  return acceptor_.Listen(address);
}

void HubListener::Start(std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> grpc) {
  grpc_ = std::move(grpc);
  acceptor_.Start([this](tcp::socket socket, runtime::ConnectionLimiter::Slot slot) {
    Handoff(std::move(socket), std::move(slot));
  });
  thread_ = std::thread([this] { io_.run(); });
}

void HubListener::Stop() {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    acceptor_.Close();
    io_.stop();
  });
  thread_.join();
}

void HubListener::Handoff(tcp::socket socket, runtime::ConnectionLimiter::Slot slot) {
  boost::system::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);  // as gRPC's own listener sets it
  const int fd = socket.release(ec);
  if (ec) return;  // still the socket's: closed with it
  // gRPC's endpoints expect a non-blocking descriptor; its own accept4 makes them so.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    // A descriptor we handed over before has been closed by gRPC (accept reused its number):
    // assigning frees that connection's slot.
    handed_.insert_or_assign(fd, Handed{st.st_dev, st.st_ino, std::move(slot)});
  }
  grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters connection;
  connection.listener_fd = acceptor_.native_handle();
  connection.fd = fd;
  grpc_->HandleNewConnection(&connection);
}

void HubListener::Reclaim(const std::string& address, bool always) {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (address.empty()) {
    if (!always && now < next_reclaim_) return;
    next_reclaim_ = now + kReclaimEvery;
  }
  for (auto it = handed_.begin(); it != handed_.end();) {
    if (!address.empty() && it->second.slot.address() != address) {
      ++it;
      continue;
    }
    struct stat st {};
    const bool same = ::fstat(it->first, &st) == 0 && st.st_dev == it->second.device &&
                      st.st_ino == it->second.inode;
    it = same ? std::next(it) : handed_.erase(it);
  }
}

size_t HubListener::open_connections() {
  Reclaim("", /*always=*/true);
  std::lock_guard<std::mutex> l(mu_);
  return handed_.size();
}

}  // namespace rdmastack::agenthub
