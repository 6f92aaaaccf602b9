// The chart and the operator stay in step: the chart ships the CRDs of crds/ byte for byte, and
// passes the operator only flags it knows (a renamed flag would crash-loop the Deployment).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cmd/rdmastack-operator/operator_options.h"

namespace rdmastack::operator_cmd {
namespace {

namespace fs = std::filesystem;

fs::path Source(const std::string& relative) {
  const char* dir = std::getenv("RDMASTACK_SOURCE_DIR");
  return fs::path(dir != nullptr ? dir : ".") / relative;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> YamlFiles(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.insert(e.path().filename());
  }
  return out;
}

TEST(ChartTest, ShipsTheCrdsOfCrdsDirectoryUnchanged) {
  const fs::path ours = Source("crds"), chart = Source("charts/rdmastack/crds");
  const std::set<std::string> files = YamlFiles(ours);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(YamlFiles(chart), files) << "copy crds/*.yaml into charts/rdmastack/crds/";
  for (const std::string& f : files) {
    EXPECT_TRUE(Slurp(ours / f) == Slurp(chart / f))
        << "charts/rdmastack/crds/" << f << " differs from crds/" << f << ": copy it";
  }
}

TEST(ChartTest, DeploymentPassesOnlyFlagsTheOperatorKnows) {
  const std::string deployment =
      Slurp(Source("charts/rdmastack/templates/operator-deployment.yaml"));
  ASSERT_FALSE(deployment.empty());
  std::set<std::string> flags;
  std::istringstream in(deployment);
  for (std::string line; std::getline(in, line);) {
    // "            - --agent-namespace={{ .Release.Namespace }}"
    const size_t dash = line.find("- --");
    const size_t eq = line.find('=', dash);
    if (dash == std::string::npos || eq == std::string::npos) continue;
    if (line.find_first_not_of(' ') != dash) continue;
    flags.insert(line.substr(dash + 2, eq - dash - 2));
  }
  EXPECT_GE(flags.size(), 10u);
  for (const std::string& f : flags) {
    auto parsed = ParseOperatorOptions({f + "=x"});
    const bool unknown =
        !parsed.ok() && parsed.status().message().find("unknown flag") != std::string::npos;
    EXPECT_FALSE(unknown) << f << ": " << parsed.status().message();
  }
}

// The operator writes its TLS files under the temporary directory (/tmp); with the read-only root
// file system the Deployment asks for, only a volume there makes it writable. Without one, the
// leader's start-up failed with "agent hub: mkdtemp /tmp/agenthub-tls-XXXXXX failed".
TEST(ChartTest, ReadOnlyRootFilesystemComesWithAWritableTmp) {
  const std::string deployment =
      Slurp(Source("charts/rdmastack/templates/operator-deployment.yaml"));
  ASSERT_NE(deployment.find("readOnlyRootFilesystem: true"), std::string::npos);
  const size_t mount = deployment.find("{name: tmp, mountPath: /tmp}");
  ASSERT_NE(mount, std::string::npos) << "no volumeMount at /tmp";
  EXPECT_EQ(deployment.find("readOnly: true", mount), std::string::npos) << "/tmp must be writable";
  const size_t volumes = deployment.find("\n      volumes:\n");
  ASSERT_NE(volumes, std::string::npos) << "no pod volumes";
  EXPECT_NE(deployment.find("- name: tmp\n          emptyDir:", volumes), std::string::npos)
      << "the tmp volume is not an emptyDir";
}

}  // namespace
}  // namespace rdmastack::operator_cmd
