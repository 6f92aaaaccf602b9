#include "tests/harness/node-runtime/log_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

// Collects what is sent; a test step runs on each wait (the container writing, exiting).
class RecordingSink : public LogSink {
 public:
  bool Write(std::string_view bytes) override {
    got += bytes;
    return !gone;
  }
  bool StillThere(std::chrono::milliseconds) override {
    ++waits;
    if (on_wait) on_wait(waits);
    return !gone;
  }
  std::string got;
  bool gone = false;
  int waits = 0;
  std::function<void(int)> on_wait;
};

class StreamLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("log-stream");
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "0.log").string();
    Append("one\ntwo\nthree\n");
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    ::close(fd_);
    std::filesystem::remove_all(dir_);
  }
  void Append(const std::string& text) { std::ofstream(path_, std::ios::app) << text; }
  std::filesystem::path dir_;
  std::string path_;
  int fd_ = -1;
};

TEST_F(StreamLogTest, WithoutFollowSendsTheSelectionOnce) {
  RecordingSink sink;
  LogRequest r;
  r.tail_lines = 2;
  FollowPolicy follow{[] { return true; }};
  EXPECT_EQ(StreamLog(fd_, r, follow, sink), 10u);
  EXPECT_EQ(sink.got, "two\nthree\n");
  EXPECT_EQ(sink.waits, 0);
}

TEST_F(StreamLogTest, FollowSendsWhatIsAppendedUntilTheContainerEnds) {
  RecordingSink sink;
  LogRequest r;
  r.follow = true;
  r.tail_lines = 1;
  bool running = true;
  sink.on_wait = [&](int wait) {
    if (wait == 1) Append("four\n");
    // Written just before it ended: still sent.
    if (wait == 3) {
      Append("last words\n");
      running = false;
    }
  };
  FollowPolicy follow{[&] { return running; }, std::chrono::milliseconds(1)};
  StreamLog(fd_, r, follow, sink);
  EXPECT_EQ(sink.got, "three\nfour\nlast words\n");
  EXPECT_EQ(sink.waits, 3);
}

TEST_F(StreamLogTest, FollowEndsWhenTheClientLeaves) {
  RecordingSink sink;
  LogRequest r;
  r.follow = true;
  sink.on_wait = [&](int wait) {
    if (wait == 2) sink.gone = true;
  };
  FollowPolicy follow{[] { return true; }, std::chrono::milliseconds(1)};
  StreamLog(fd_, r, follow, sink);
  EXPECT_EQ(sink.waits, 2);
}

TEST_F(StreamLogTest, LimitBytesCoversWhatFollowAdds) {
  RecordingSink sink;
  LogRequest r;
  r.follow = true;
  r.limit_bytes = 16;  // "one\ntwo\nthree\n" is 14
  sink.on_wait = [&](int) { Append("four\n"); };
  FollowPolicy follow{[] { return true; }, std::chrono::milliseconds(1)};
  EXPECT_EQ(StreamLog(fd_, r, follow, sink), 16u);
  EXPECT_EQ(sink.got, "one\ntwo\nthree\nfo");
  EXPECT_EQ(sink.waits, 1);  // done once the limit is reached, not at the next look

  RecordingSink cut;
  r.follow = false;
  r.limit_bytes = 5;
  EXPECT_EQ(StreamLog(fd_, r, follow, cut), 5u);
  EXPECT_EQ(cut.got, "one\nt");
}

TEST_F(StreamLogTest, AContainerThatIsNotRunningIsNotFollowed) {
  RecordingSink sink;
  LogRequest r;
  r.follow = true;
  FollowPolicy follow{[] { return false; }, std::chrono::milliseconds(1)};
  StreamLog(fd_, r, follow, sink);
  EXPECT_EQ(sink.got, "one\ntwo\nthree\n");
  EXPECT_EQ(sink.waits, 0);
}

}  // namespace
}  // namespace rdmastack::sim
