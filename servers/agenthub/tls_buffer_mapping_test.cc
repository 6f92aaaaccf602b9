#include "servers/agenthub/tls_buffer_mapping.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace rdmastack::agenthub {
namespace {

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

// Installed once for the whole binary, before any test has OpenSSL allocate.
void Install() {
  static const Status installed =
      MapLargeOpenSslBuffers({.threshold_bytes = 16 * 1024, .max_mappings = 3});
  ASSERT_TRUE(installed.ok()) << installed.ToString();
}

// msync answers ENOMEM for an address range that is not mapped.
bool IsMapped(const void* p) {
  return msync(const_cast<void*>(p), kPage, MS_ASYNC) == 0;
}

TEST(TlsBufferMappingTest, ALargeAllocationGetsItsOwnMappingAndGivesItBack) {
  Install();
  const size_t before = MappedOpenSslBytes();
  auto* p = static_cast<unsigned char*>(OPENSSL_malloc(17 * 1024));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kPage, 0u);
  EXPECT_EQ(MappedOpenSslBytes(), before + 20 * 1024) << "17 KiB, in whole pages";
  std::memset(p, 0xab, 17 * 1024);
  EXPECT_EQ(p[17 * 1024 - 1], 0xab);
  OPENSSL_free(p);
  EXPECT_EQ(MappedOpenSslBytes(), before);
  EXPECT_FALSE(IsMapped(p)) << "freeing unmaps it at once";
  EXPECT_EQ(errno, ENOMEM);
}

TEST(TlsBufferMappingTest, SmallAllocationsStayOnTheHeap) {
  Install();
  const size_t before = MappedOpenSslBytes();
  void* p = OPENSSL_malloc(16 * 1024 - 1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(MappedOpenSslBytes(), before);
  OPENSSL_free(p);
  EXPECT_EQ(OPENSSL_malloc(0), nullptr) << "as OpenSSL's own allocator";
  OPENSSL_free(nullptr);
}

TEST(TlsBufferMappingTest, ReallocKeepsTheBytesAcrossTheThreshold) {
  Install();
  const size_t before = MappedOpenSslBytes();
  auto* p = static_cast<char*>(OPENSSL_malloc(100));
  ASSERT_NE(p, nullptr);
  std::memcpy(p, "heartbeat", 10);
  p = static_cast<char*>(OPENSSL_realloc(p, 40 * 1024));  // onto a mapping
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "heartbeat");
  EXPECT_EQ(MappedOpenSslBytes(), before + 40 * 1024);
  p[40 * 1024 - 1] = 'x';
  p = static_cast<char*>(OPENSSL_realloc(p, 64 * 1024));  // a bigger mapping
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "heartbeat");
  EXPECT_EQ(p[40 * 1024 - 1], 'x');
  EXPECT_EQ(MappedOpenSslBytes(), before + 64 * 1024);
  p = static_cast<char*>(OPENSSL_realloc(p, 50));  // back onto the heap
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "heartbeat");
  EXPECT_EQ(MappedOpenSslBytes(), before);
  EXPECT_EQ(OPENSSL_realloc(p, 0), nullptr) << "0 bytes frees";
  EXPECT_EQ(MappedOpenSslBytes(), before);
}

TEST(TlsBufferMappingTest, PastTheMappingsAllowedTheHeapServes) {
  Install();  // three mappings allowed
  const size_t before = MappedOpenSslBytes();
  void* mapped[3];
  for (void*& p : mapped) p = OPENSSL_malloc(20 * 1024);
  EXPECT_EQ(MappedOpenSslBytes(), before + 3 * 20 * 1024);
  auto* heap = static_cast<char*>(OPENSSL_malloc(20 * 1024));
  ASSERT_NE(heap, nullptr);
  EXPECT_EQ(MappedOpenSslBytes(), before + 3 * 20 * 1024) << "the fourth comes from the heap";
  heap[20 * 1024 - 1] = 'h';
  OPENSSL_free(heap);
  OPENSSL_free(mapped[0]);
  void* again = OPENSSL_malloc(20 * 1024);
  EXPECT_EQ(MappedOpenSslBytes(), before + 3 * 20 * 1024)
      << "a freed mapping's place is free again";
  OPENSSL_free(again);
  OPENSSL_free(mapped[1]);
  OPENSSL_free(mapped[2]);
  EXPECT_EQ(MappedOpenSslBytes(), before);
}

// gRPC's threads open and close connections at once (run under TSan too).
TEST(TlsBufferMappingTest, ThreadsAllocatingAtOnceKeepTheCountRight) {
  Install();  // three mappings allowed, so the threads contend for them and spill onto the heap
  const size_t before = MappedOpenSslBytes();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 200; ++i) {
        auto* big = static_cast<unsigned char*>(OPENSSL_malloc(17 * 1024));
        auto* small = static_cast<unsigned char*>(OPENSSL_malloc(64));
        big[0] = big[17 * 1024 - 1] = small[63] = static_cast<unsigned char>(t);
        big = static_cast<unsigned char*>(OPENSSL_realloc(big, 30 * 1024));
        if (big[0] != t || big[17 * 1024 - 1] != t || small[63] != t) ++wrong;
        OPENSSL_free(small);
        OPENSSL_free(big);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(MappedOpenSslBytes(), before) << "every mapping given back";
  void* mapped[3];
  for (void*& p : mapped) p = OPENSSL_malloc(20 * 1024);
  EXPECT_EQ(MappedOpenSslBytes(), before + 3 * 20 * 1024) << "all three places free again";
  for (void* p : mapped) OPENSSL_free(p);
}

// The buffers gRPC's TLS connections hold: a BIO pair of 17 KiB each way.
TEST(TlsBufferMappingTest, ABioPairsBuffersAreMappedAndCarryBytes) {
  Install();
  const size_t before = MappedOpenSslBytes();
  BIO* network = nullptr;
  BIO* ssl = nullptr;
  ASSERT_EQ(BIO_new_bio_pair(&network, 17 * 1024, &ssl, 17 * 1024), 1);
  EXPECT_EQ(MappedOpenSslBytes(), before + 2 * 20 * 1024);
  const std::string record(10'000, 'r');
  ASSERT_EQ(BIO_write(ssl, record.data(), static_cast<int>(record.size())),
            static_cast<int>(record.size()));
  std::string read(record.size(), '\0');
  ASSERT_EQ(BIO_read(network, read.data(), static_cast<int>(read.size())),
            static_cast<int>(read.size()));
  EXPECT_EQ(read, record);
  BIO_free(network);
  BIO_free(ssl);
  EXPECT_EQ(MappedOpenSslBytes(), before);
}

TEST(TlsBufferMappingTest, ASecondOrBadInstallIsRefusedAndChangesNothing) {
  Install();
  const Status again = MapLargeOpenSslBuffers();
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition) << again.ToString();
  EXPECT_NE(again.message().find("already installed"), std::string::npos) << again.message();
  EXPECT_EQ(MapLargeOpenSslBuffers({.threshold_bytes = 100}).code(), StatusCode::kInvalidArgument);
  void* p = OPENSSL_malloc(20 * 1024);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kPage, 0u) << "the first install still holds";
  OPENSSL_free(p);
}

// A process of its own (the death test's threadsafe style re-runs the binary for this test alone),
// where OpenSSL's own allocator runs first.
TEST(TlsBufferMappingDeathTest, AnInstallAfterOpenSslAllocatedIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        OPENSSL_free(OPENSSL_malloc(8));
        const Status s = MapLargeOpenSslBuffers();
        std::fprintf(stderr, "%s\n", s.message().c_str());
        void* p = OPENSSL_malloc(20 * 1024);
        const bool mapped = reinterpret_cast<uintptr_t>(p) % kPage == 0 && MappedOpenSslBytes() > 0;
        OPENSSL_free(p);
        std::_Exit(s.code() == StatusCode::kFailedPrecondition && !mapped ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "OpenSSL has already allocated memory; install it first");
}

}  // namespace
}  // namespace rdmastack::agenthub
