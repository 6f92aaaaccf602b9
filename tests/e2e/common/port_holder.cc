#include "tests/e2e/common/port_holder.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rdmastack::testing {

PortHolder::PortHolder(const std::string& netns, int port) {
  const std::string listen =
      "import socket,time\ns=socket.socket()\n"
      "s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
      "s.bind(('0.0.0.0'," +
      std::to_string(port) + "))\ns.listen(1)\ntime.sleep(600)\n";
  pid_ = fork();
  if (pid_ == 0) {
    execlp("ip", "ip", "netns", "exec", netns.c_str(), "python3", "-c", listen.c_str(), nullptr);
    _exit(127);
  }
}

void PortHolder::Release() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace rdmastack::testing
