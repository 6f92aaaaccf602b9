// The live prober's NVML-in-a-helper mode and the helper runner, with scripts standing in for
// `rdmastack-agent nvml-bar1` (this machine has no NVIDIA driver; the real helper ran on the lent
// H200 host, docs/bench-agent.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "node/probe/device_prober.h"
#include "node/probe/node_probe.h"
#include "node/probe/subprocess.h"
#include "node/probe/system_probe.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class HelperScript {
 public:
  explicit HelperScript(const std::string& body) {
    dir_ = fs::temp_directory_path() /
           ("rdmastack-helper-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(dir_);
    path_ = (dir_ / "helper.sh").string();
    std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path_.c_str(), 0755);
  }
  ~HelperScript() { fs::remove_all(dir_); }
  const std::string& path() const { return path_; }
  std::string dir() const { return dir_.string(); }
  int Runs() const {
    std::ifstream in(dir_ / "runs");
    return static_cast<int>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
  }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  std::string path_;
};

TEST(RunAndCaptureTest, CapturesStdoutAndStderrOfASuccessfulRun) {
  auto r = RunAndCapture({"/bin/sh", "-c", "echo out; echo err >&2"}, milliseconds(5000));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(RunAndCaptureTest, NonZeroExitNamesTheProgramAndItsFirstErrorLine) {
  auto r = RunAndCapture({"/bin/sh", "-c", "echo 'first problem' >&2; echo second >&2; exit 3"},
                         milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/bin/sh exited 3: first problem");
}

TEST(RunAndCaptureTest, AHangingHelperIsKilledAtTheDeadline) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = RunAndCapture({"/bin/sleep", "30"}, milliseconds(300));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status().message().find("killed"), std::string::npos) << r.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(RunAndCaptureTest, MissingProgramIsAnError) {
  auto r = RunAndCapture({"/nonexistent/rdmastack-agent", "nvml-bar1"}, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/rdmastack-agent"), std::string::npos);
}

constexpr char kProfile[] = "real-h200-open-580-no-rdma-nic";

NodeFacts ProbeWith(DeviceProber* prober) {
  const std::string dir = testing::FixtureDir(kProfile);
  ProbeOptions opts;
  opts.root = dir + "/root";
  opts.ips_file = dir + "/ips.txt";
  opts.device_prober = prober;
  return ProbeNode(opts);
}

// One live probe of the fixture with NVML answered by `helper`, asked about the fixture's root.
NodeFacts ProbeWithHelper(const HelperScript& helper) {
  LiveProberOptions o;
  o.root = testing::FixtureDir(kProfile) + "/root";
  o.nvml_helper = helper.path();
  auto prober = MakeLiveDeviceProber(o);
  return ProbeWith(prober.get());
}

bool HasIssue(const NodeFacts& facts, std::string_view text) {
  for (const auto& issue : facts.issues) {
    if (issue.message.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(LiveProberHelperTest, Bar1ComesFromTheHelperForEveryGpuInOneRun) {
  HelperScript helper(
      "echo \"$@\" >> \"$(dirname \"$0\")/runs\"\n"
      "[ \"$1 $2 $3\" = \"nvml-bar1 --root " +
      testing::FixtureDir(kProfile) +
      "/root\" ] || exit 9\n"
      "echo \"nvml $4 bar1 274877906944 1073741824\"");
  NodeFacts facts = ProbeWithHelper(helper);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_EQ(facts.gpus[0].bar1_total_bytes, 274877906944);
  EXPECT_EQ(facts.gpus[0].bar1_free_bytes, 1073741824);
  EXPECT_EQ(facts.gpus[0].bar1_source, "nvml");
  EXPECT_EQ(helper.Runs(), 1);
}

TEST(LiveProberHelperTest, RecentAnswerIsReusedUntilItIsTooOld) {
  HelperScript helper(
      "echo run >> \"$(dirname \"$0\")/runs\"\n"
      "echo \"nvml $4 bar1 274877906944 1073741824\"");
  LiveProberOptions o;
  o.nvml_helper = helper.path();
  o.nvml_cache = std::make_shared<NvmlSampleCache>();
  o.nvml_max_age = std::chrono::seconds(300);
  for (int i = 0; i < 3; ++i) {
    auto prober = MakeLiveDeviceProber(o);  // a fresh prober per probe, as the daemon does
    EXPECT_EQ(ProbeWith(prober.get()).gpus[0].bar1_free_bytes, 1073741824);
  }
  EXPECT_EQ(helper.Runs(), 1);
  o.nvml_max_age = std::chrono::seconds(0);
  auto prober = MakeLiveDeviceProber(o);
  ProbeWith(prober.get());
  EXPECT_EQ(helper.Runs(), 2);
}

TEST(LiveProberHelperTest, FailingHelperBecomesAProbeIssueAndBar1FallsBackToSysfs) {
  HelperScript helper("echo 'nvmlInit_v2 returned 9' >&2\nexit 1");
  NodeFacts facts = ProbeWithHelper(helper);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_NE(facts.gpus[0].bar1_source, "nvml");
  EXPECT_EQ(facts.gpus[0].bar1_total_bytes, 274877906944);  // resource file, line 2
  EXPECT_TRUE(HasIssue(facts, "exited 1: nvmlInit_v2 returned 9"));
}

TEST(LiveProberHelperTest, HelperWarningsAreKeptAsIssuesBesideItsResults) {
  HelperScript helper(
      "echo 'NVML lacks the BAR1 memory calls' >&2\n"
      "echo \"nvml $4 bar1 274877906944 5\"");
  NodeFacts facts = ProbeWithHelper(helper);
  EXPECT_EQ(facts.gpus[0].bar1_free_bytes, 5);
  EXPECT_TRUE(HasIssue(facts, "NVML lacks the BAR1 memory calls"));
}

}  // namespace
}  // namespace rdmastack::node

namespace rdmastack::node {
namespace {

// The kallsyms answer is remembered until /proc/modules changes (a module load or unload).
TEST(KallsymsMemoTest, RescansOnlyWhenTheModuleListChanges) {
  const fs::path root =
      fs::temp_directory_path() / ("rdmastack-kallsyms-" + std::to_string(::getpid()));
  fs::create_directories(root / "proc");
  auto write = [&](const std::string& rel, const std::string& text) {
    std::ofstream(root / rel) << text;
  };
  const std::string modules = "ib_core 1 0 - Live 0xffffffffc0a00000\n";
  write("proc/modules", modules);
  write("proc/kallsyms", "ffffffffc0a01000 T ib_register_peer_memory_client\t[ib_core]\n");
  std::vector<ProbeIssue> issues;
  EXPECT_TRUE(ProbeDrivers(HostRoot(root.string()), &issues).peer_memory_api);

  // Same module list: the earlier answer stands even though the file now says otherwise.
  write("proc/kallsyms", "ffffffffc0a01000 T ib_register_device\t[ib_core]\n");
  EXPECT_TRUE(ProbeDrivers(HostRoot(root.string()), &issues).peer_memory_api);

  // ib_core reloaded at another address: scanned again.
  write("proc/modules", "ib_core 1 0 - Live 0xffffffffc0b00000\n");
  EXPECT_FALSE(ProbeDrivers(HostRoot(root.string()), &issues).peer_memory_api);
  fs::remove_all(root);
}

}  // namespace
}  // namespace rdmastack::node
