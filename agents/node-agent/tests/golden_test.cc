// `check --output json` for every fixture profile and both roles equals the committed golden file
// (tests/fixtures/nodes/<profile>/golden/<role>.json). RDMASTACK_UPDATE_GOLDEN=1 rewrites them;
// review the diff before committing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agents/node-agent/cli/check_command.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::agent {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

struct Case {
  std::string profile;
  std::string role;
};

class GoldenTest : public ::testing::TestWithParam<Case> {};

TEST_P(GoldenTest, JsonMatchesGolden) {
  const Case& c = GetParam();
  const std::string dir = node::testing::FixtureDir(c.profile);
  std::vector<std::string> args = {
      "--root",        dir + "/root",       "--role",   c.role, "--ips-file", dir + "/ips.txt",
      "--probes-file", dir + "/probes.txt", "--output", "json"};
  for (const auto& a : Split(ReadFile(dir + "/args"))) args.push_back(a);
  auto options = ParseCheckOptions(args);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  auto run = RunCheck(*options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::string got = run->rendered;
  ReplaceAll(&got, dir, "<fixture>");
  const std::string golden = dir + "/golden/" + c.role + ".json";
  if (std::getenv("RDMASTACK_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(dir + "/golden");
    std::ofstream(golden) << got;
  }
  EXPECT_EQ(got, ReadFile(golden))
      << "golden " << golden << " differs; rerun with RDMASTACK_UPDATE_GOLDEN=1 and review";
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (const char* p :
       {"storage-cx6-ib-ipoib-bond0-el8-inbox", "gpu-client-rtxa6000-bar1-256m-peermem-mofed",
        "gpu-client-h100-dmabuf-open-inbox", "gpu-client-cx4-vf-vm", "gateway-roce-v2-gid3-doca",
        "gpu-client-cross-socket-sys", "gpu-client-h100-peermem-mofed",
        "gpu-client-rtxa6000-224mi-bar1-too-small", "storage-cx6-ib-port-down", "node-without-rdma",
        "real-h200-open-580-no-rdma-nic", "gpu-client-h100-acs-redirect",
        "gpu-client-h100-iommu-translated", "gpu-client-h100-peermem-abi-drift",
        "gpu-client-hgx-h100-8gpu-8nic", "gpu-client-cx8-data-direct-4gpu",
        "gpu-client-cx8-data-direct-unbound", "storage-cx7-ib-two-rails",
        "storage-cx6dx-roce-bond-lag"}) {
    for (const char* role : {"gateway", "client"}) out.push_back({p, role});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Profiles, GoldenTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.profile + "_" + info.param.role;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// Verdicts the profiles exist for; the goldens hold the rest.
TEST(GoldenVerdictTest, ExpectedOutcomes) {
  struct Want {
    const char* profile;
    const char* role;
    std::vector<std::string> args;
    bool ready;
    const char* transport;
    const char* failing_reason;  // a check that must fail ("" = none)
  };
  const std::vector<Want> wants = {
      {"storage-cx6-ib-ipoib-bond0-el8-inbox", "gateway", {}, true, "", ""},
      {"gateway-roce-v2-gid3-doca", "gateway", {}, true, "", ""},
      {"gpu-client-rtxa6000-bar1-256m-peermem-mofed", "client", {}, true, "GPUDirect", ""},
      {"gpu-client-rtxa6000-224mi-bar1-too-small",
       "client",
       {"--max-transfer-size", "224Mi"},
       true,
       "HostMemory",
       "Bar1TooSmall"},
      {"gpu-client-rtxa6000-bar1-256m-peermem-mofed",
       "client",
       {"--max-transfer-size", "192Mi"},
       true,
       "GPUDirect",
       ""},
      {"gpu-client-rtxa6000-224mi-bar1-too-small",
       "client",
       {"--max-transfer-size", "224Mi", "--transport", "GPUDirect"},
       false,
       "",
       "Bar1TooSmall"},
      {"gpu-client-h100-dmabuf-open-inbox", "client", {}, true, "GPUDirect", ""},
      {"gpu-client-h100-dmabuf-open-inbox",
       "client",
       {"--memory-registration", "PeerMem"},
       true,
       "HostMemory",
       "PeerMemNotLoaded"},
      {"gpu-client-h100-peermem-mofed",
       "client",
       {"--memory-registration", "DMABuf"},
       true,
       "HostMemory",
       "DmaBufUnsupported"},
      {"gpu-client-h100-acs-redirect", "client", {}, true, "HostMemory", "AcsRedirectOnPath"},
      {"gpu-client-h100-acs-redirect",
       "client",
       {"--transport", "GPUDirect"},
       false,
       "",
       "AcsRedirectOnPath"},
      {"gpu-client-h100-iommu-translated", "client", {}, true, "HostMemory", "IommuTranslating"},
      {"gpu-client-cx4-vf-vm", "client", {}, false, "", "UnsupportedNic"},
      {"gpu-client-cross-socket-sys", "client", {}, true, "HostMemory", "GpuNicTooFar"},
      {"gpu-client-cross-socket-sys",
       "client",
       {"--max-gpu-nic-distance", "SYS"},
       true,
       "GPUDirect",
       ""},
      {"storage-cx6-ib-port-down", "gateway", {}, false, "", "LinkDown"},
      {"node-without-rdma", "client", {}, false, "", "NoRdmaDevice"},
  };
  for (const Want& w : wants) {
    const std::string dir = node::testing::FixtureDir(w.profile);
    std::vector<std::string> args = {"--root",        dir + "/root",      "--role",
                                     w.role,          "--ips-file",       dir + "/ips.txt",
                                     "--probes-file", dir + "/probes.txt"};
    args.insert(args.end(), w.args.begin(), w.args.end());
    auto run = RunCheck(*ParseCheckOptions(args));
    ASSERT_TRUE(run.ok());
    SCOPED_TRACE(std::string(w.profile) + " " + w.role);
    EXPECT_EQ(run->evaluation.ready, w.ready);
    EXPECT_EQ(run->evaluation.selected_transport, w.transport);
    bool found = std::string(w.failing_reason).empty();
    for (const auto& c : run->evaluation.checks) {
      found = found || (c.status == node::CheckStatus::kFail && c.reason == w.failing_reason);
    }
    EXPECT_TRUE(found) << "no failing check with reason " << w.failing_reason;
  }
}

}  // namespace
}  // namespace rdmastack::agent
