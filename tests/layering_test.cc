// The floor plan (docs/development.md, "Where code lives") as a test: every `#include "..."` of a
// product source must point into a folder its own folder may use. A new include that runs back
// up a tier, or sideways between two binaries' libraries, fails here with the file, the line and
// the rule it breaks.
//
// Tests (a tests/ or testing/ folder, *_test.cc, fuzz/ and *_fuzz.cc) may include anything; the
// code they test is what keeps the plan.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastack {
namespace {

namespace fs = std::filesystem;

std::string SourceDir() {
  const char* dir = std::getenv("RDMASTACK_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// A part of the tree and the parts it may include from (besides itself). Longest prefix wins,
// for the including file and for the included one.
struct Part {
  std::string_view path;
  std::vector<std::string_view> may_use;
};

const std::vector<Part>& Plan() {
  static const std::vector<Part> plan = {
      // Tier 0: no dependency of ours.
      {"base", {}},
      {"agents/proto", {}},
      // Tier 1: shared libraries. node/: what a node is (probes, checks); lib/: S3, the
      // compatibility file, ELF; operator/k8s: the Kubernetes API client. node/ reads kernel
      // modules with lib/elf (which needs only base).
      {"node", {"base", "lib/elf"}},
      {"lib", {"base"}},
      {"operator/k8s", {"base"}},
      // The API package: kinds (given to the k8s layer's registry), schema types, keys, codecs;
      // lib/rails reads the status it defines (status_rails.h) the way the client reads facts.
      {"crds", {"base", "operator/k8s", "lib"}},
      {"operator/runtime", {"base", "operator/k8s"}},
      // The operator's servers and controllers.
      {"servers/agenthub", {"base", "operator", "crds", "agents/proto"}},
      {"servers/webhook", {"base", "operator", "crds", "servers/agenthub"}},
      {"controllers/common", {"base", "operator", "crds", "node", "lib"}},
      {"controllers/rdmanode",
       {"base", "operator", "crds", "node", "lib", "controllers/common", "servers/agenthub",
        "agents/proto"}},
      {"controllers/gatewaypool",
       {"base", "operator", "crds", "node", "lib", "controllers/common"}},
      {"controllers/clientprofile",
       {"base", "operator", "crds", "node", "lib", "controllers/common"}},
      // Status-derived metrics read every kind's status; they decide nothing.
      {"controllers/metrics", {"base", "operator", "crds", "controllers/common"}},
      // The pod webhook's handler injects a profile's client workload: the one sideways edge.
      {"controllers/workload",
       {"base", "operator", "crds", "node", "lib", "controllers/common",
        "controllers/clientprofile", "servers/webhook"}},
      // The other binaries' libraries.
      {"agents/node-agent", {"base", "node", "agents/proto"}},
      {"agents/client", {"base", "node", "lib"}},
      {"gateway", {"base", "node", "lib", "operator/k8s"}},
      // The plugin renders the client bench's report (lib/s3/bench_report.h).
      {"cli", {"base", "operator/k8s", "crds", "lib"}},
      // Each binary's main wires the rest together.
      {"cmd", {"*"}},
      {"tests", {"*"}},
  };
  return plan;
}

bool Under(std::string_view path, std::string_view part) {
  return path == part || (path.size() > part.size() && path.substr(0, part.size()) == part &&
                          path[part.size()] == '/');
}

// The plan's part that `path` belongs to, or nullptr.
const Part* PartOf(std::string_view path) {
  const Part* best = nullptr;
  for (const Part& p : Plan()) {
    if (Under(path, p.path) && (best == nullptr || p.path.size() > best->path.size())) best = &p;
  }
  return best;
}

bool IsTest(std::string_view path) {
  const std::string p(path);
  return p.find("/tests/") != std::string::npos || p.find("/testing/") != std::string::npos ||
         p.find("/fuzz/") != std::string::npos || p.ends_with("_test.cc") ||
         p.ends_with("_fuzz.cc") || p.ends_with("test_paths.h") || p.ends_with("test_support.h") ||
         p.ends_with("test_support.cc");
}

// "" when `from` may include `target`, else what is wrong.
std::string Check(const std::string& from, const std::string& target) {
  const Part* source = PartOf(from);
  if (source == nullptr) return "is in no part of the plan (add its folder to Plan())";
  const Part* to = PartOf(target);
  if (to == nullptr) return "includes \"" + target + "\", which is in no part of the plan";
  if (to == source) return "";
  for (std::string_view allowed : source->may_use) {
    if (allowed == "*" || Under(to->path, allowed) || Under(target, allowed)) return "";
  }
  std::string rule;
  for (std::string_view allowed : source->may_use)
    rule += (rule.empty() ? "" : ", ") + std::string(allowed);
  return "includes \"" + target + "\" (" + std::string(to->path) + "), but " +
         std::string(source->path) + " may use only: " + (rule.empty() ? "nothing of ours" : rule);
}

std::vector<std::string> Violations(const fs::path& root) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<std::string> out;
  for (const std::string_view top : {"base", "node", "lib", "crds", "operator", "servers",
                                     "controllers", "agents", "gateway", "cli", "cmd"}) {
    if (!fs::exists(root / top)) {
      out.push_back(std::string(top) + "/ is missing");
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (IsTest(rel)) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (!std::regex_search(line, m, kInclude)) continue;
        const std::string target = m[1];
        // Generated and same-folder headers without a folder are not ours to place.
        if (target.find('/') == std::string::npos) continue;
        if (std::string why = Check(rel, target); !why.empty()) {
          out.push_back(rel + ":" + std::to_string(number) + ": " + why);
        }
      }
    }
  }
  return out;
}

TEST(LayeringTest, EveryIncludeFollowsThePlan) {
  const std::vector<std::string> violations = Violations(SourceDir());
  std::string all;
  for (const auto& v : violations) all += v + "\n";
  EXPECT_TRUE(violations.empty()) << violations.size() << " includes break the plan:\n" << all;
}

// The checker itself: a rule is enforced, a sideways edge is refused, tests are free.
TEST(LayeringTest, RefusesWhatBreaksThePlan) {
  EXPECT_EQ(Check("base/status.cc", "base/clock.h"), "");
  EXPECT_NE(Check("base/status.cc", "operator/k8s/client.h"), "");
  EXPECT_EQ(Check("node/probe/facts.cc", "base/status.h"), "");
  EXPECT_NE(Check("node/probe/facts.cc", "agents/node-agent/daemon/agent_daemon.h"), "");
  EXPECT_NE(Check("gateway/launcher/rdma_address.h", "agents/node-agent/cli/check_command.h"), "");
  EXPECT_NE(Check("controllers/clientprofile/x.cc", "controllers/gatewaypool/track.h"), "");
  EXPECT_NE(Check("cli/kubectl-rdmastack/upgrade_view.cc", "controllers/gatewaypool/y.h"), "");
  EXPECT_EQ(Check("cli/kubectl-rdmastack/upgrade_view.cc", "crds/types/node_upgrade.h"), "");
  EXPECT_NE(Check("agents/client/options.cc", "agents/node-agent/cli/check_command.h"), "");
  EXPECT_EQ(Check("cmd/rdmastack-operator/main.cc", "controllers/gatewaypool/z.h"), "");
  EXPECT_NE(Check("crds/types/json.cc", "operator/runtime/informer.h"), "");
  EXPECT_NE(Check("newtier/x.cc", "base/status.h"), "");
  EXPECT_TRUE(IsTest("controllers/gatewaypool/tests/track_test.cc"));
  EXPECT_FALSE(IsTest("controllers/gatewaypool/track.cc"));
}

}  // namespace
}  // namespace rdmastack
