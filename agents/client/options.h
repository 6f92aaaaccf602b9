#pragma once
// Command-line options of `rdmastack-client run` and `rdmastack-client ready` (pure parsing,
// unit-tested). The operator renders these flags into the ClientProfile's DaemonSet; the node
// requirement flags mean what they mean to `rdmastack-agent check` and are parsed by its helpers.

#include <chrono>
#include <string>
#include <vector>

#include "agents/client/library_digest.h"
#include "agents/client/library_plan.h"
#include "base/status.h"
#include "node/checks/check.h"

namespace rdmastack::client {

struct RunOptions {
  std::string profile;  // NS/NAME of the ClientProfile
  std::string node;
  std::string root = "/";
  std::string ips_file;
  std::string probes_file;
  bool live_probes = false;
  node::Requirements requirements;  // role client
  bool load_peermem = false;
  std::vector<std::string> modprobe_command;  // argv; default chroot <root> modprobe nvidia_peermem
  std::string endpoints_file = "/etc/rdmastack-client/endpoints/endpoints.json";
  std::string credentials_dir;   // files accessKeyId and secretAccessKey; "" = health path only
  std::string install_dir;       // as this process sees it
  std::string host_install_dir;  // as the host (and so the applications) see it
  std::string library_dir = "/opt/rdmastack/cuobjclient";
  LibraryDigests library_sha256;  // --library-sha256 FILE=HEX: the bytes each pinned file must have
  // --max-library-file-size, --max-library-size: what one file and the whole image may take.
  LibraryBudget library_budget;
  std::string state_dir = "/run/rdmastack-client";
  std::chrono::milliseconds interval{10'000};
};

struct UninstallOptions {
  std::string install_dir;
  std::string state_dir = "/run/rdmastack-client";
  std::chrono::milliseconds interval{10'000};
};

struct RemoveDirOptions {
  std::string root;  // the mounted parent, e.g. /var/lib/rdmastack/gateway-iam
  std::string name;  // one plain name under it
  std::string state_dir = "/run/rdmastack-client";
  std::chrono::milliseconds interval{10'000};
};

struct ReadyOptions {
  std::string state_dir = "/run/rdmastack-client";
  std::chrono::milliseconds max_age{30'000};
};

// args exclude the program name and the command word. NODE_NAME from the environment is the
// default node (`node_env`, so tests need not touch the environment).
StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args,
                                     const std::string& node_env);
StatusOr<ReadyOptions> ParseReadyOptions(const std::vector<std::string>& args);
StatusOr<UninstallOptions> ParseUninstallOptions(const std::vector<std::string>& args);
StatusOr<RemoveDirOptions> ParseRemoveDirOptions(const std::vector<std::string>& args);

inline constexpr const char* kUsage =
    "usage: rdmastack-client run --profile NS/NAME --install-dir DIR [--node NAME]\n"
    "         [--root /host] [--ips-file F] [--probes-file F] [--live-probes]\n"
    "         [--transport Auto|GPUDirect|HostMemory] [--memory-registration Auto|DMABuf|PeerMem]\n"
    "         [--max-transfer-size 192Mi] [--max-gpu-nic-distance PIX|PXB|PHB|SYS]\n"
    "         [--gid-index Auto|N] [--load-peermem] [--modprobe-command \"chroot /host modprobe "
    "nvidia_peermem\"]\n"
    "         [--endpoints-file /etc/rdmastack-client/endpoints/endpoints.json]\n"
    "         [--credentials-dir DIR] [--host-install-dir DIR]\n"
    "         [--library-dir /opt/rdmastack/cuobjclient] [--library-sha256 FILE=SHA256]...\n"
    "         [--max-library-file-size 64Mi] [--max-library-size 128Mi]\n"
    "         [--state-dir /run/rdmastack-client] [--interval 10s]\n"
    "       rdmastack-client ready [--state-dir /run/rdmastack-client] [--max-age 30s]\n"
    "       rdmastack-client uninstall --install-dir DIR [--state-dir /run/rdmastack-client]\n"
    "         [--interval 10s]\n"
    "       rdmastack-client remove-dir --root DIR --name NAME [--state-dir "
    "/run/rdmastack-client]\n"
    "         [--interval 10s]\n"
    "       rdmastack-client bench --bucket B [--endpoint URL] [--size 8Mi] [--streams 1,2,4]\n"
    "         [--objects-per-stream 4] [--prefix P/] [--timeout 2m] [--config-dir DIR]\n"
    "       rdmastack-client --version | --help\n"
    "  run: every --interval, decides what the node can do (the node agent's checks), writes\n"
    "  cufile.json, cuobj.json, endpoints.json, client.env and lib/ into --install-dir and\n"
    "  <state-dir>/state.json. SIGTERM stops it and leaves the files for the workloads using\n"
    "  them.\n"
    "  ready: exit 0 iff state.json says ready and is at most --max-age old.\n"
    "  uninstall: every --interval, removes what a client installed in --install-dir and writes\n"
    "  state.json (ready once nothing is left), until SIGTERM. The operator runs it on a node\n"
    "  that left the profile once no running pod there names the profile.\n"
    "  remove-dir: every --interval, removes NAME (one plain name) under --root with everything\n"
    "  below it, links as links, and writes state.json (ready once it is gone), until SIGTERM.\n"
    "  The operator runs it on a storage node after a GatewayPool is deleted (its IAM users).\n"
    "  bench: in a pod labelled with a profile (kubectl rdmastack bench's Job), PUTs and GETs\n"
    "  objects of --size at each stream count through the first endpoint of the injected\n"
    "  endpoints.json with the AWS_* keys, verifies every body's SHA-256, removes every object\n"
    "  under its prefix and prints the report (a table on stderr, JSON on stdout).\n"
    "  NODE_NAME from the environment is the default --node.\n";

}  // namespace rdmastack::client
