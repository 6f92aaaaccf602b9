// What the operator reads from a gateway is bounded: a real loopback server (lib/s3/testing)
// answers with bodies that never end or declare gigabytes, and the Beast transport must stop at
// the request's limit with an error that names the gateway, the call and the limit, or keep just
// the prefix a probe needs. Memory is measured, not assumed: this binary counts every byte
// allocated through operator new, so a test can assert on the most the client held at once.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "base/clock.h"
#include "lib/s3/http.h"
#include "lib/s3/readiness_probe.h"
#include "lib/s3/s3_client.h"
#include "lib/s3/testing/loopback_gateway.h"
#include "lib/s3/versitygw_admin.h"

namespace {

std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void CountAllocation(void* p) {
  const int64_t live = g_live_bytes += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
}

}  // namespace

void* operator new(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  CountAllocation(p);
  return p;
}

void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_live_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

void operator delete(void* p, size_t) noexcept {
  operator delete(p);
}

namespace rdmastack::s3 {
namespace {

using testing::Framing;
using testing::LoopbackGateway;
using testing::ReceivedRequest;
using testing::ResponseWriter;

constexpr uint64_t kLimit = 256 * 1024;
// What may sit in the kernel's socket buffers between the two ends besides what the client read
// (loopback receive buffers grow to a few MiB).
constexpr uint64_t kKernelSlack = 16 << 20;
// What a read may hold at most: the body's string, which holds up to 1.5 times the limit while it
// grows (the old and the new buffer), and the transport's own buffers (Beast's 64 KiB read
// buffer, a 16 KiB chunk, the request).
constexpr int64_t HeldAtMost(uint64_t limit) {
  return static_cast<int64_t>(limit + limit / 2) + 128 * 1024;
}

// The most bytes held at once (through operator new) while `call` ran, above what was held before.
template <typename Call>
int64_t PeakAllocatedDuring(Call call) {
  const int64_t before = g_live_bytes.load();
  g_peak_bytes = before;
  call();
  return g_peak_bytes.load() - before;
}

HttpRequest Get(const std::string& target, BodyLimit limit) {
  HttpRequest r;
  r.method = "GET";
  r.target = target;
  r.headers.emplace_back("host", "gateway");
  r.response_limit = limit;
  return r;
}

void ExpectOverTheLimit(const StatusOr<HttpResponse>& r, const LoopbackGateway& gateway,
                        const std::string& call) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().ToString();
  const std::string& message = r.status().message();
  EXPECT_NE(message.find(gateway.endpoint().ToString()), std::string::npos) << message;
  EXPECT_NE(message.find(call), std::string::npos) << message;
  EXPECT_NE(message.find("limit of " + std::to_string(kLimit) + " bytes"), std::string::npos)
      << message;
}

TEST(BoundedReadTest, AnEndlessChunkedBodyEndsInAnErrorAtTheLimit) {
  LoopbackGateway gateway([](const ReceivedRequest&, ResponseWriter& out) {
    WriteEndlessAnswer(out, Framing::kChunked);
  });
  BeastHttpTransport transport;
  StatusOr<HttpResponse> r = InternalError("unset");
  const int64_t held = PeakAllocatedDuring([&] {
    r = transport.RoundTrip(gateway.endpoint(), Get("/big?x=1", {kLimit}),
                            std::chrono::seconds(10));
  });
  ExpectOverTheLimit(r, gateway, "GET /big");
  EXPECT_LT(held, HeldAtMost(kLimit));
  EXPECT_LT(gateway.bytes_sent(), kLimit + kKernelSlack);
}

TEST(BoundedReadTest, AnEndlessBodyWithoutLengthEndsInAnErrorAtTheLimit) {
  LoopbackGateway gateway([](const ReceivedRequest&, ResponseWriter& out) {
    WriteEndlessAnswer(out, Framing::kUntilClose);
  });
  BeastHttpTransport transport;
  StatusOr<HttpResponse> r = InternalError("unset");
  const int64_t held = PeakAllocatedDuring([&] {
    r = transport.RoundTrip(gateway.endpoint(), Get("/big", {kLimit}), std::chrono::seconds(10));
  });
  ExpectOverTheLimit(r, gateway, "GET /big");
  EXPECT_LT(held, HeldAtMost(kLimit));
  EXPECT_LT(gateway.bytes_sent(), kLimit + kKernelSlack);
}

// A declared length over the limit is refused from the header: no byte of the body is kept.
TEST(BoundedReadTest, ADeclaredLengthOverTheLimitIsRefusedBeforeTheBody) {
  LoopbackGateway gateway([](const ReceivedRequest&, ResponseWriter& out) {
    if (!out.Write("HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n")) return;
    const std::string filler(8192, 'x');
    while (out.Write(filler)) {
    }
  });
  BeastHttpTransport transport;
  StatusOr<HttpResponse> r = InternalError("unset");
  const int64_t held = PeakAllocatedDuring([&] {
    r = transport.RoundTrip(gateway.endpoint(), Get("/huge", {kLimit}), std::chrono::seconds(10));
  });
  ExpectOverTheLimit(r, gateway, "GET /huge");
  EXPECT_NE(r.status().message().find("Content-Length 1099511627776"), std::string::npos)
      << r.status().message();
  EXPECT_LT(held, HeldAtMost(0));
}

TEST(BoundedReadTest, APrefixReadKeepsTheStartAndLeavesTheRestUnread) {
  LoopbackGateway gateway([](const ReceivedRequest&, ResponseWriter& out) {
    WriteEndlessAnswer(out, Framing::kChunked, "<ListAllMyBucketsResult>");
  });
  BeastHttpTransport transport;
  StatusOr<HttpResponse> r = InternalError("unset");
  const int64_t held = PeakAllocatedDuring([&] {
    r = transport.RoundTrip(gateway.endpoint(), Get("/", {kLimit, BodyLimit::Over::kKeepPrefix}),
                            std::chrono::seconds(10));
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), kLimit);
  EXPECT_TRUE(r->body_truncated);
  EXPECT_EQ(r->body.rfind("<ListAllMyBucketsResult>", 0), 0u);
  EXPECT_LT(held, HeldAtMost(kLimit));
  EXPECT_LT(gateway.bytes_sent(), kLimit + kKernelSlack);
}

// The limit is inclusive: an answer of exactly the limit is read whole, one byte more is not
// (sent as chunks, so only counting can tell).
TEST(BoundedReadTest, AnAnswerOfTheLimitIsReadWholeAndOneByteMoreIsRefused) {
  const std::string body(kLimit, 'b');
  LoopbackGateway gateway([&](const ReceivedRequest& request, ResponseWriter& out) {
    if (request.target == "/exact") return testing::WriteAnswer(out, body);
    out.Write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (const std::string& chunk : {body, std::string("b")}) {
      char size[32];
      std::snprintf(size, sizeof(size), "%zx\r\n", chunk.size());
      out.Write(size);
      out.Write(chunk + "\r\n");
    }
    out.Write("0\r\n\r\n");
  });
  BeastHttpTransport transport;
  StatusOr<HttpResponse> exact =
      transport.RoundTrip(gateway.endpoint(), Get("/exact", {kLimit}), std::chrono::seconds(10));
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_TRUE(exact->body == body);
  EXPECT_FALSE(exact->body_truncated);
  ExpectOverTheLimit(
      transport.RoundTrip(gateway.endpoint(), Get("/one-more", {kLimit}), std::chrono::seconds(10)),
      gateway, "GET /one-more");
}

// The operator's admin calls read up to the admin's limit: a gateway answering list-users without
// end makes the call fail, named, instead of growing the leader.
TEST(BoundedReadTest, AnEndlessListUsersFailsTheAdminCallAtItsLimit) {
  LoopbackGateway gateway([](const ReceivedRequest& request, ResponseWriter& out) {
    if (request.target != "/list-users") return testing::WriteAnswer(out, "", 404);
    WriteEndlessAnswer(out, Framing::kChunked, "<ListUserAccountsResult><Accounts>");
  });
  BeastHttpTransport transport;
  FakeClock clock;
  S3Client root(transport, gateway.endpoint(), {"root", "secret"}, "us-east-1", clock,
                std::chrono::seconds(10));
  StatusOr<std::map<std::string, std::string>> users = InternalError("unset");
  const int64_t held =
      PeakAllocatedDuring([&] { users = VersitygwAdmin(root, kLimit).ListUsers(); });
  ASSERT_FALSE(users.ok());
  EXPECT_EQ(users.status().code(), StatusCode::kResourceExhausted);
  const std::string& message = users.status().message();
  EXPECT_EQ(message.rfind("list-users on " + gateway.endpoint().ToString(), 0), 0u) << message;
  EXPECT_NE(message.find("PATCH /list-users is over this call's limit of " +
                         std::to_string(kLimit) + " bytes"),
            std::string::npos)
      << message;
  EXPECT_LT(held, HeldAtMost(kLimit));
}

// The readiness probe (the upgrade validation, the gateway's own probe and the client's check)
// needs the start of ListBuckets only: a gateway with an endless answer is judged on it and
// costs 64 KiB.
TEST(BoundedReadTest, TheReadinessProbeReadsOnlyThePrefixItJudges) {
  LoopbackGateway gateway([](const ReceivedRequest& request, ResponseWriter& out) {
    if (request.target == "/_/health") return WriteEndlessAnswer(out, Framing::kUntilClose);
    WriteEndlessAnswer(out, Framing::kChunked,
                       "<?xml version=\"1.0\"?><ListAllMyBucketsResult><Buckets>");
  });
  BeastHttpTransport transport;
  FakeClock clock;
  S3Client client(transport, gateway.endpoint(), {"root", "secret"}, "us-east-1", clock,
                  std::chrono::seconds(10));
  ProbeResult probe;
  const int64_t held = PeakAllocatedDuring([&] { probe = RunReadinessProbe(client, "/_/health"); });
  EXPECT_EQ(probe.outcome, ProbeOutcome::kHealthy) << probe.message;
  EXPECT_EQ(gateway.requests(), 2);
  EXPECT_LT(held, HeldAtMost(kProbeReadLimit.max_bytes));
  EXPECT_LT(gateway.bytes_sent(), 2 * (kProbeReadLimit.max_bytes + kKernelSlack));
}

}  // namespace
}  // namespace rdmastack::s3
