#include "tests/harness/node-runtime/log_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "tests/harness/node-runtime/log_request.h"
#include "tests/harness/node-runtime/log_run.h"
#include "tests/harness/node-runtime/log_stream.h"
#include "tests/harness/node-runtime/netns_listener.h"

namespace rdmastack::sim {
namespace {

constexpr size_t kMaxRequestHead = 16384;
constexpr int kIoTimeoutSeconds = 10;  // handshake, request and each write

struct SslDeleter {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};

bool WriteAll(SSL* ssl, std::string_view bytes) {
  while (!bytes.empty()) {
    const int n = SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size()));
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A chunked response body on a TLS connection.
class ChunkedSink : public LogSink {
 public:
  ChunkedSink(SSL* ssl, int fd) : ssl_(ssl), fd_(fd) {}
  bool Write(std::string_view bytes) override {
    if (bytes.empty()) return true;
    char size[32];
    std::snprintf(size, sizeof(size), "%zx\r\n", bytes.size());
    return WriteAll(ssl_, size) && WriteAll(ssl_, bytes) && WriteAll(ssl_, "\r\n");
  }
  // The API server sends nothing more on this connection; anything readable (its close, most
  // often) ends the response.
  bool StillThere(std::chrono::milliseconds timeout) override {
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    return ::poll(&p, 1, static_cast<int>(timeout.count())) == 0;
  }

 private:
  SSL* ssl_;
  int fd_;
};

int HttpCode(const Status& s) {
  switch (s.code()) {
    case StatusCode::kNotFound: return 404;
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kPermissionDenied: return 403;
    default: return 500;
  }
}

std::string Reason(int code) {
  switch (code) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    default: return "Internal Server Error";
  }
}

// The kubelet answers errors as plain text; the API server hands a 400's text to the client.
void WriteError(SSL* ssl, int code, const std::string& message) {
  WriteAll(ssl, "HTTP/1.1 " + std::to_string(code) + " " + Reason(code) +
                    "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                    std::to_string(message.size()) + "\r\nConnection: close\r\n\r\n" + message);
}

// The request line's method and target, once the whole head has arrived.
StatusOr<std::pair<std::string, std::string>> ReadRequestLine(SSL* ssl) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > kMaxRequestHead) return InvalidArgumentError("request head too large");
    const int n = SSL_read(ssl, buf, sizeof(buf));
    if (n <= 0) return UnavailableError("connection closed before a whole request");
    head.append(buf, static_cast<size_t>(n));
  }
  const std::string line = head.substr(0, head.find("\r\n"));
  const size_t a = line.find(' ');
  const size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
  if (b == std::string::npos) return InvalidArgumentError("malformed request line");
  return std::pair{line.substr(0, a), line.substr(a + 1, b - a - 1)};
}

// True while `pid` exists and is not a zombie (a container that exited but is not reaped yet).
bool ProcessRunning(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  const char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

LogServer::LogServer(LogServerConfig config, PodLookup pods)
    : config_(std::move(config)), pods_(std::move(pods)) {}

LogServer::~LogServer() {
  Stop();
}

Status LogServer::Start(const NodeTable& nodes) {
  for (const auto& [name, node] : nodes) {
    Listener l;
    l.node = name;
    const std::string base = config_.pki_dir + "/" + name;
    RDMASTACK_ASSIGN_OR_RETURN(
        l.tls, NewKubeletTlsContext(base + ".crt", base + ".key", config_.client_ca));
    StatusOr<int> fd = ListenInNetns(node.NetnsPath(), node.address, config_.port);
    if (!fd.ok()) return fd.status().WithContext("kubelet endpoint of node " + name);
    l.fd = *fd;
    listeners_.push_back(std::move(l));
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  spdlog::info("serving container logs (kubelet /containerLogs) on port {} of {} node(s)",
               config_.port, listeners_.size());
  return OkStatus();
}

void LogServer::AcceptLoop() {
  std::vector<pollfd> fds;
  for (const Listener& l : listeners_) fds.push_back({l.fd, POLLIN, 0});
  fds.push_back({wake_fd_, POLLIN, 0});
  while (!stopping_) {
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < listeners_.size(); ++i) {
      if ((fds[i].revents & POLLIN) == 0) continue;
      const int fd = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      const timeval timeout{kIoTimeoutSeconds, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
      std::lock_guard lock(mu_);
      if (stopping_) {
        ::close(fd);
        continue;
      }
      connections_.insert(fd);
      std::thread([this, &l = listeners_[i], fd] {
        Serve(l, fd);
        Done(fd);
      }).detach();
    }
  }
}

void LogServer::Done(int fd) {
  std::lock_guard lock(mu_);
  connections_.erase(fd);
  ::close(fd);         // under the lock: the acceptor may get the same number next
  idle_.notify_all();  // the last touch of `this`: Stop may return and destroy it right after
}

StatusOr<LogServer::OpenLog> LogServer::Open(const std::string& node,
                                             const LogRequest& request) const {
  runtime::ObjectPtr pod = pods_.running(request.ns, request.pod);
  if (!pod || pod->GetString({"spec", "nodeName"}) != node) {
    std::optional<k8s::JsonObject> api = pods_.fetch(request.ns, request.pod);
    return NotRunHere(api ? &*api : nullptr, request.ns, request.pod, node);
  }
  RDMASTACK_ASSIGN_OR_RETURN(LogRun run, ChooseLogRun(*pod, request.container, request.previous));
  OpenLog log;
  log.pid = run.pid;
  log.path = config_.log_dir + "/" + request.ns + "_" + request.pod + "_" +
             std::string(pod->Uid()) + "/" + request.container + "/" + std::to_string(run.run) +
             ".log";
  log.fd = ::open(log.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (log.fd < 0) {
    return InvalidArgumentError("container \"" + request.container + "\" in pod \"" + request.pod +
                                "\": no log of run " + std::to_string(run.run) + " (" + log.path +
                                ": " + std::strerror(errno) + ")");
  }
  return log;
}

void LogServer::Serve(const Listener& listener, int fd) {
  // A write to a connection the peer closed raises SIGPIPE in the writing thread; blocked in this
  // thread, the write fails with EPIPE instead (the pending signal goes with the thread), and
  // nothing else of the runtime or the containers it starts changes how it handles SIGPIPE.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);

  std::unique_ptr<SSL, SslDeleter> ssl(SSL_new(listener.tls.get()));
  SSL_set_fd(ssl.get(), fd);
  if (SSL_accept(ssl.get()) != 1) {
    spdlog::debug("logs on node {}: TLS handshake refused", listener.node);
    return;
  }
  const std::string client = PeerCommonName(ssl.get());
  StatusOr<std::pair<std::string, std::string>> line = ReadRequestLine(ssl.get());
  if (!line.ok()) return WriteError(ssl.get(), 400, line.status().message());
  const std::string method = line->first;
  const std::string target = line->second;
  auto fail = [&](int code, const std::string& message) {
    spdlog::info("logs on node {}: {} {} -> {} {}", listener.node, method, target, code, message);
    WriteError(ssl.get(), code, message);
  };
  // The kubelet authorizes nodes/log for the caller; here the only caller is the API server.
  if (client != config_.client_name) {
    return fail(403, "Forbidden (user=" + client +
                         ", verb=get, resource=nodes, subresource=log): only " +
                         config_.client_name + " may read logs here");
  }
  if (method != "GET") return fail(405, "only GET is served");
  StatusOr<LogRequest> request = ParseLogRequest(target);
  if (!request.ok()) return fail(HttpCode(request.status()), request.status().message());
  StatusOr<OpenLog> log = Open(listener.node, *request);
  if (!log.ok()) return fail(HttpCode(log.status()), log.status().message());

  ChunkedSink sink(ssl.get(), fd);
  FollowPolicy follow;
  const pid_t pid = log->pid;
  follow.running = [this, pid] { return pid > 0 && !stopping_ && ProcessRunning(pid); };
  uint64_t sent = 0;
  if (WriteAll(ssl.get(),
               "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
               "Connection: close\r\n\r\n")) {
    sent = StreamLog(log->fd, *request, follow, sink);
    if (WriteAll(ssl.get(), "0\r\n\r\n")) SSL_shutdown(ssl.get());
  }
  ::close(log->fd);
  spdlog::info("logs on node {}: {} -> 200, {} bytes of {}", listener.node, target, sent,
               log->path);
}

void LogServer::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_.exchange(true)) return;
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof(one));
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::unique_lock lock(mu_);
  for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  idle_.wait(lock, [this] { return connections_.empty(); });
  for (Listener& l : listeners_) ::close(l.fd);
  listeners_.clear();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  wake_fd_ = -1;
}

}  // namespace rdmastack::sim
