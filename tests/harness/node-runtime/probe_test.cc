#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio.hpp>
#include <thread>

#include "tests/harness/node-runtime/probe_runner.h"
#include "tests/harness/node-runtime/probe_spec.h"
#include "tests/harness/node-runtime/restart_backoff.h"
#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

using std::chrono::seconds;

TEST(ParseProbe, DefaultsAndNamedPorts) {
  const k8s::JsonObject container = ParseJson(R"({"ports":[{"name":"s3","containerPort":7070}]})");
  auto http = ParseProbe(ParseJson(R"({"httpGet":{"path":"_/health","port":"s3"}})"), container);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  EXPECT_EQ(http->action, ProbeAction::kHttpGet);
  EXPECT_EQ(http->port, 7070);
  EXPECT_EQ(http->path, "/_/health");
  EXPECT_EQ(http->scheme, "HTTP");
  EXPECT_EQ(http->period, seconds(10));
  EXPECT_EQ(http->timeout, seconds(1));
  EXPECT_EQ(http->success_threshold, 1);
  EXPECT_EQ(http->failure_threshold, 3);

  auto tcp = ParseProbe(ParseJson(R"({"tcpSocket":{"port":9000},"periodSeconds":2,
      "failureThreshold":1,"initialDelaySeconds":5})"),
                        container);
  ASSERT_TRUE(tcp.ok());
  EXPECT_EQ(tcp->port, 9000);
  EXPECT_EQ(tcp->period, seconds(2));
  EXPECT_EQ(tcp->initial_delay, seconds(5));

  auto exec = ParseProbe(ParseJson(R"({"exec":{"command":["cat","/tmp/ready"]}})"), container);
  ASSERT_TRUE(exec.ok());
  EXPECT_EQ(exec->command, (std::vector<std::string>{"cat", "/tmp/ready"}));

  EXPECT_FALSE(ParseProbe(ParseJson(R"({"httpGet":{"port":"nope"}})"), container).ok());
  EXPECT_FALSE(ParseProbe(ParseJson(R"({"grpc":{"port":1}})"), container).ok());
}

ProbeSpec Every(int period_s, int success, int failure) {
  ProbeSpec s;
  s.period = seconds(period_s);
  s.success_threshold = success;
  s.failure_threshold = failure;
  return s;
}

TEST(ProbeTracker, ReadinessStartsFailedAndFlipsAfterThresholds) {
  Clock::TimePoint t0{};
  ProbeTracker t(ProbeType::kReadiness, Every(1, 2, 3));
  t.Reset(t0);
  EXPECT_EQ(t.verdict(), ProbeResult::kFailure);
  EXPECT_TRUE(t.Due(t0));
  EXPECT_EQ(t.Record(true, t0), ProbeResult::kFailure);  // 1 of 2 successes
  EXPECT_FALSE(t.Due(t0 + std::chrono::milliseconds(999)));
  EXPECT_EQ(t.Record(true, t0 + seconds(1)), ProbeResult::kSuccess);
  EXPECT_EQ(t.Record(false, t0 + seconds(2)), ProbeResult::kSuccess);
  EXPECT_EQ(t.Record(false, t0 + seconds(3)), ProbeResult::kSuccess);
  EXPECT_EQ(t.Record(true, t0 + seconds(4)), ProbeResult::kSuccess);  // the run restarts
  EXPECT_EQ(t.Record(false, t0 + seconds(5)), ProbeResult::kSuccess);
  EXPECT_EQ(t.Record(false, t0 + seconds(6)), ProbeResult::kSuccess);
  EXPECT_EQ(t.Record(false, t0 + seconds(7)), ProbeResult::kFailure);
}

TEST(ProbeTracker, LivenessStartsHealthyWaitsInitialDelayAndResetsPerRun) {
  ProbeSpec spec = Every(10, 1, 2);
  spec.initial_delay = seconds(5);
  ProbeTracker t(ProbeType::kLiveness, spec);
  Clock::TimePoint t0{};
  t.Reset(t0);
  EXPECT_EQ(t.verdict(), ProbeResult::kSuccess);
  EXPECT_FALSE(t.Due(t0 + seconds(4)));
  EXPECT_TRUE(t.Due(t0 + seconds(5)));
  t.Record(false, t0 + seconds(5));
  EXPECT_EQ(t.Record(false, t0 + seconds(15)), ProbeResult::kFailure);
  t.Reset(t0 + seconds(20));  // the restarted container
  EXPECT_EQ(t.verdict(), ProbeResult::kSuccess);
  EXPECT_FALSE(t.Due(t0 + seconds(24)));
}

TEST(ProbeTracker, StartupIsUnknownUntilDecided) {
  ProbeTracker t(ProbeType::kStartup, Every(1, 1, 30));
  t.Reset({});
  EXPECT_EQ(t.verdict(), ProbeResult::kUnknown);
  EXPECT_EQ(t.Record(false, Clock::TimePoint{}), ProbeResult::kUnknown);
  EXPECT_EQ(t.Record(true, Clock::TimePoint{} + seconds(1)), ProbeResult::kSuccess);
}

TEST(RestartDelay, FirstRestartAtOnceThenDoublingToTheCap) {
  RestartBackoffPolicy p;
  std::vector<int64_t> got;
  for (int n = 0; n < 8; ++n) {
    got.push_back(std::chrono::duration_cast<seconds>(RestartDelay(n, p)).count());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{0, 10, 20, 40, 80, 160, 300, 300}));
}

// A loopback server that answers each connection with `status`.
class TinyHttpServer {
 public:
  explicit TinyHttpServer(int status)
      : status_(status), acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] {
      for (;;) {
        boost::asio::ip::tcp::socket peer(io_);
        boost::system::error_code ec;
        acceptor_.accept(peer, ec);
        if (ec || stop_) return;
        char buf[2048];
        (void)peer.read_some(boost::asio::buffer(buf), ec);
        const std::string reply = "HTTP/1.1 " + std::to_string(status_) +
                                  " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        boost::asio::write(peer, boost::asio::buffer(reply), ec);
      }
    });
  }
  ~TinyHttpServer() {
    stop_ = true;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // ends a blocked accept()
    thread_.join();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

 private:
  int status_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(ProbeRunner, HttpGetSucceedsOn2xx3xxAndFailsOtherwise) {
  TinyHttpServer ok(204), moved(302), broken(500);
  ProbeSpec spec;
  spec.action = ProbeAction::kHttpGet;
  std::string detail;
  spec.port = ok.port();
  EXPECT_TRUE(HttpGetProbe(spec, "127.0.0.1", &detail)) << detail;
  spec.port = moved.port();
  EXPECT_TRUE(HttpGetProbe(spec, "127.0.0.1", &detail)) << detail;
  spec.port = broken.port();
  EXPECT_FALSE(HttpGetProbe(spec, "127.0.0.1", &detail));
  EXPECT_EQ(detail, "HTTP probe failed with statuscode: 500");
}

TEST(ProbeRunner, TcpSocketSucceedsOnlyWhenSomethingListens) {
  TinyHttpServer server(200);
  ProbeSpec spec;
  spec.action = ProbeAction::kTcpSocket;
  spec.port = server.port();
  std::string detail;
  EXPECT_TRUE(TcpSocketProbe(spec, "127.0.0.1", &detail)) << detail;
  spec.port = 1;  // nothing listens on tcp/1
  EXPECT_FALSE(TcpSocketProbe(spec, "127.0.0.1", &detail));
  EXPECT_NE(detail.find("dial tcp 127.0.0.1:1"), std::string::npos) << detail;
}

}  // namespace
}  // namespace rdmastack::sim
