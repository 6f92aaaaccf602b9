#include "tests/harness/node-runtime/probe_runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/harness/node-runtime/spawn.h"

namespace rdmastack::sim {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

constexpr char kUserAgent[] = "kube-probe/1.36";

StatusOr<tcp::endpoint> Endpoint(const std::string& host, int port) {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) return InvalidArgumentError("probe host '" + host + "' is not an IP address");
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

template <typename Stream>
void AsyncGet(Stream& stream, http::request<http::empty_body>& req, beast::flat_buffer& buffer,
              http::response<http::string_body>& res, beast::error_code& result) {
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      result = ec;
      return;
    }
    http::async_read(stream, buffer, res, [&](beast::error_code ec2, size_t) { result = ec2; });
  });
}

bool ExecProbe(const std::string& shim, const ProbeSpec& spec, pid_t container_pid,
               std::string* detail) {
  if (container_pid <= 0) {
    *detail = "container is not running";
    return false;
  }
  std::vector<std::string> args = {shim, "exec", std::to_string(container_pid), "--"};
  args.insert(args.end(), spec.command.begin(), spec.command.end());
  StatusOr<pid_t> spawned = SpawnProcess(args, /*quiet=*/true);
  if (!spawned.ok()) {
    *detail = spawned.status().message();
    return false;
  }
  const pid_t pid = *spawned;
  // Sleep until the helper exits or the timeout passes (pidfd), rather than polling waitpid.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      if (pidfd >= 0) ::close(pidfd);
      *detail = "command timed out after " + std::to_string(spec.timeout.count()) + "s";
      return false;
    }
    if (pidfd >= 0) {
      pollfd fd{pidfd, POLLIN, 0};
      ::poll(&fd, 1, static_cast<int>(left.count()));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  *detail = "command exited with " +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return false;
}

}  // namespace

bool HttpGetProbe(const ProbeSpec& spec, const std::string& host, std::string* detail) {
  StatusOr<tcp::endpoint> endpoint = Endpoint(host, spec.port);
  if (!endpoint.ok()) {
    *detail = endpoint.status().message();
    return false;
  }
  net::io_context ioc;
  http::request<http::empty_body> req{http::verb::get, spec.path, 11};
  req.set(http::field::host, host + ":" + std::to_string(spec.port));
  req.set(http::field::user_agent, kUserAgent);
  req.set(http::field::accept, "*/*");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : spec.headers) req.set(name, value);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  beast::error_code result = net::error::would_block;
  if (spec.scheme == "HTTPS") {
    net::ssl::context ctx(net::ssl::context::tls_client);
    ctx.set_verify_mode(net::ssl::verify_none);
    beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
    beast::get_lowest_layer(stream).expires_after(spec.timeout);
    beast::get_lowest_layer(stream).async_connect(*endpoint, [&](beast::error_code ec) {
      if (ec) {
        result = ec;
        return;
      }
      stream.async_handshake(net::ssl::stream_base::client, [&](beast::error_code ec2) {
        if (ec2) {
          result = ec2;
          return;
        }
        AsyncGet(stream, req, buffer, res, result);
      });
    });
    ioc.run();
  } else {
    beast::tcp_stream stream(ioc);
    stream.expires_after(spec.timeout);
    stream.async_connect(*endpoint, [&](beast::error_code ec) {
      if (ec) {
        result = ec;
        return;
      }
      AsyncGet(stream, req, buffer, res, result);
    });
    ioc.run();
  }
  if (result) {
    *detail = "Get " + std::string(spec.scheme == "HTTPS" ? "https" : "http") + "://" + host + ":" +
              std::to_string(spec.port) + spec.path + ": " + result.message();
    return false;
  }
  const int code = res.result_int();
  if (code >= 200 && code < 400) return true;
  *detail = "HTTP probe failed with statuscode: " + std::to_string(code);
  return false;
}

bool TcpSocketProbe(const ProbeSpec& spec, const std::string& host, std::string* detail) {
  StatusOr<tcp::endpoint> endpoint = Endpoint(host, spec.port);
  if (!endpoint.ok()) {
    *detail = endpoint.status().message();
    return false;
  }
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(spec.timeout);
  beast::error_code result = net::error::would_block;
  stream.async_connect(*endpoint, [&](beast::error_code ec) { result = ec; });
  ioc.run();
  if (!result) return true;
  *detail = "dial tcp " + host + ":" + std::to_string(spec.port) + ": " + result.message();
  return false;
}

bool ProbeRunner::Run(const ProbeSpec& spec, const std::string& pod_ip, pid_t container_pid,
                      std::string* detail) {
  const std::string host = spec.host.empty() ? pod_ip : spec.host;
  switch (spec.action) {
    case ProbeAction::kExec: return ExecProbe(shim_, spec, container_pid, detail);
    case ProbeAction::kHttpGet: return HttpGetProbe(spec, host, detail);
    case ProbeAction::kTcpSocket: return TcpSocketProbe(spec, host, detail);
  }
  return false;
}

}  // namespace rdmastack::sim
