// Finding the host's NVML below a host root, as the agent must in its pod (the image has none),
// and the one rule for where device facts come from. A stand-in libnvidia-ml.so.1
// (tests/fake_nvml.cc) plays the host's library.
#include "node/probe/nvml_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agents/node-agent/cli/check_command.h"
#include "node/probe/nvml_query.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::agent {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

#if defined(__aarch64__)
constexpr char kMultiarchDir[] = "usr/lib/aarch64-linux-gnu";
#else
constexpr char kMultiarchDir[] = "usr/lib/x86_64-linux-gnu";
#endif

// A scratch host root, removed at the end of the test.
class FakeHost {
 public:
  FakeHost() {
    static int counter = 0;
    root_ = fs::temp_directory_path() /
            ("rdmastack-nvml-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(root_);
  }
  ~FakeHost() { fs::remove_all(root_); }
  std::string root() const { return root_.string(); }
  std::string Path(const std::string& rel) const { return (root_ / rel).string(); }
  void Write(const std::string& rel, const std::string& bytes) const {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << bytes;
  }
  void Link(const std::string& rel, const std::string& target) const {
    fs::create_directories((root_ / rel).parent_path());
    fs::create_symlink(target, root_ / rel);
  }
  // The stand-in NVML as a driver package installs it: the versioned file and the soname link.
  void InstallNvml(const std::string& dir) const {
    fs::create_directories(root_ / dir);
    fs::copy_file(RDMASTACK_FAKE_NVML, root_ / dir / "libnvidia-ml.so.580.159.04");
    Link(dir + "/libnvidia-ml.so.1", "libnvidia-ml.so.580.159.04");
  }

 private:
  fs::path root_;
};

// What a cache's string table looks like: header bytes, sonames, and full paths, NUL-separated.
std::string LdCache(const std::vector<std::string>& strings) {
  std::string out("glibc-ld.so.cache1.1\x03\0\0\0"s);
  for (const auto& s : strings) out += s + '\0';
  return out;
}

TEST(LdCachePathsTest, FindsTheFullPathsOfOneSonameAndTheirTails) {
  const std::string cache =
      LdCache({"libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", "libnvidia-ml.so",
               "/usr/lib/libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.10",
               "/usr/local/nvidia/lib64/libnvidia-ml.so.1", "libc.so.6"});
  EXPECT_EQ(node::LdCachePaths(cache, "libnvidia-ml.so.1"),
            (std::vector<std::string>{"/usr/local/nvidia/lib64/libnvidia-ml.so.1",
                                      "/local/nvidia/lib64/libnvidia-ml.so.1",
                                      "/nvidia/lib64/libnvidia-ml.so.1", "/lib64/libnvidia-ml.so.1",
                                      "/usr/lib/libnvidia-ml.so.1", "/lib/libnvidia-ml.so.1"}));
  EXPECT_TRUE(node::LdCachePaths(cache, "libcuda.so.1").empty());
  EXPECT_TRUE(node::LdCachePaths("", "libnvidia-ml.so.1").empty());
  EXPECT_TRUE(node::LdCachePaths("/no/terminator/libnvidia-ml.so.1x", "libnvidia-ml.so.1").empty());
}

// The real format: this machine's own cache names where its libc is, as `ldconfig -p` does.
TEST(LdCachePathsTest, ReadsThisMachinesCache) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  if (!in) GTEST_SKIP() << "no /etc/ld.so.cache here";
  std::stringstream bytes;
  bytes << in.rdbuf();
  const auto paths = node::LdCachePaths(bytes.str(), "libc.so.6");
  ASSERT_FALSE(paths.empty());
  EXPECT_TRUE(fs::exists(paths.front())) << paths.front();
}

TEST(NvmlLibraryCandidatesTest, TheLiveRootLeavesTheSearchToTheLoader) {
  EXPECT_EQ(node::NvmlLibraryCandidates("/"), std::vector<std::string>{"libnvidia-ml.so.1"});
}

TEST(NvmlLibraryCandidatesTest, HostFilesComeFirstResolvedInsideTheHostRoot) {
  FakeHost host;
  // The host's cache names the toolkit directory; its link there is absolute, so it points into
  // the host's tree, not into the container's.
  host.Write("etc/ld.so.cache",
             LdCache({"libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1"}));
  host.Write("opt/driver/libnvidia-ml.so.580.159.04", "ELF");
  host.Link("usr/local/nvidia/lib64/libnvidia-ml.so.1", "/opt/driver/libnvidia-ml.so.580.159.04");
  host.InstallNvml(kMultiarchDir);
  host.InstallNvml("run/nvidia/driver/usr/lib64");  // the GPU operator's driver root
  host.Write("usr/lib64/libnvidia-ml.so.1/README", "a directory, not a library");
  EXPECT_EQ(
      node::NvmlLibraryCandidates(host.root()),
      (std::vector<std::string>{host.Path("opt/driver/libnvidia-ml.so.580.159.04"),
                                host.Path(kMultiarchDir + "/libnvidia-ml.so.580.159.04"s),
                                host.Path("run/nvidia/driver/usr/lib64/libnvidia-ml.so.580.159.04"),
                                "libnvidia-ml.so.1"}));
}

TEST(NvmlLibraryCandidatesTest, AHostWithoutNvmlLeavesOnlyTheSoname) {
  FakeHost host;
  host.Write("etc/ld.so.cache", LdCache({"/usr/lib/libnvidia-ml.so.1"}));  // stale entry
  EXPECT_EQ(node::NvmlLibraryCandidates(host.root()),
            std::vector<std::string>{"libnvidia-ml.so.1"});
}

bool ThisMachineHasNvml() {
  void* h = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) ::dlclose(h);
  return h != nullptr;
}

TEST(QueryNvmlBar1Test, LoadsTheNvmlBelowTheHostRoot) {
  FakeHost host;
  host.InstallNvml(kMultiarchDir);
  std::vector<node::ProbeIssue> issues;
  const auto got = node::QueryNvmlBar1({"0000:00:06.0", "0000:00:07.0"}, host.root(), &issues);
  EXPECT_TRUE(issues.empty()) << issues.front().message;
  ASSERT_EQ(got.size(), 1u);  // the second GPU is unknown to NVML
  EXPECT_EQ(got[0].bdf, "0000:00:06.0");
  EXPECT_EQ(got[0].total, 274877906944);
  EXPECT_EQ(got[0].free, 274877906944 - 7 * 1048576);
}

TEST(QueryNvmlBar1Test, NoLoadableLibraryIsAnIssueNamingTheRoot) {
  if (ThisMachineHasNvml()) GTEST_SKIP() << "this machine has an NVML on the loader's path";
  FakeHost host;
  host.Write(kMultiarchDir + "/libnvidia-ml.so.1"s, "not an ELF file");
  std::vector<node::ProbeIssue> issues;
  EXPECT_TRUE(node::QueryNvmlBar1({"0000:00:06.0"}, host.root(), &issues).empty());
  ASSERT_EQ(issues.size(), 1u);
  const std::string& message = issues[0].message;
  EXPECT_EQ(message.rfind("no loadable libnvidia-ml.so.1 below " + host.root() + " (" +
                              host.Path(kMultiarchDir + "/libnvidia-ml.so.1"s),
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("); BAR1 free is unknown"), std::string::npos) << message;
}

TEST(NvmlHelperArgsTest, CarryTheRootToTheHelper) {
  EXPECT_EQ(
      node::NvmlHelperArgs("/host", {"0000:00:06.0", "0000:1a:00.0"}),
      (std::vector<std::string>{"nvml-bar1", "--root", "/host", "0000:00:06.0", "0000:1a:00.0"}));
  EXPECT_EQ(node::RunNvmlBar1Command({"--root"}), 2);
  EXPECT_EQ(node::RunNvmlBar1Command({"--root", ""}), 2);
}

// The one rule of check_command.h, as the DaemonSets and the harness combine the flags.
TEST(ProbeSourceTest, ProbesFileOverridesLiveProbesAndLiveNeedsTheLiveRootOrTheFlag) {
  EXPECT_EQ(node::ChooseProbeSource("/host", "/host/p.txt", true), node::ProbeSource::kRecorded);
  EXPECT_EQ(node::ChooseProbeSource("/", "/p.txt", false), node::ProbeSource::kRecorded);
  EXPECT_EQ(node::ChooseProbeSource("/host", "", true), node::ProbeSource::kLive);
  EXPECT_EQ(node::ChooseProbeSource("/", "", false), node::ProbeSource::kLive);
  EXPECT_EQ(node::ChooseProbeSource("/host", "", false), node::ProbeSource::kNone);
  EXPECT_EQ(node::DescribeProbeSource("/host", "/host/p.txt", true),
            "recorded (/host/p.txt; overrides --live-probes)");
  EXPECT_EQ(node::DescribeProbeSource("/host", "", true), "live (libibverbs; NVML below /host)");
  EXPECT_EQ(node::DescribeProbeSource("/", "", false),
            "live (libibverbs; NVML on the loader's path)");
  EXPECT_EQ(node::DescribeProbeSource("/host", "", false),
            "none (--root /host without --live-probes or --probes-file)");
}

// `check --root R --live-probes` over a copy of the real H200 tree with the stand-in NVML put
// below R, as the DaemonSet's agent sees the host at /host: BAR1 comes from that NVML.
TEST(ProbeSourceTest, LiveProbesOfAHostRootTakeBar1FromItsNvml) {
  FakeHost host;
  const std::string fixture = node::testing::FixtureDir("real-h200-open-580-no-rdma-nic");
  fs::copy(fixture + "/root", host.root(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  host.InstallNvml(kMultiarchDir);
  auto options = ParseCheckOptions({"--root", host.root(), "--role", "client", "--ips-file",
                                    fixture + "/ips.txt", "--live-probes", "--output", "json"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  auto run = RunCheck(*options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->facts.device_probe_source, "live");
  ASSERT_EQ(run->facts.gpus.size(), 1u);
  EXPECT_EQ(run->facts.gpus[0].bar1_source, "nvml");
  EXPECT_EQ(run->facts.gpus[0].bar1_free_bytes, 274877906944 - 7 * 1048576);

  // The same flags plus the harness's --probes-file: the recorded results win.
  options->probes_file = fixture + "/probes.txt";
  run = RunCheck(*options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->facts.device_probe_source, "recorded");
  EXPECT_EQ(run->facts.gpus[0].bar1_free_bytes, 274876203008);
}

}  // namespace
}  // namespace rdmastack::agent
