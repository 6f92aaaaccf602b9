#include "agents/node-agent/transport/grpc_stream.h"

#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "agents/node-agent/transport/grpc_frame.h"
#include "agents/node-agent/transport/tls_socket.h"

namespace rdmastack::agent::transport {
namespace {

// Writers block while this much is queued and not yet taken by HTTP/2 (flow control holds it).
constexpr size_t kMaxQueuedBytes = 1u << 20;

constexpr std::array<const char*, 17> kGrpcCodeNames = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

StatusOr<std::pair<std::string, std::string>> SplitHostPort(const std::string& address) {
  std::string host, port;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':') {
      return InvalidArgumentError("hub address '" + address + "' is not [ipv6]:port");
    }
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) {
      return InvalidArgumentError("hub address '" + address + "' has no port (want host:port)");
    }
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (host.empty() || port.empty()) {
    return InvalidArgumentError("hub address '" + address + "' needs both host and port");
  }
  return std::make_pair(host, port);
}

nghttp2_nv Header(std::string_view name, std::string_view value) {
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

std::string PercentDecode(std::string_view value) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 2 < value.size()) {
      const int hi = hex(value[i + 1]), lo = hex(value[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(value[i]);
  }
  return out;
}

std::string GrpcCodeName(int code) {
  if (code >= 0 && code < static_cast<int>(kGrpcCodeNames.size())) return kGrpcCodeNames[code];
  return std::to_string(code);
}

class GrpcBidiStream::Impl {
 public:
  Impl(const GrpcStreamOptions& options, std::unique_ptr<TlsSocket> tls)
      : tls_(std::move(tls)), decoder_(options.max_message_bytes) {}

  ~Impl() {
    if (session_ != nullptr) nghttp2_session_del(session_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  Status Start(const GrpcStreamOptions& options, const std::string& authority) {
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return InternalError("eventfd failed");
    nghttp2_session_callbacks* cbs = nullptr;
    if (nghttp2_session_callbacks_new(&cbs) != 0) return InternalError("nghttp2 callbacks");
    nghttp2_session_callbacks_set_on_header_callback(cbs, &Impl::OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, &Impl::OnData);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, &Impl::OnStreamClose);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &Impl::OnFrameRecv);
    const int rv = nghttp2_session_client_new(&session_, cbs, this);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) return InternalError(std::string("nghttp2 session: ") + nghttp2_strerror(rv));

    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1);
    const std::vector<nghttp2_nv> headers = {
        Header(":method", "POST"),
        Header(":scheme", "https"),
        Header(":path", options.method_path),
        Header(":authority", authority),
        Header("content-type", "application/grpc"),
        Header("te", "trailers"),
        Header("grpc-accept-encoding", "identity"),
        Header("user-agent", options.user_agent),
    };
    nghttp2_data_provider body{};
    body.read_callback = &Impl::ReadBody;
    stream_id_ =
        nghttp2_submit_request(session_, nullptr, headers.data(), headers.size(), &body, nullptr);
    if (stream_id_ < 0) {
      return InternalError(std::string("nghttp2 request: ") + nghttp2_strerror(stream_id_));
    }
    io_thread_ = std::thread([this] { RunIo(); });
    return OkStatus();
  }

  bool Write(std::string_view message, bool framed = true) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ended_ || out_.size() - out_pos_ < kMaxQueuedBytes; });
    if (ended_ || cancel_ || writes_done_) return false;
    if (framed) {
      AppendGrpcFrame(message, &out_);
    } else {
      out_.append(message);
    }
    lock.unlock();
    Wake();
    return true;
  }

  bool Read(std::string* message) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ended_ || !in_.empty(); });
    if (in_.empty()) return false;
    *message = std::move(in_.front());
    in_.pop_front();
    return true;
  }

  void WritesDone() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      writes_done_ = true;
    }
    Wake();
  }

  void Cancel() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancel_ = true;
    }
    Wake();
  }

  Status Finish() {
    std::lock_guard<std::mutex> join_lock(join_mu_);
    if (io_thread_.joinable()) io_thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    return final_;
  }

 private:
  void Wake() const {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
  }

  // The I/O thread: everything that touches the socket or the nghttp2 session happens here.
  void RunIo() {
    std::array<uint8_t, 16384> buf;
    while (true) {
      ApplyRequests();
      if (Status st = Flush(); !st.ok()) return End(st);
      if (closed_status_.has_value() && tls_out_.empty()) return End(*closed_status_);
      // After a Cancel the RST_STREAM went out with the Flush above if the socket took it; a hub
      // that stopped reading must not hold the caller until the TCP timeout.
      if (CancelRequested()) {
        return End(closed_status_.value_or(CancelledError("call cancelled by the agent")));
      }
      pollfd fds[2] = {{tls_->fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (!tls_out_.empty() || tls_->WantsWrite()) fds[0].events |= POLLOUT;
      const int timeout = tls_->HasBufferedInput() ? 0 : -1;
      if (::poll(fds, 2, timeout) < 0 && errno != EINTR)
        return End(UnavailableError("poll failed"));
      if (fds[1].revents & POLLIN) {
        uint64_t drained;
        [[maybe_unused]] ssize_t n = ::read(wake_fd_, &drained, sizeof(drained));
      }
      // Read when bytes arrived, when TLS already holds decrypted ones, or when a read that had
      // to send first (TLS alerts) can go on now that the socket is writable.
      const bool readable = (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
      const bool read_can_go_on = tls_->WantsWrite() && (fds[0].revents & POLLOUT) != 0;
      if (!readable && !read_can_go_on && !tls_->HasBufferedInput()) continue;
      for (int round = 0; round < 16; ++round) {
        auto n = tls_->Read(buf.data(), buf.size());
        if (!n.ok()) return End(closed_status_.value_or(n.status()));
        if (*n == 0) break;
        const auto used = nghttp2_session_mem_recv(session_, buf.data(), *n);
        if (used < 0) {
          return End(UnavailableError(std::string("HTTP/2 from hub: ") +
                                      nghttp2_strerror(static_cast<int>(used))));
        }
      }
    }
  }

  bool CancelRequested() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancel_;
  }

  // Turns requests from other threads into HTTP/2 actions.
  void ApplyRequests() {
    bool cancel, resume;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancel = cancel_ && !rst_sent_ && !closed_status_.has_value();
      if (cancel) rst_sent_ = true;
      resume = body_deferred_ && (out_.size() > out_pos_ || writes_done_ || cancel_);
      if (resume) body_deferred_ = false;
    }
    if (cancel) nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id_, NGHTTP2_CANCEL);
    if (resume && !cancel) nghttp2_session_resume_data(session_, stream_id_);
  }

  // Moves frames from nghttp2 to the socket until it would block.
  Status Flush() {
    while (true) {
      while (tls_out_.size() < 64 * 1024) {
        const uint8_t* data = nullptr;
        const auto n = nghttp2_session_mem_send(session_, &data);
        if (n < 0)
          return InternalError(std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(n)));
        if (n == 0) break;
        tls_out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
      }
      if (tls_out_.empty()) return OkStatus();
      RDMASTACK_ASSIGN_OR_RETURN(
          size_t written,
          tls_->Write(reinterpret_cast<const uint8_t*>(tls_out_.data()), tls_out_.size()));
      if (written == 0) return OkStatus();
      tls_out_.erase(0, written);
    }
  }

  void End(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ended_) {
      ended_ = true;
      final_ = std::move(status);
    }
    cv_.notify_all();
  }

  // nghttp2 pulls the request body from here; with nothing queued the body is deferred until a
  // Write or WritesDone resumes it.
  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                          uint32_t* data_flags, nghttp2_data_source*, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    std::lock_guard<std::mutex> lock(self->mu_);
    const size_t avail = self->out_.size() - self->out_pos_;
    if (avail == 0) {
      if (self->writes_done_) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        return 0;
      }
      self->body_deferred_ = true;
      return NGHTTP2_ERR_DEFERRED;
    }
    const size_t n = std::min(avail, length);
    std::memcpy(buf, self->out_.data() + self->out_pos_, n);
    self->out_pos_ += n;
    if (self->out_pos_ * 2 >= self->out_.size()) {
      self->out_.erase(0, self->out_pos_);
      self->out_pos_ = 0;
    }
    self->cv_.notify_all();
    return static_cast<ssize_t>(n);
  }

  // The server ending its side (trailers, or DATA with END_STREAM) ends the call for us: gRPC has
  // nothing more to say after the status, so the connection can go.
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    if (frame->hd.stream_id != self->stream_id_ ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0 ||
        (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)) {
      return 0;
    }
    std::lock_guard<std::mutex> lock(self->mu_);
    if (!self->closed_status_.has_value())
      self->closed_status_ = self->CloseStatus(NGHTTP2_NO_ERROR);
    return 0;
  }

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                      void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->hd.stream_id != self->stream_id_) return 0;
    const std::string_view n(reinterpret_cast<const char*>(name), namelen);
    const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
    if (n == ":status") {
      self->http_status_ = std::string(v);
    } else if (n == "content-type") {
      self->content_type_ = std::string(v);
    } else if (n == "grpc-status") {
      self->grpc_status_ = std::atoi(std::string(v).c_str());
    } else if (n == "grpc-message") {
      self->grpc_message_ = PercentDecode(v);
    }
    return 0;
  }

  static int OnData(nghttp2_session* session, uint8_t, int32_t stream_id, const uint8_t* data,
                    size_t len, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    if (stream_id != self->stream_id_) return 0;
    std::vector<std::string> messages;
    Status st =
        self->decoder_.Feed(std::string_view(reinterpret_cast<const char*>(data), len), &messages);
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      for (auto& m : messages) self->in_.push_back(std::move(m));
      if (!st.ok() && !self->local_error_.has_value()) self->local_error_ = st;
    }
    self->cv_.notify_all();
    if (!st.ok()) nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
    return 0;
  }

  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code,
                           void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    if (stream_id != self->stream_id_) return 0;
    std::lock_guard<std::mutex> lock(self->mu_);
    if (!self->closed_status_.has_value()) self->closed_status_ = self->CloseStatus(error_code);
    return 0;
  }

  // Why the call ended, from what arrived on the stream (mu_ held).
  Status CloseStatus(uint32_t error_code) const {
    if (local_error_.has_value()) return *local_error_;
    if (rst_sent_) return CancelledError("call cancelled by the agent");
    if (grpc_status_.has_value()) {
      if (*grpc_status_ == 0) return OkStatus();
      const auto code = *grpc_status_ > 0 && *grpc_status_ <= 16
                            ? static_cast<StatusCode>(*grpc_status_)
                            : StatusCode::kUnknown;
      return Status(code, "hub returned gRPC " + GrpcCodeName(*grpc_status_) +
                              (grpc_message_.empty() ? "" : ": " + grpc_message_));
    }
    if (error_code != NGHTTP2_NO_ERROR) {
      return UnavailableError(std::string("hub reset the stream (HTTP/2 ") +
                              nghttp2_http2_strerror(error_code) + ")");
    }
    if (http_status_ != "200" || content_type_.rfind("application/grpc", 0) != 0) {
      return UnavailableError("hub answered HTTP " + (http_status_.empty() ? "?" : http_status_) +
                              " with content-type '" + content_type_ +
                              "', not gRPC (is the address the AgentHub port?)");
    }
    return UnavailableError("hub ended the call without a grpc-status");
  }

  std::unique_ptr<TlsSocket> tls_;
  nghttp2_session* session_ = nullptr;
  int32_t stream_id_ = -1;
  int wake_fd_ = -1;
  std::string tls_out_;                                    // I/O thread only
  GrpcFrameDecoder decoder_;                               // I/O thread only
  std::string http_status_, content_type_, grpc_message_;  // I/O thread only
  std::optional<int> grpc_status_;                         // I/O thread only
  std::thread io_thread_;
  std::mutex join_mu_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::string out_;  // framed messages not yet taken by HTTP/2
  size_t out_pos_ = 0;
  bool writes_done_ = false, cancel_ = false, rst_sent_ = false, body_deferred_ = false;
  bool ended_ = false;
  std::deque<std::string> in_;
  std::optional<Status> local_error_;
  std::optional<Status> closed_status_;
  Status final_;
};

GrpcBidiStream::GrpcBidiStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcBidiStream::~GrpcBidiStream() {
  impl_->Cancel();
  (void)impl_->Finish();
}

StatusOr<std::unique_ptr<GrpcBidiStream>> GrpcBidiStream::Open(const GrpcStreamOptions& options) {
  RDMASTACK_ASSIGN_OR_RETURN(auto host_port, SplitHostPort(options.address));
  TlsClientOptions tls;
  tls.host = host_port.first;
  tls.port = host_port.second;
  tls.server_name = options.server_name;
  tls.ca_pem = options.ca_pem;
  tls.alpn = {"h2"};
  tls.timeout = options.connect_timeout;
  tls.abort = options.abort_connect;
  RDMASTACK_ASSIGN_OR_RETURN(auto socket, TlsSocket::Connect(tls));
  auto impl = std::make_unique<Impl>(options, std::move(socket));
  const std::string authority =
      options.server_name.empty() ? options.address : options.server_name + ":" + host_port.second;
  RDMASTACK_RETURN_IF_ERROR(impl->Start(options, authority));
  return std::unique_ptr<GrpcBidiStream>(new GrpcBidiStream(std::move(impl)));
}

bool GrpcBidiStream::Write(std::string_view message) {
  return impl_->Write(message);
}
bool GrpcBidiStream::WriteUnframed(std::string_view bytes) {
  return impl_->Write(bytes, /*framed=*/false);
}
bool GrpcBidiStream::Read(std::string* message) {
  return impl_->Read(message);
}
void GrpcBidiStream::WritesDone() {
  impl_->WritesDone();
}
void GrpcBidiStream::Cancel() {
  impl_->Cancel();
}
Status GrpcBidiStream::Finish() {
  return impl_->Finish();
}

}  // namespace rdmastack::agent::transport
