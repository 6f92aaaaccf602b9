#include "tests/integration/gateway/gateway_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "lib/s3/http.h"

namespace rdmastack::gateway::testing {

std::string FindVersitygw() {
  namespace fs = std::filesystem;
  if (const char* v = std::getenv("RDMASTACK_VERSITYGW"); v != nullptr && *v != '\0') {
    return fs::exists(v) ? v : "";
  }
  const char* home = std::getenv("HOME");
  std::string cached =
      std::string(home ? home : "/root") + "/.cache/rdmastack/versitygw-v1.8.0/bin/versitygw";
  return fs::exists(cached) ? cached : "";
}

int FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

GatewayProcess::~GatewayProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool GatewayProcess::Start(const std::vector<std::string>& launcher_args,
                           const std::vector<std::string>& env, const std::string& log_path) {
  std::vector<std::string> args = launcher_args;
  std::vector<std::string> envs = env;
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) return false;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(log);
  return pid_ > 0;
}

bool GatewayProcess::WaitHealthy(const std::string& url, const std::string& health_path,
                                 std::chrono::seconds deadline, const std::string& ca_file) {
  s3::BeastHttpTransport transport(s3::TlsOptions{ca_file});
  StatusOr<s3::Endpoint> ep = s3::ParseEndpoint(url);
  if (!ep.ok()) return false;
  s3::HttpRequest req{"GET", health_path, {{"host", ep->HostHeader()}}, ""};
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return false;  // exited before it became healthy
    }
    StatusOr<s3::HttpResponse> r = transport.RoundTrip(*ep, req, std::chrono::milliseconds(500));
    if (r.ok() && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool GatewayProcess::SignalAndWait(int sig, std::chrono::seconds deadline, int* wait_status) {
  if (pid_ <= 0 || ::kill(pid_, sig) != 0) return false;
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid_, wait_status, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string GatewayProcess::Executable() const {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/" + std::to_string(pid_) + "/exe", ec).string();
}

}  // namespace rdmastack::gateway::testing
