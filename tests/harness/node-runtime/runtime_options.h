#pragma once
// Command line of rdmastack-node-runtime (see runtime_main.cc for the usage text).

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::sim {

struct HostPort {
  std::string host;
  int port = 0;
};

struct RuntimeOptions {
  std::string kubeconfig;
  std::string nodes_file;
  std::string images_file;
  std::string state_dir;
  std::string log_dir;
  std::string shim;            // default: rdmastack-node-shim beside the runtime binary
  std::string oci_images_dir;  // --oci-images: the archives scripts/images.sh wrote
  std::string runc = "runc";
  // --require-image (with --check-images): references the OCI archives must hold.
  std::vector<std::string> required_images;
  std::map<std::string, std::string> vars;
  std::optional<HostPort> api_listen;  // --api-forward LISTEN=TARGET
  std::optional<HostPort> api_target;
  // --kubernetes-service: what pods get as KUBERNETES_SERVICE_HOST/PORT (the kubernetes Service's
  // ClusterIP once the nodes run kube-proxy); default: the forwarder's address.
  std::optional<HostPort> kubernetes_service;
  std::string cluster_dns;                       // --cluster-dns IP: the kube-dns Service
  std::string cluster_domain = "cluster.local";  // --cluster-domain
  // --kubelet-port with --kubelet-pki, --kubelet-client-ca and --kubelet-client-name: serve
  // container logs to the API server (`kubectl logs`) on every node's address at that port.
  int kubelet_port = 0;
  std::string kubelet_pki;
  std::string kubelet_client_ca;
  std::string kubelet_client_name;
  std::chrono::milliseconds restart_backoff{10'000};
  std::chrono::milliseconds restart_backoff_max{300'000};
  std::chrono::milliseconds volume_resync{30'000};
  std::string log_level = "info";
  // --check-images: load the image table, report every file it names that does not exist, exit.
  // Needs only --images and --var.
  bool check_images = false;
};

StatusOr<HostPort> ParseHostPort(const std::string& text);
StatusOr<RuntimeOptions> ParseRuntimeOptions(const std::vector<std::string>& args);

}  // namespace rdmastack::sim
