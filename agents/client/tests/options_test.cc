#include "agents/client/options.h"

#include <gtest/gtest.h>

namespace rdmastack::client {
namespace {

std::vector<std::string> Base() {
  return {"--profile", "ml/gpudirect", "--install-dir", "/host-install/ml.gpudirect/"};
}

std::vector<std::string> With(std::vector<std::string> extra) {
  std::vector<std::string> args = Base();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ClientOptions, EveryFlagOfTheContract) {
  auto o = ParseRunOptions(With({"--node",
                                 "gpu-node-0",
                                 "--root",
                                 "/host",
                                 "--ips-file",
                                 "/f/ips.txt",
                                 "--probes-file",
                                 "/f/probes.txt",
                                 "--live-probes",
                                 "--transport",
                                 "GPUDirect",
                                 "--memory-registration",
                                 "PeerMem",
                                 "--max-transfer-size",
                                 "192Mi",
                                 "--max-gpu-nic-distance",
                                 "PHB",
                                 "--gid-index",
                                 "3",
                                 "--load-peermem",
                                 "--modprobe-command",
                                 "nsenter -t 1 -m  modprobe nvidia_peermem",
                                 "--endpoints-file",
                                 "/e/endpoints.json",
                                 "--credentials-dir",
                                 "/keys",
                                 "--host-install-dir",
                                 "/var/lib/rdmastack/ml.gpudirect",
                                 "--library-dir",
                                 "/lib-in",
                                 "--state-dir",
                                 "/state",
                                 "--interval=500ms"}),
                           "");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->profile, "ml/gpudirect");
  EXPECT_EQ(o->node, "gpu-node-0");
  EXPECT_EQ(o->root, "/host");
  EXPECT_EQ(o->ips_file, "/f/ips.txt");
  EXPECT_EQ(o->probes_file, "/f/probes.txt");
  EXPECT_TRUE(o->live_probes);
  EXPECT_EQ(o->requirements.role, node::Role::kClient);
  EXPECT_EQ(o->requirements.transport, node::Transport::kGpuDirect);
  EXPECT_EQ(o->requirements.registration, node::Registration::kPeerMem);
  EXPECT_EQ(o->requirements.max_transfer_bytes, 192LL << 20);
  EXPECT_EQ(o->requirements.max_gpu_nic_distance, node::PathType::kPhb);
  EXPECT_EQ(o->requirements.gid_index, 3);
  EXPECT_TRUE(o->load_peermem);
  // Split on spaces; repeated spaces make no empty words.
  EXPECT_EQ(o->modprobe_command,
            (std::vector<std::string>{"nsenter", "-t", "1", "-m", "modprobe", "nvidia_peermem"}));
  EXPECT_EQ(o->endpoints_file, "/e/endpoints.json");
  EXPECT_EQ(o->credentials_dir, "/keys");
  EXPECT_EQ(o->install_dir, "/host-install/ml.gpudirect");  // trailing slash dropped
  EXPECT_EQ(o->host_install_dir, "/var/lib/rdmastack/ml.gpudirect");
  EXPECT_EQ(o->library_dir, "/lib-in");
  EXPECT_EQ(o->state_dir, "/state");
  EXPECT_EQ(o->interval, std::chrono::milliseconds(500));
}

TEST(ClientOptions, Defaults) {
  auto o = ParseRunOptions(With({"--root", "/host"}), "node-from-env");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->node, "node-from-env");
  EXPECT_EQ(o->host_install_dir, "/host-install/ml.gpudirect");  // = --install-dir
  EXPECT_EQ(o->requirements.transport, node::Transport::kAuto);
  EXPECT_EQ(o->requirements.registration, node::Registration::kAuto);
  EXPECT_EQ(o->requirements.gid_index, -1);
  EXPECT_EQ(o->requirements.max_gpu_nic_distance, node::PathType::kPxb);
  EXPECT_EQ(o->requirements.max_transfer_bytes, 0);
  EXPECT_FALSE(o->load_peermem);
  EXPECT_EQ(o->modprobe_command,
            (std::vector<std::string>{"chroot", "/host", "modprobe", "nvidia_peermem"}));
  EXPECT_EQ(o->endpoints_file, "/etc/rdmastack-client/endpoints/endpoints.json");
  EXPECT_EQ(o->library_dir, "/opt/rdmastack/cuobjclient");
  EXPECT_EQ(o->state_dir, "/run/rdmastack-client");
  EXPECT_EQ(o->interval, std::chrono::seconds(10));
  EXPECT_TRUE(o->credentials_dir.empty());
}

TEST(ClientOptions, SizesAreKubernetesQuantities) {
  auto lower = ParseRunOptions(With({"--max-transfer-size", "256k"}), "n");
  ASSERT_TRUE(lower.ok()) << lower.status().ToString();
  EXPECT_EQ(lower->requirements.max_transfer_bytes, 256000);
  auto upper = ParseRunOptions(With({"--max-transfer-size", "256K"}), "n");
  ASSERT_FALSE(upper.ok());
  EXPECT_NE(upper.status().message().find("--max-transfer-size"), std::string::npos);
}

// What a profile's library image may put on the node: defaults, quantities, never 0.
TEST(ClientOptions, LibraryBudgets) {
  auto d = ParseRunOptions(Base(), "n");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->library_budget.max_file_bytes, kDefaultMaxLibraryFileBytes);
  EXPECT_EQ(d->library_budget.max_total_bytes, kDefaultMaxLibraryBytes);
  auto o = ParseRunOptions(
      With({"--max-library-file-size", "1Mi", "--max-library-size", "3000000"}), "n");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->library_budget.max_file_bytes, uint64_t{1} << 20);
  EXPECT_EQ(o->library_budget.max_total_bytes, 3000000u);
  for (const char* bad : {"0", "-1Mi", "lots"}) {
    EXPECT_FALSE(ParseRunOptions(With({"--max-library-size", bad}), "n").ok()) << bad;
    EXPECT_FALSE(ParseRunOptions(With({"--max-library-file-size", bad}), "n").ok()) << bad;
  }
}

TEST(ClientOptions, GidIndexIsAutoOrANumber) {
  EXPECT_EQ(ParseRunOptions(With({"--gid-index", "Auto"}), "n")->requirements.gid_index, -1);
  EXPECT_EQ(ParseRunOptions(With({"--gid-index", "0"}), "n")->requirements.gid_index, 0);
  for (const char* bad : {"auto", "-1", "65536", "x"}) {
    auto o = ParseRunOptions(With({"--gid-index", bad}), "n");
    EXPECT_FALSE(o.ok()) << bad;
  }
}

TEST(ClientOptions, RefusesWhatItCannotRunWith) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--install-dir", "/x"}, "--profile is required"},
      {{"--profile", "ml/p"}, "--install-dir is required"},
      {{"--profile", "justname", "--install-dir", "/x"}, "NAMESPACE/NAME"},
      {{"--profile", "a/b/c", "--install-dir", "/x"}, "NAMESPACE/NAME"},
      {With({"--transport", "gpudirect"}), "transport must be"},
      {With({"--memory-registration", "Peer"}), "memory registration must be"},
      {With({"--max-gpu-nic-distance", "NODE"}), "PIX, PXB, PHB or SYS"},
      {With({"--interval", "0s"}), "--interval"},
      {With({"--modprobe-command", "   "}), "--modprobe-command must not be empty"},
      {With({"--host-install-dir", "relative/dir"}), "must be absolute"},
      {With({"--load-peermem=yes"}), "is true or false, not 'yes'"},
      {With({"--rdma-ip", "10.0.0.1"}), "unknown flag --rdma-ip"},
      {With({"--transport"}), "--transport needs a value"},
  };
  for (const Case& c : cases) {
    auto o = ParseRunOptions(c.args, "n");
    ASSERT_FALSE(o.ok()) << c.says;
    EXPECT_NE(o.status().message().find(c.says), std::string::npos) << o.status().message();
  }
}

TEST(ClientOptions, ReadyFlags) {
  auto o = ParseReadyOptions({"--state-dir", "/s/", "--max-age", "1m"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->state_dir, "/s");
  EXPECT_EQ(o->max_age, std::chrono::minutes(1));
  EXPECT_EQ(ParseReadyOptions({})->max_age, std::chrono::seconds(30));
  EXPECT_EQ(ParseReadyOptions({})->state_dir, "/run/rdmastack-client");
  EXPECT_FALSE(ParseReadyOptions({"--max-age", "-1s"}).ok());
  EXPECT_FALSE(ParseReadyOptions({"--profile", "a/b"}).ok());
}

TEST(ClientOptions, UninstallFlags) {
  auto o = ParseUninstallOptions({"--install-dir", "/var/lib/rdmastack/client/ml.p/", "--state-dir",
                                  "/s", "--interval", "2s"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->install_dir, "/var/lib/rdmastack/client/ml.p");
  EXPECT_EQ(o->state_dir, "/s");
  EXPECT_EQ(o->interval, std::chrono::seconds(2));
  EXPECT_EQ(ParseUninstallOptions({}).status().message(), "--install-dir is required");
  for (const char* bad : {"relative/dir", "/", "//"}) {
    auto r = ParseUninstallOptions({"--install-dir", bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("must be an absolute directory below /"), std::string::npos)
        << r.status().message();
  }
  EXPECT_FALSE(ParseUninstallOptions({"--install-dir", "/x", "--interval", "0s"}).ok());
}

TEST(ClientOptions, RemoveDirTakesOnePlainNameUnderAnAbsoluteRoot) {
  auto o = ParseRemoveDirOptions(
      {"--root", "/var/lib/rdmastack/gateway-iam/", "--name", "ml.kv.0b9c", "--interval", "2s"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->root, "/var/lib/rdmastack/gateway-iam");
  EXPECT_EQ(o->name, "ml.kv.0b9c");
  EXPECT_EQ(o->interval, std::chrono::seconds(2));
  EXPECT_FALSE(ParseRemoveDirOptions({"--root", "/r"}).ok()) << "--name is required";
  EXPECT_FALSE(ParseRemoveDirOptions({"--name", "n"}).ok()) << "--root is required";
  for (const char* bad : {"..", ".", "a/b", "", "../../etc", "x\ny"}) {
    auto r = ParseRemoveDirOptions({"--root", "/r", "--name", bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--name: ", 0), 0u) << r.status().message();
  }
  EXPECT_FALSE(ParseRemoveDirOptions({"--root", "/", "--name", "n"}).ok());
  EXPECT_FALSE(ParseRemoveDirOptions({"--root", "rel", "--name", "n"}).ok());
}

}  // namespace
}  // namespace rdmastack::client
