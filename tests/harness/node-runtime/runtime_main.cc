// rdmastack-node-runtime: runs the pods labelled rdmastack.io/simulate=run that are bound to the
// simulated nodes of a local cluster, as local processes inside each node's network namespace.
// scripts/cluster.sh starts and stops it; docs/development.md describes what it does.
//
//   rdmastack-node-runtime --kubeconfig FILE --nodes FILE --images FILE --state-dir DIR
//       --log-dir DIR [--shim PATH] [--var NAME=VALUE]... [--api-forward IP:PORT=IP:PORT]
//       [--oci-images DIR] [--runc PATH] [--restart-backoff 10s] [--restart-backoff-max 5m]
//       [--volume-resync 30s] [--kubernetes-service IP:PORT] [--cluster-dns IP]
//       [--cluster-domain cluster.local] [--log-level info]
//       [--kubelet-port PORT --kubelet-pki DIR --kubelet-client-ca FILE --kubelet-client-name CN]
//   rdmastack-node-runtime --check-images --images FILE [--var NAME=VALUE]...
//       [--oci-images DIR --require-image REF...]
//       exit 0 when every file the image table names exists and the OCI archives hold every
//       required image, else list what is missing, exit 1
//
// --oci-images: the images this project builds run from their archives (scripts/images.sh), each
// container by runc from the image's own root; every other image comes from the image table.
//
// --kubernetes-service: the KUBERNETES_SERVICE_HOST/PORT pods get (default: the forwarder's
// listen address). --cluster-dns: the nameserver of ClusterFirst pods' resolv.conf (default: none,
// every pod keeps the node's resolver).
//
// --kubelet-port ...: serve GET /containerLogs/{ns}/{pod}/{container} over HTTPS on every node's
// address at PORT (the kubelet port the Nodes advertise), with DIR/<node>.crt and .key, to the
// client certificate named CN that FILE signed: the API server's, for `kubectl logs`
// (log_server.h).
//
// SIGTERM/SIGINT: stops every container (SIGTERM, 2 s, SIGKILL) and exits 0. Bad flags or
// configuration: a one-line error, exit 2.

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "base/clock.h"
#include "base/logging.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/signals.h"
#include "tests/harness/node-runtime/api_forwarder.h"
#include "tests/harness/node-runtime/counter_ticker.h"
#include "tests/harness/node-runtime/exec_path.h"
#include "tests/harness/node-runtime/image_table.h"
#include "tests/harness/node-runtime/log_server.h"
#include "tests/harness/node-runtime/node_runtime.h"
#include "tests/harness/node-runtime/oci_image_store.h"
#include "tests/harness/node-runtime/runtime_options.h"

namespace {

int Fail(const std::string& why) {
  std::fprintf(stderr, "rdmastack-node-runtime: %s\n", why.c_str());
  return 2;
}

std::string BesideSelf(const std::string& name) {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

// What `cluster.sh up` runs before any node starts: a part that was never built stops the cluster
// there, naming the file, instead of leaving pods in ErrImagePull.
int CheckImages(const rdmastack::sim::RuntimeOptions& options) {
  auto images = rdmastack::sim::ImageTable::Load(options.images_file, options.vars);
  if (!images.ok()) return Fail(images.status().message());
  std::vector<std::string> missing = images->MissingFiles();
  std::vector<std::string> held;
  if (!options.oci_images_dir.empty()) {
    rdmastack::sim::OciImageStore store(options.oci_images_dir, "/nonexistent");
    held = store.References();
    for (const std::string& ref : options.required_images) {
      if (!store.Has(ref)) {
        missing.push_back(ref + " is in no archive of " + options.oci_images_dir +
                          " (run scripts/images.sh)");
      }
    }
  }
  for (const std::string& line : missing) {
    std::fprintf(stderr, "rdmastack-node-runtime: image %s\n", line.c_str());
  }
  if (!missing.empty()) return 1;
  std::string list;
  for (const std::string& h : held) list += " " + h;
  std::printf("image table %s: %zu images, every file present; OCI archives:%s\n",
              options.images_file.c_str(), images->images().size(),
              list.empty() ? " none" : list.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmastack;
  runtime::ShutdownSignals signals;  // before any thread starts
  StatusOr<sim::RuntimeOptions> options =
      sim::ParseRuntimeOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) return Fail(options.status().message());
  if (options->check_images) return CheckImages(*options);
  if (Status s = InitLogging(options->log_level); !s.ok()) return Fail(s.message());
  if (options->shim.empty()) options->shim = BesideSelf("rdmastack-node-shim");
  if (::access(options->shim.c_str(), X_OK) != 0) {
    return Fail("shim " + options->shim +
                " is not executable; build it (target rdmastack-node-shim)");
  }

  if (!options->oci_images_dir.empty()) {
    const char* path = std::getenv("PATH");
    StatusOr<std::string> runc = sim::ResolveExecutable(
        options->runc, {std::string("PATH=") + (path ? path : sim::kDefaultPath)});
    if (!runc.ok() || ::access(runc->c_str(), X_OK) != 0) {
      return Fail("runc (" + options->runc +
                  ") is not installed; containers from OCI images need it (apt-get install "
                  "runc, or scripts/setup.sh)");
    }
    options->runc = *runc;
  }

  StatusOr<sim::NodeTable> nodes = sim::LoadNodeTable(options->nodes_file);
  if (!nodes.ok()) return Fail(nodes.status().message());
  StatusOr<sim::ImageTable> images = sim::ImageTable::Load(options->images_file, options->vars);
  if (!images.ok()) return Fail(images.status().message());
  StatusOr<k8s::Config> config = k8s::LoadKubeconfig(options->kubeconfig);
  if (!config.ok()) return Fail(config.status().ToString());
  config->user_agent = "rdmastack-node-runtime";
  StatusOr<k8s::ClientPtr> client = k8s::NewRestClient(*config);
  if (!client.ok()) return Fail(client.status().ToString());

  sim::NodeRuntimeConfig rc;
  rc.nodes = *nodes;
  rc.state_dir = options->state_dir;
  rc.log_dir = options->log_dir;
  rc.shim = options->shim;
  rc.oci_archive_dir = options->oci_images_dir;
  rc.runc = options->runc;
  rc.backoff.initial = options->restart_backoff;
  rc.backoff.max = options->restart_backoff_max;
  rc.volume_resync = options->volume_resync;

  sim::ApiForwarder forwarder;
  if (options->api_listen) {
    const sim::HostPort& l = *options->api_listen;
    if (Status s =
            forwarder.Start(l.host, l.port, options->api_target->host, options->api_target->port);
        !s.ok()) {
      return Fail(s.message());
    }
  }
  // Where pods find the API server: the kubernetes Service when the nodes route Services, else
  // the forwarder itself.
  if (const std::optional<sim::HostPort> api =
          options->kubernetes_service ? options->kubernetes_service : options->api_listen) {
    const std::string port = std::to_string(api->port);
    rc.service_env.Set("KUBERNETES_SERVICE_HOST", api->host);
    rc.service_env.Set("KUBERNETES_SERVICE_PORT", port);
    rc.service_env.Set("KUBERNETES_SERVICE_PORT_HTTPS", port);
    rc.service_env.Set("KUBERNETES_PORT", "tcp://" + api->host + ":" + port);
  }
  rc.dns = {options->cluster_dns, options->cluster_domain};

  sim::NodeRuntime node_runtime(**client, RealClock::Instance(), *images, rc);
  std::atomic<bool> stop{false};
  signals.Watch([&](int) { stop = true; });
  if (Status s = node_runtime.Start(); !s.ok()) return Fail(s.ToString());
  std::unique_ptr<sim::LogServer> log_server;
  if (options->kubelet_port != 0) {
    sim::PodLookup pods;
    pods.running = [&](const std::string& ns, const std::string& name) {
      return node_runtime.Pod(ns, name);
    };
    pods.fetch = [&](const std::string& ns,
                     const std::string& name) -> std::optional<k8s::JsonObject> {
      StatusOr<k8s::JsonObject> pod = (*client)->Get(k8s::kinds::Pod(), ns, name);
      if (pod.ok()) return *pod;
      return std::nullopt;
    };
    log_server = std::make_unique<sim::LogServer>(
        sim::LogServerConfig{options->kubelet_port, options->kubelet_pki,
                             options->kubelet_client_ca, options->kubelet_client_name,
                             options->log_dir},
        std::move(pods));
    if (Status s = log_server->Start(*nodes); !s.ok()) return Fail(s.ToString());
  }
  // Port counters move as the fixtures say (a harness shortcut: counter_ticker.h).
  auto tickers = sim::TickersFor(*nodes);
  if (!tickers.ok()) return Fail(tickers.status().ToString());
  std::set<std::string> ticker_warned;
  const auto counters_since = std::chrono::steady_clock::now();
  auto next_tick = counters_since;
  spdlog::info("serving {} simulated node(s); port counters move on {}", nodes->size(),
               tickers->size());
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    node_runtime.Collect();
    if (const auto now = std::chrono::steady_clock::now(); now >= next_tick) {
      sim::TickAll(*tickers, now - counters_since, &ticker_warned);
      next_tick = now + std::chrono::seconds(5);
    }
  }
  if (log_server) log_server->Stop();
  spdlog::info("stopping: ending the containers of {} pod(s)", node_runtime.PodCount());
  node_runtime.Stop();
  return 0;
}
