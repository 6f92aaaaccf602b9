#include "controllers/common/owned_pod.h"

#include <gtest/gtest.h>

#include "base/utf8.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::controllers {
namespace {

std::string LogOf(int lines) {
  std::string log;
  for (int i = 0; i < lines; ++i)
    log +=
        "line " + std::to_string(i) + " of the gateway's log \xE2\x80\x94 d\xC3\xA9j\xC3\xA0 vu\n";
  return log + "refused (library-pin): the last line says why\n";
}

TEST(LastWordsTest, ShortMessagesAreKept) {
  EXPECT_EQ(LastWords("exit 1"), "exit 1");
}

// FallbackToLogsOnError puts up to 2 KiB of log in the termination message: its last whole
// lines are kept, after a line that says how much went.
TEST(LastWordsTest, ALongLogKeepsItsLastWholeLines) {
  const std::string log = LogOf(60);
  const std::string kept = LastWords(log);
  EXPECT_LE(TextLength(kept, TextUnit::kCodePoints), kMaxPodMessageLength);
  EXPECT_TRUE(IsValidUtf8(kept));
  EXPECT_EQ(kept.rfind("\xE2\x80\xA6 (", 0), 0u) << kept;
  const size_t first_line = kept.find('\n') + 1;
  EXPECT_EQ(kept.substr(first_line, 5), "line ") << "a whole line follows the marker";
  EXPECT_TRUE(kept.ends_with("\nrefused (library-pin): the last line says why\n")) << kept;
  const std::string cut = kept.substr(0, first_line);
  EXPECT_EQ(cut, "\xE2\x80\xA6 (" + std::to_string(log.size() - (kept.size() - first_line)) +
                     " bytes cut)\n");
}

// The client's refusal is one line that names every refused file: its start says what it is.
TEST(LastWordsTest, OneLongLastLineKeepsItsStart) {
  const std::string line = "LibraryRefused: " + std::string(3000, 'x') + " the end\n";
  const std::string kept = LastWords("earlier output\n" + line);
  EXPECT_LE(TextLength(kept, TextUnit::kCodePoints), kMaxPodMessageLength);
  EXPECT_EQ(kept.rfind("LibraryRefused: ", 0), 0u) << kept;
  EXPECT_NE(kept.find("bytes cut)"), std::string::npos) << kept;
}

TEST(ReadOwnedPodTest, TheTerminationMessageIsKeptToItsLastWords) {
  const std::string log = LogOf(60);
  k8s::JsonBuilder status;
  status.SetString({"name"}, "gateway");
  status.SetString({"state", "waiting", "reason"}, "CrashLoopBackOff");
  status.SetString({"state", "waiting", "message"}, "back-off 10s");
  status.SetString({"lastState", "terminated", "message"}, log);
  k8s::JsonBuilder pod;
  pod.SetName("kvcache-gateway-v1-abc");
  pod.Append({"status", "containerStatuses"}, status);
  const OwnedPod p = ReadOwnedPod(std::move(pod).Build(), "gateway");
  EXPECT_EQ(p.waiting_reason, "CrashLoopBackOff");
  EXPECT_EQ(p.message, LastWords(log));
  EXPECT_LT(p.message.size(), log.size());
}

}  // namespace
}  // namespace rdmastack::controllers
