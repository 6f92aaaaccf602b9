#pragma once
// A gateway started through `rdmastack-gateway run --mode http` on loopback, owned by a test.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace rdmastack::gateway::testing {

// Path of versitygw: $RDMASTACK_VERSITYGW, else the harness cache; "" when neither exists.
std::string FindVersitygw();

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

class GatewayProcess {
 public:
  GatewayProcess() = default;
  ~GatewayProcess();
  GatewayProcess(const GatewayProcess&) = delete;
  GatewayProcess& operator=(const GatewayProcess&) = delete;

  // fork + exec the launcher (no shell); its stdout/stderr go to `log_path`.
  bool Start(const std::vector<std::string>& launcher_args, const std::vector<std::string>& env,
             const std::string& log_path);
  // Polls GET <health_path> on url ("http(s)://127.0.0.1:PORT") until 200 or the deadline;
  // ca_file verifies an https gateway.
  bool WaitHealthy(const std::string& url, const std::string& health_path,
                   std::chrono::seconds deadline, const std::string& ca_file = "");
  // Sends `sig` and waits up to `deadline`; true when the process exited.
  bool SignalAndWait(int sig, std::chrono::seconds deadline, int* wait_status);
  // /proc/<pid>/exe target.
  std::string Executable() const;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace rdmastack::gateway::testing
