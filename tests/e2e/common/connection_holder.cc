#include "tests/e2e/common/connection_holder.h"

#include <cstdio>

namespace rdmastack::testing {
namespace {

// argv: per_target seconds ip:port:plain ...; prints one line of counts at the end.
constexpr char kScript[] = R"(
import resource, select, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
per_target, seconds = int(sys.argv[1]), float(sys.argv[2])
targets = []
for t in sys.argv[3:]:
    ip, port, plain = t.rsplit(':', 2)
    targets.append((ip, int(port), plain == '1'))
held = {t: [] for t in targets}
where = {}
poller = select.poll()
opened = closed_at_once = closed_later = max_held = 0
end = time.time() + seconds
while time.time() < end:
    for t in targets:
        live = held[t]
        # At most 4 new ones per target per round (a round is at least 100 ms): a flood, not a
        # busy loop that would starve the two-core machine the cluster runs on.
        for _ in range(min(4, per_target - len(live))):
            s = socket.socket()
            s.settimeout(2)
            try:
                s.connect((t[0], t[1]))
            except OSError:
                s.close()
                break
            s.setblocking(False)
            if t[2] and len(live) % 2 == 1:
                try:
                    s.send(b'GET /healthz HTTP/1.1\r\nHost: x\r\n')
                except OSError:
                    pass
            opened += 1
            live.append((s, time.time()))
            where[s.fileno()] = (t, s)
            poller.register(s.fileno(), select.POLLIN)
        now = time.time()
        max_held = max(max_held, sum(1 for _, b in live if now - b >= 1.0))
    round_end = time.time() + 0.1
    for fd, _ in poller.poll(100):
        t, s = where.pop(fd)
        poller.unregister(fd)
        try:
            data = s.recv(4096)
        except OSError:
            data = b''
        if data:  # an answer (a 408, say): the server closes next; count it then
            where[fd] = (t, s)
            poller.register(fd, select.POLLIN)
            continue
        born = next(b for c, b in held[t] if c is s)
        held[t] = [(c, b) for c, b in held[t] if c is not s]
        if time.time() - born < 1.0:
            closed_at_once += 1
        else:
            closed_later += 1
        s.close()
    time.sleep(max(0, round_end - time.time()))
print('opened=%d closed_at_once=%d closed_later=%d max_held=%d' %
      (opened, closed_at_once, closed_later, max_held), flush=True)
)";

}  // namespace

ConnectionHolder::ConnectionHolder(const std::string& netns, std::vector<HeldTarget> targets,
                                   int per_target, std::chrono::seconds duration) {
  std::vector<std::string> argv = {"ip",
                                   "netns",
                                   "exec",
                                   netns,
                                   "python3",
                                   "-c",
                                   kScript,
                                   std::to_string(per_target),
                                   std::to_string(duration.count())};
  for (const HeldTarget& t : targets) {
    argv.push_back(t.ip + ":" + std::to_string(t.port) + ":" + (t.plain_http ? "1" : "0"));
  }
  thread_ = std::thread([this, argv] { result_ = RunCommand(argv); });
}

HoldCounts ConnectionHolder::Wait() {
  if (thread_.joinable()) thread_.join();
  HoldCounts c;
  const size_t at = result_.out.find("opened=");
  if (at != std::string::npos) {
    std::sscanf(result_.out.c_str() + at, "opened=%d closed_at_once=%d closed_later=%d max_held=%d",
                &c.opened, &c.closed_at_once, &c.closed_later, &c.max_held);
  }
  return c;
}

}  // namespace rdmastack::testing
