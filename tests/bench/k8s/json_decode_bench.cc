// JSON decode throughput over 5,000 large nodes: the list decoder (an informer's classic first
// LIST) on one core, and the path the informer takes by default, a watch-list stream read piece
// by piece through the real client, reflector, transform and store. Run from a release build (see
// docs/bench-k8s.md); numbers from debug builds mean nothing.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>

#include "base/clock.h"
#include "controllers/common/cache_transforms.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/rest_client.h"
#include "operator/k8s/rest_codec.h"
#include "operator/runtime/informer.h"
#include "tests/bench/k8s/node_list_generator.h"

namespace rdmastack::k8s {
namespace {

constexpr int kNodes = 5000;
constexpr int kRounds = 10;

// CPU time of this thread: the build machines are shared, and time spent descheduled is not
// decoding.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double ResidentMegabytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

struct Throughput {
  double cpu_mb_per_s = 0;   // best round, by thread CPU time
  double wall_mb_per_s = 0;  // best round, by wall time
};

// Each round decodes a fresh copy of `body` (the client hands the response body over by move, so
// the copy is not part of the cost); the result is freed outside the timing.
template <typename Decode>
Throughput Measure(const std::string& body, Decode&& decode) {
  Throughput best;
  const double mb = static_cast<double>(body.size()) / 1e6;
  for (int round = 0; round < kRounds; ++round) {
    std::string input = body;
    const double cpu_start = ThreadCpuSeconds();
    const auto wall_start = std::chrono::steady_clock::now();
    auto result = decode(std::move(input));
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
    const double cpu = ThreadCpuSeconds() - cpu_start;
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    best.cpu_mb_per_s = std::max(best.cpu_mb_per_s, mb / cpu);
    best.wall_mb_per_s = std::max(best.wall_mb_per_s, mb / wall.count());
  }
  return best;
}

TEST(JsonDecodeBench, NodeList5000) {
  const std::string body = bench::GenerateNodeList(kNodes);
  const double per_node_kb = static_cast<double>(body.size()) / kNodes / 1000;
  std::printf("NodeList: %d nodes, %.1f MB, %.1f KB per node\n", kNodes, body.size() / 1e6,
              per_node_kb);
  ASSERT_GT(per_node_kb, 12.0);

  // First, before the timed rounds have warmed the heap.
  const double rss_before = ResidentMegabytes();
  auto list = DecodeObjectList(body);
  ASSERT_TRUE(list.ok());
  const double held = ResidentMegabytes() - rss_before;
  std::printf("memory held by the 5000 decoded nodes: %.0f MB resident (%.1f KB per node)\n", held,
              held * 1000 / kNodes);
  RecordProperty("decoded_list_resident_mb", static_cast<int>(held));
  ASSERT_EQ(list->items.size(), static_cast<size_t>(kNodes));
  EXPECT_EQ(list->items[4321].Name(), "gpu-node-4321");
  EXPECT_EQ(list->items[4321].Labels().size(), 100u);
  const Throughput parse =
      Measure(body, [](std::string input) { return JsonObject::ParseOwned(input); });
  const Throughput decode =
      Measure(body, [](std::string input) { return DecodeObjectList(std::move(input)); });
  std::printf("best of %d rounds                   CPU time   wall time\n", kRounds);
  std::printf("parse into one document:          %6.0f MB/s %6.0f MB/s\n", parse.cpu_mb_per_s,
              parse.wall_mb_per_s);
  std::printf("decode list into %d nodes:      %6.0f MB/s %6.0f MB/s\n", kNodes,
              decode.cpu_mb_per_s, decode.wall_mb_per_s);
  RecordProperty("parse_mb_per_s", static_cast<int>(parse.cpu_mb_per_s));
  RecordProperty("decode_list_mb_per_s", static_cast<int>(decode.cpu_mb_per_s));
#ifdef NDEBUG
  EXPECT_GE(decode.cpu_mb_per_s, 500.0) << "target: >= 500 MB/s on one core";
#endif
}

// The API server's side of a watch-list: the generated stream in pieces of the size a TLS read
// hands over, then nothing until the watch is cancelled (the watch goes on after the bookmark).
class WatchListTransport final : public Transport {
 public:
  explicit WatchListTransport(const std::string& body) : body_(body) {}
  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    return InternalError("the benchmark serves watches only, not " + request.target);
  }
  StatusOr<StreamResult> OpenStream(const HttpRequest& request,
                                    std::chrono::milliseconds) override {
    if (request.target.find("sendInitialEvents=true") == std::string::npos)
      return InternalError("expected a watch-list request, got " + request.target);
    StreamResult r;
    r.stream = std::make_unique<Pieces>(body_);
    return r;
  }

 private:
  class Pieces final : public ResponseStream {
   public:
    explicit Pieces(const std::string& body) : body_(body) {}
    StatusOr<std::optional<std::string>> Read() override {
      constexpr size_t kPiece = 16 * 1024;
      if (offset_ < body_.size()) {
        std::string piece = body_.substr(offset_, kPiece);
        offset_ += piece.size();
        return std::optional<std::string>(std::move(piece));
      }
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return cancelled_; });
      return CancelledError("watch cancelled");
    }
    void Cancel() override {
      std::lock_guard<std::mutex> l(mu_);
      cancelled_ = true;
      cv_.notify_all();
    }

   private:
    const std::string& body_;
    size_t offset_ = 0;
    std::mutex mu_;
    std::condition_variable cv_;
    bool cancelled_ = false;
  };
  const std::string& body_;
};

// User + system CPU of the whole process: the informer decodes on its own thread.
double ProcessCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

TEST(JsonDecodeBench, WatchListInformerSync5000) {
  const std::string body = bench::GenerateNodeWatchList(kNodes);
  const double mb = static_cast<double>(body.size()) / 1e6;
  std::printf("watch-list stream: %d ADDED events + bookmark, %.1f MB\n", kNodes, mb);
  struct Form {
    const char* name;
    runtime::Transform transform;
  };
  const Form forms[] = {
      {"whole nodes (managedFields dropped)", runtime::StripManagedFields()},
      {"trimmed as the operator caches them", controllers::NodeLabelsAndOperatorAnnotations()}};
  std::printf("best of %d syncs, from Start to synced     CPU time          wall time\n", kRounds);
  for (const Form& form : forms) {
    double best_cpu = 1e9, best_wall = 1e9;
    size_t pool_bytes = 0, earlier_rule_bytes = 0;
    for (int round = 0; round < kRounds; ++round) {
      auto client = NewRestClientOverTransport(std::make_unique<WatchListTransport>(body));
      runtime::InformerOptions options;
      options.type = kinds::Node();
      options.transform = form.transform;
      runtime::Informer informer(*client, RealClock::Instance(), options);
      const double cpu_start = ProcessCpuSeconds();
      const auto wall_start = std::chrono::steady_clock::now();
      informer.Start();
      ASSERT_TRUE(informer.WaitForSync(RealClock::Instance().Now() + std::chrono::minutes(2)));
      const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
      best_cpu = std::min(best_cpu, ProcessCpuSeconds() - cpu_start);
      best_wall = std::min(best_wall, wall.count());
      ASSERT_EQ(informer.store().Size(), static_cast<size_t>(kNodes));
      auto node = informer.store().Get("gpu-node-4321");
      ASSERT_NE(node, nullptr);
      EXPECT_EQ(node->Name(), "gpu-node-4321");
      EXPECT_EQ(node->Labels().size(), 100u);
      if (round == 0) {
        // What the cache holds per node: the pool that Prepare's compact copy sized for it,
        // beside what the earlier sizing (twice the object's JSON text + 64) would have reserved.
        for (const auto& object : informer.store().List()) {
          pool_bytes += const_cast<JsonObject&>(*object).document().GetAllocator().Capacity();
          earlier_rule_bytes += 2 * object->Serialize().size() + 64;
        }
      }
      informer.Stop();
    }
    std::printf("%-40s %5.0f ms %5.0f MB/s  %5.0f ms %5.0f MB/s\n", form.name, best_cpu * 1e3,
                mb / best_cpu, best_wall * 1e3, mb / best_wall);
    std::printf("%-40s cache pool %.2f KiB per node (the earlier 2 x text + 64 sizing: %.2f KiB)\n",
                "", pool_bytes / 1024.0 / kNodes, earlier_rule_bytes / 1024.0 / kNodes);
    RecordProperty(std::string("watch_list_cpu_ms_") + (form.name[0] == 'w' ? "whole" : "trimmed"),
                   static_cast<int>(best_cpu * 1e3));
  }
}

}  // namespace
}  // namespace rdmastack::k8s
