#include "tests/harness/node-runtime/runtime_options.h"

#include "base/duration.h"

namespace rdmastack::sim {

StatusOr<HostPort> ParseHostPort(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
      text.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return InvalidArgumentError("'" + text + "' is not HOST:PORT");
  }
  const int port = std::stoi(text.substr(colon + 1));
  if (port <= 0 || port > 65535) return InvalidArgumentError("port out of range in '" + text + "'");
  return HostPort{text.substr(0, colon), port};
}

StatusOr<RuntimeOptions> ParseRuntimeOptions(const std::vector<std::string>& args) {
  RuntimeOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--check-images") {
      o.check_images = true;
      continue;
    }
    if (i + 1 >= args.size()) return InvalidArgumentError(flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "--kubeconfig") {
      o.kubeconfig = value;
    } else if (flag == "--nodes") {
      o.nodes_file = value;
    } else if (flag == "--images") {
      o.images_file = value;
    } else if (flag == "--state-dir") {
      o.state_dir = value;
    } else if (flag == "--log-dir") {
      o.log_dir = value;
    } else if (flag == "--shim") {
      o.shim = value;
    } else if (flag == "--oci-images") {
      o.oci_images_dir = value;
    } else if (flag == "--runc") {
      o.runc = value;
    } else if (flag == "--require-image") {
      o.required_images.push_back(value);
    } else if (flag == "--log-level") {
      o.log_level = value;
    } else if (flag == "--var") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        return InvalidArgumentError("--var wants NAME=VALUE, got '" + value + "'");
      o.vars[value.substr(0, eq)] = value.substr(eq + 1);
    } else if (flag == "--api-forward") {
      size_t eq = value.find('=');
      if (eq == std::string::npos) {
        return InvalidArgumentError("--api-forward wants LISTEN_IP:PORT=TARGET_IP:PORT, got '" +
                                    value + "'");
      }
      RDMASTACK_ASSIGN_OR_RETURN(o.api_listen, ParseHostPort(value.substr(0, eq)));
      RDMASTACK_ASSIGN_OR_RETURN(o.api_target, ParseHostPort(value.substr(eq + 1)));
    } else if (flag == "--kubernetes-service") {
      RDMASTACK_ASSIGN_OR_RETURN(o.kubernetes_service, ParseHostPort(value));
    } else if (flag == "--kubelet-port") {
      StatusOr<HostPort> hp = ParseHostPort("port:" + value);  // the same digits and range rules
      if (!hp.ok()) {
        return InvalidArgumentError("--kubelet-port wants a port (1-65535), got '" + value + "'");
      }
      o.kubelet_port = hp->port;
    } else if (flag == "--kubelet-pki") {
      o.kubelet_pki = value;
    } else if (flag == "--kubelet-client-ca") {
      o.kubelet_client_ca = value;
    } else if (flag == "--kubelet-client-name") {
      o.kubelet_client_name = value;
    } else if (flag == "--cluster-dns") {
      o.cluster_dns = value;
    } else if (flag == "--cluster-domain") {
      o.cluster_domain = value;
    } else if (flag == "--restart-backoff" || flag == "--restart-backoff-max" ||
               flag == "--volume-resync") {
      StatusOr<std::chrono::milliseconds> d = ParseDuration(value);
      if (!d.ok()) return d.status().WithContext(flag);
      (flag == "--restart-backoff"       ? o.restart_backoff
       : flag == "--restart-backoff-max" ? o.restart_backoff_max
                                         : o.volume_resync) = *d;
    } else {
      return InvalidArgumentError("unknown flag " + flag);
    }
  }
  if (o.check_images) {
    if (o.images_file.empty()) return InvalidArgumentError("--check-images needs --images");
    return o;
  }
  for (const auto& [name, value] : {std::pair{"--kubeconfig", &o.kubeconfig},
                                    {"--nodes", &o.nodes_file},
                                    {"--images", &o.images_file},
                                    {"--state-dir", &o.state_dir},
                                    {"--log-dir", &o.log_dir}}) {
    if (value->empty()) return InvalidArgumentError(std::string(name) + " is required");
  }
  const bool any_kubelet = o.kubelet_port != 0 || !o.kubelet_pki.empty() ||
                           !o.kubelet_client_ca.empty() || !o.kubelet_client_name.empty();
  if (any_kubelet && (o.kubelet_port == 0 || o.kubelet_pki.empty() || o.kubelet_client_ca.empty() ||
                      o.kubelet_client_name.empty())) {
    return InvalidArgumentError(
        "serving logs needs all of --kubelet-port, --kubelet-pki, --kubelet-client-ca and "
        "--kubelet-client-name");
  }
  return o;
}

}  // namespace rdmastack::sim
