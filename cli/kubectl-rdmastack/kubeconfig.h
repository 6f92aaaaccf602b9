#pragma once
// Which cluster the plugin talks to, found the way kubectl finds it: --kubeconfig, else the first
// file of $KUBECONFIG that exists (kubectl merges them; the plugin does not), else
// ~/.kube/config, else the pod's ServiceAccount when running inside a cluster.

#include <functional>
#include <string>

#include "base/status.h"
#include "cli/kubectl-rdmastack/options.h"
#include "operator/k8s/config.h"

namespace rdmastack::plugin {

struct KubeconfigChoice {
  std::string path;  // "" = in-cluster
};

// Pure: `kubeconfig_env` and `home` may be null (unset); `exists` says whether a file exists;
// `in_cluster` whether KUBERNETES_SERVICE_HOST is set.
StatusOr<KubeconfigChoice> ChooseKubeconfig(const std::string& flag, const char* kubeconfig_env,
                                            const char* home, bool in_cluster,
                                            const std::function<bool(const std::string&)>& exists);

// The shell: reads the environment and the files, applies --context.
StatusOr<k8s::Config> LoadClusterConfig(const Options& options);

}  // namespace rdmastack::plugin
