// `kubectl rdmastack must-gather` end to end: the real plugin binary against the real control
// plane, with a real helm release of charts/rdmastack whose operator pod runs from the operator
// image on a simulated node (so its log comes through the API server's pods/log), and an agent
// pod that kwok only pretends to run (so the API server has no log for it). A Secret holds a
// random value, applied with kubectl so that its last-applied-configuration annotation holds it
// too, a GatewayPool names the Secret, and an Event quotes the value (as a broken component
// might). The bundle must hold the objects with the status the operator wrote, the chart values,
// the operator's Deployment, pods and real log lines, the kwok pod's log file carrying the API's
// error, the nodes' rdmastack keys and an honest summary; and the value must be nowhere in it:
// not raw, not base64, not inside anything base64 or gzip.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"
#include "operator/k8s/config.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {
namespace {

namespace fs = std::filesystem;

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

std::string RandomValue() {
  std::random_device rd;
  std::mt19937_64 rng(rd());
  const std::string alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  std::string out = "mg-";
  for (int i = 0; i < 29; ++i) out += alphabet[rng() % alphabet.size()];
  return out;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every text the content could be hiding: itself, each base64 run in it decoded, and whatever is
// gzip inside those, two levels deep (helm's record is base64 of base64 of gzip).
void Decodings(const std::string& content, int depth, std::vector<std::string>* out) {
  out->push_back(content);
  if (content.size() > 2 && static_cast<unsigned char>(content[0]) == 0x1f &&
      static_cast<unsigned char>(content[1]) == 0x8b) {
    if (auto plain = plugin::Gunzip(content); plain.ok()) Decodings(*plain, depth, out);
  }
  if (depth == 0) return;
  auto b64 = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/';
  };
  for (size_t i = 0; i < content.size();) {
    if (!b64(content[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < content.size() && b64(content[end])) ++end;
    while (end < content.size() && content[end] == '=') ++end;
    if (end - i >= 16) {
      // Every alignment: the value may start at any byte of a longer base64 text.
      for (size_t shift = 0; shift < 4 && i + shift < end; ++shift) {
        std::string run = content.substr(i + shift, end - i - shift);
        while (run.size() % 4 != 0 && !run.empty() && run.back() != '=') run.pop_back();
        if (auto decoded = k8s::DecodeBase64(run); decoded.ok())
          Decodings(*decoded, depth - 1, out);
      }
    }
    i = end;
  }
}

class MustGatherIntegrationTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (env_ == nullptr) return;
    // The pool goes while the operator still runs, so that its finalizer is honoured; a
    // namespace left Terminating would hold up every later test that waits for a clean cluster.
    if (!ns_.empty()) {
      env_->Kubectl({"delete", "gatewaypools,clientprofiles", "--all", "-n", ns_, "--timeout=60s"});
    }
    if (!release_.empty()) Helm({"uninstall", release_, "-n", operator_ns_, "--ignore-not-found"});
    for (const std::string& ns : {ns_, operator_ns_})
      if (!ns.empty()) env_->Kubectl({"delete", "namespace", ns, "--wait=false"});
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  CommandResult Helm(std::vector<std::string> args) const {
    const char* helm = std::getenv("RDMASTACK_HELM");
    if (helm == nullptr) return {1, "", "RDMASTACK_HELM is not set (scripts/cluster.sh env)"};
    args.insert(args.begin(), helm);
    args.insert(args.end(), {"--kubeconfig", env_->kubeconfig});
    return RunCommand(args);
  }

  CommandResult Plugin(std::vector<std::string> args, const std::string& kubeconfig) const {
    args.insert(args.begin(), {BinaryDir() + "/bin/kubectl-rdmastack", "--kubeconfig", kubeconfig});
    return RunCommand(args);
  }

  // Runs must-gather into dir_ and unpacks the archive; the files by path below the top folder.
  std::map<std::string, std::string> GatherAndUnpack(const std::string& kubeconfig,
                                                     CommandResult* run) {
    *run = Plugin({"must-gather", "-n", ns_, "--operator-namespace", operator_ns_, "-o", dir_},
                  kubeconfig);
    std::map<std::string, std::string> files;
    if (run->exit_code != 0) return files;
    std::string archive = run->out;
    while (!archive.empty() && archive.back() == '\n') archive.pop_back();
    EXPECT_EQ(fs::path(archive).parent_path(), fs::path(dir_)) << archive;
    const fs::path out = fs::path(dir_) / ("unpacked-" + std::to_string(++unpacks_));
    fs::create_directories(out);
    CommandResult tar = RunCommand({"tar", "-xzf", archive, "-C", out.string()});
    EXPECT_EQ(tar.exit_code, 0) << Describe(tar);
    for (const auto& entry : fs::recursive_directory_iterator(out)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = fs::relative(entry.path(), out).string();
      files[rel.substr(rel.find('/') + 1)] = ReadFile(entry.path());
    }
    // The archive itself, whole, is a place too.
    files["<archive>"] = ReadFile(archive);
    return files;
  }

  const ClusterEnv* env_ = nullptr;
  std::string ns_, operator_ns_, release_, dir_;
  int unpacks_ = 0;
};

TEST_F(MustGatherIntegrationTest, BundleHoldsTheClusterAndNoSecretValue) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  env_ = env;
  ASSERT_EQ(InstallCrds(*env).exit_code, 0);
  ns_ = UniqueName("mg");
  operator_ns_ = UniqueName("mg-op");
  release_ = UniqueName("mgrel");
  dir_ = (fs::temp_directory_path() / UniqueName("must-gather")).string();
  fs::create_directories(dir_);
  for (const std::string& ns : {ns_, operator_ns_})
    ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  const std::string value = RandomValue();

  // The pool's credentials, applied as a person would (the annotation keeps what was applied).
  CommandResult r = env->Kubectl({"apply", "-n", ns_, "-f", "-"}, R"(apiVersion: v1
kind: Secret
metadata:
  name: pool-s3-root
type: Opaque
stringData:
  accessKeyId: mg-access-key-id
  secretAccessKey: )" + value + "\n");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_NE(env->Kubectl({"get", "secret", "pool-s3-root", "-n", ns_, "-o", "yaml"})
                .out.find("last-applied-configuration"),
            std::string::npos);
  r = env->Kubectl({"apply", "-n", ns_, "-f", "-"}, R"(apiVersion: rdmastack.io/v1alpha1
kind: GatewayPool
metadata:
  name: kvcache
spec:
  nodeSelector:
    node-role.rdmastack.io/storage: ""
  gateway:
    image: registry.local/rdmastack/vgwrdma:1.8.0-cuobj1
    version: 1.8.0-cuobj1
  serverLibrary:
    version: 1.2.0.68
    image: registry.local/rdmastack/libcuobjserver:1.2.0.68
  s3:
    credentialsSecret:
      name: pool-s3-root
  backend:
    posix:
      hostPath: /lustre/agent/vol0
      pathTemplate: /lustre/agent/vol0/kvcache-s3-{nodeName}
  rdma:
    interface: bond0
)");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = env->Kubectl({"create", "-n", ns_, "-f", "-"}, R"(apiVersion: v1
kind: Event
metadata:
  name: kvcache.leak
involvedObject:
  apiVersion: rdmastack.io/v1alpha1
  kind: GatewayPool
  name: kvcache
  namespace: )" + ns_ + R"(
reason: SomeoneQuotedTheKey
message: "a broken component printed the key )" + value + R"("
type: Warning
)");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  // The chart, as an admin installs it, its operator pod run from the operator image on a
  // simulated node (the simulate label), serving only its own namespace: the pool above is
  // refused, so the operator writes its status and starts nothing for it.
  r = Helm({"install", release_, SourcePath("charts/rdmastack"), "-n", operator_ns_, "--set",
            "webhook.enabled=false", "--set", "operator.replicas=1", "--set",
            "operator.logLevel=debug", "--set", "operator.podLabels.rdmastack\\.io/simulate=run",
            "--set", "tenancy.namespaces={" + operator_ns_ + "}", "--wait", "--timeout=120s"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r)
                            << env->Kubectl({"get", "pods", "-n", operator_ns_, "-o", "wide"}).out;
  const std::string operator_pod = env->Kubectl({"get", "pods", "-n", operator_ns_, "-l",
                                                 "app.kubernetes.io/name=rdmastack-operator", "-o",
                                                 "jsonpath={.items[0].metadata.name}"})
                                       .out;
  ASSERT_FALSE(operator_pod.empty());
  std::string pool_reason;
  ASSERT_TRUE(Eventually(
      [&] {
        pool_reason = env->Kubectl({"get", "gatewaypool", "kvcache", "-n", ns_, "-o",
                                    "jsonpath={.status.conditions[?(@.type==\"Ready\")].reason}"})
                          .out;
        return !pool_reason.empty();
      },
      std::chrono::seconds(60)));
  // The operator renders the agents' DaemonSet in its namespace; without the simulate label on
  // its pods (the harness' --agent-pod-label) kwok only pretends to run them, so no kubelet has
  // their log.
  std::string agent_pod;
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string out =
            env->Kubectl({"get", "pods", "-n", operator_ns_, "-l",
                          "app.kubernetes.io/name=rdmastack-agent", "-o",
                          "jsonpath={.items[0].metadata.name} {.items[0].status.phase}"})
                .out;
        agent_pod = out.substr(0, out.find(' '));
        return out.ends_with(" Running");
      },
      std::chrono::seconds(60)))
      << env->Kubectl({"get", "pods", "-n", operator_ns_, "-o", "wide"}).out;

  CommandResult run;
  const auto files = GatherAndUnpack(env->kubeconfig, &run);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  // Progress on stderr, one line per step.
  for (const char* step :
       {"must-gather: API server version: v1.36.3", "must-gather: rdmastack objects: 1 GatewayPool",
        "must-gather: secrets:", "must-gather: helm releases: ", "must-gather: pods and logs:",
        "must-gather: events:", "must-gather: nodes:", "must-gather: wrote "})
    EXPECT_NE(run.err.find(step), std::string::npos) << step << " not in\n" << run.err;

  auto file = [&](const std::string& path) -> std::string {
    auto it = files.find(path);
    EXPECT_NE(it, files.end()) << path << " is not in the bundle";
    return it == files.end() ? "" : it->second;
  };
  // The pool with the status the operator wrote.
  EXPECT_NE(file("objects/gatewaypools.rdmastack.io/" + ns_ + "/kvcache.json")
                .find("\"reason\": \"" + pool_reason + "\""),
            std::string::npos)
      << pool_reason;
  EXPECT_NE(file("secrets/" + ns_ + ".json").find(R"("keys": [
                "accessKeyId",
                "secretAccessKey"
            ])"),
            std::string::npos)
      << file("secrets/" + ns_ + ".json");
  EXPECT_NE(file("helm/" + operator_ns_ + "/" + release_ + "/values.json")
                .find("\"logLevel\": \"debug\""),
            std::string::npos);
  EXPECT_NE(file("helm/" + operator_ns_ + "/" + release_ + "/release.json")
                .find("\"status\": \"deployed\""),
            std::string::npos);
  EXPECT_NE(file("objects/deployments.apps/" + operator_ns_ + "/" + release_ + "-operator.json")
                .find("ghcr.io/rdmastack/operator:"),
            std::string::npos);
  EXPECT_NE(file("objects/pods/" + operator_ns_ + "/" + operator_pod + ".json").find("\"Running\""),
            std::string::npos);
  EXPECT_NE(file("versions.json").find("ghcr.io/rdmastack/operator:0.1.0"), std::string::npos);
  EXPECT_NE(file("events/namespaces/" + ns_ + ".json").find("SomeoneQuotedTheKey"),
            std::string::npos);
  EXPECT_NE(file("versions.json").find("\"gitVersion\": \"v1.36.3\""), std::string::npos);
  EXPECT_NE(file("crds.json").find("\"storedVersions\""), std::string::npos);
  // Every Node, with only rdmastack's keys: the harness labels its nodes node-role.rdmastack.io/*.
  const std::string nodes = env->Kubectl({"get", "nodes", "-o", "name"}).out;
  std::istringstream node_names(nodes);
  for (std::string n; std::getline(node_names, n);) {
    const std::string node = file("nodes/" + n.substr(n.find('/') + 1) + ".json");
    EXPECT_NE(node.find("node-role.rdmastack.io/"), std::string::npos) << node;
    EXPECT_EQ(node.find("kubernetes.io/hostname"), std::string::npos) << node;
  }

  // The operator's log as kubectl shows it: real lines from the API server's pods/log.
  const std::string operator_log =
      file("logs/" + operator_ns_ + "/" + operator_pod + "/operator.log");
  const std::string kubectl_log =
      env->Kubectl({"logs", "-n", operator_ns_, operator_pod, "-c", "operator", "--tail=10000"})
          .out;
  ASSERT_FALSE(kubectl_log.empty());
  EXPECT_EQ(operator_log.substr(0, operator_log.find('\n')),
            kubectl_log.substr(0, kubectl_log.find('\n')));
  EXPECT_NE(operator_log.find("\"level\""), std::string::npos) << operator_log;
  // The kwok-run agent has no log: its file says what the API server said, and so does the
  // summary, whose failures are exactly those logs.
  const std::string log = file("logs/" + operator_ns_ + "/" + agent_pod + "/agent.log");
  const std::string no_log = "must-gather: the API server gave no log for this container: ";
  ASSERT_EQ(log.rfind(no_log, 0), 0u) << log;
  const std::string error = log.substr(no_log.size(), log.size() - no_log.size() - 1);
  EXPECT_NE(error.find("only pods labelled rdmastack.io/simulate=run run there"), std::string::npos)
      << error;
  const std::string summary = file("SUMMARY.md");
  EXPECT_NE(summary.find("- logs: " + operator_ns_ + "/" + agent_pod + "/agent: " + error),
            std::string::npos)
      << summary << "\n"
      << log;
  const size_t failures_at = summary.find("## Failures (");
  ASSERT_NE(failures_at, std::string::npos);
  std::istringstream failure_lines(
      summary.substr(failures_at, summary.find("## Redaction") - failures_at));
  std::string line;
  std::getline(failure_lines, line);
  EXPECT_NE(line, "## Failures (0)");
  while (std::getline(failure_lines, line)) {
    if (line.empty()) continue;
    EXPECT_EQ(line.rfind("- logs: " + operator_ns_ + "/rdmastack-agent-", 0), 0u) << line;
  }

  // The value: nowhere, in any form.
  size_t places = 0;
  for (const auto& [path, content] : files) {
    std::vector<std::string> texts;
    Decodings(content, 2, &texts);
    places += texts.size();
    for (const std::string& text : texts) {
      EXPECT_EQ(text.find(value), std::string::npos) << "the Secret's value is in " << path;
      EXPECT_EQ(text.find(k8s::EncodeBase64(value)), std::string::npos)
          << "the Secret's value, base64, is in " << path;
    }
  }
  EXPECT_GT(places, files.size());  // the base64 runs were decoded and searched too
  // The event is there, its quote of the value replaced.
  EXPECT_NE(file("events/namespaces/" + ns_ + ".json").find("printed the key <redacted>"),
            std::string::npos);
}

TEST_F(MustGatherIntegrationTest, WithoutRightsTheBundleSaysWhatWasForbidden) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  env_ = env;
  ASSERT_EQ(InstallCrds(*env).exit_code, 0);
  ns_ = UniqueName("mg-rbac");
  operator_ns_ = ns_;
  dir_ = (fs::temp_directory_path() / UniqueName("must-gather")).string();
  fs::create_directories(dir_);
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns_}).exit_code, 0);
  // Only the plugin's view rights (docs/plugin.md's rdmastack-viewer), bound in the namespace:
  // pools and profiles there, nothing else.
  ASSERT_EQ(env->Kubectl({"create", "serviceaccount", "viewer", "-n", ns_}).exit_code, 0);
  CommandResult r =
      env->Kubectl({"create", "role", "viewer", "-n", ns_, "--verb=get,list",
                    "--resource=gatewaypools.rdmastack.io,clientprofiles.rdmastack.io"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = env->Kubectl({"create", "rolebinding", "viewer", "-n", ns_, "--role=viewer",
                    "--serviceaccount=" + ns_ + ":viewer"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string kubeconfig = dir_ + "/viewer.kubeconfig";
  r = RunCommand({env->cluster_script, "sa-kubeconfig", ns_, "viewer", kubeconfig});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  CommandResult run;
  const auto files = GatherAndUnpack(kubeconfig, &run);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_NE(run.err.find("failures: see "), std::string::npos) << run.err;
  const std::string summary = files.count("SUMMARY.md") ? files.at("SUMMARY.md") : "";
  // Each refusal names the resource the API server refused, in the server's own words.
  for (const std::string& line : std::vector<std::string>{
           "- rdmastack objects: list rdmanodes.rdmastack.io: 403 Forbidden: ",
           "- secrets: list secrets in " + ns_, "- pods: list pods in " + ns_,
           "- events: list events in " + ns_, "- nodes: list nodes: 403 Forbidden: ",
           "- CRDs: get customresourcedefinitions/gatewaypools.rdmastack.io: 403 Forbidden"}) {
    EXPECT_NE(summary.find(line), std::string::npos) << line << " not in\n" << summary;
  }
  EXPECT_NE(summary.find("cannot list resource \"secrets\""), std::string::npos) << summary;
}

TEST_F(MustGatherIntegrationTest, ClearErrorsForNoKubeconfigAndAnUnwritableDirectory) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  env_ = env;
  CommandResult r = RunCommand({"env", "-u", "KUBECONFIG", "HOME=/nonexistent",
                                BinaryDir() + "/bin/kubectl-rdmastack", "must-gather"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err,
      "error: no kubeconfig: pass --kubeconfig FILE, set KUBECONFIG, or create ~/.kube/config\n");
  r = Plugin({"must-gather", "-o", "/nonexistent/dir"}, env->kubeconfig);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: cannot write the bundle to /nonexistent/dir: not a directory (create it, or "
            "pass -o DIR)\n");
  dir_ = (fs::temp_directory_path() / UniqueName("must-gather")).string();
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  // root ignores directory modes; a read-only bind would be needed, so only check as non-root.
  if (::geteuid() != 0) {
    r = Plugin({"must-gather", "-o", dir_}, env->kubeconfig);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  }
  // Two runs in the same second: two archives, neither replacing the other.
  fs::permissions(dir_, fs::perms::owner_all);
  const CommandResult first = Plugin({"must-gather", "-q", "-o", dir_}, env->kubeconfig);
  const CommandResult second = Plugin({"must-gather", "-q", "-o", dir_}, env->kubeconfig);
  ASSERT_EQ(first.exit_code, 0) << Describe(first);
  ASSERT_EQ(second.exit_code, 0) << Describe(second);
  EXPECT_NE(first.out, second.out);
  EXPECT_EQ(first.err + second.err, "");  // -q
  for (const CommandResult* c : {&first, &second})
    EXPECT_TRUE(fs::exists(c->out.substr(0, c->out.size() - 1))) << c->out;
  r = Plugin({"must-gather", "-o", "/proc"}, env->kubeconfig);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error: cannot write the bundle to /proc: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace rdmastack::testing
