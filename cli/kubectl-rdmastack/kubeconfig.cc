#include "cli/kubectl-rdmastack/kubeconfig.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace rdmastack::plugin {

StatusOr<KubeconfigChoice> ChooseKubeconfig(const std::string& flag, const char* kubeconfig_env,
                                            const char* home, bool in_cluster,
                                            const std::function<bool(const std::string&)>& exists) {
  if (!flag.empty()) return KubeconfigChoice{flag};
  if (kubeconfig_env != nullptr && *kubeconfig_env != '\0') {
    const std::string list(kubeconfig_env);
    size_t start = 0;
    while (start <= list.size()) {
      const size_t colon = std::min(list.find(':', start), list.size());
      const std::string path = list.substr(start, colon - start);
      if (!path.empty() && exists(path)) return KubeconfigChoice{path};
      start = colon + 1;
    }
    return NotFoundError("no file of KUBECONFIG=" + list +
                         " exists; fix KUBECONFIG or pass --kubeconfig FILE");
  }
  if (home != nullptr && *home != '\0') {
    const std::string path = std::string(home) + "/.kube/config";
    if (exists(path)) return KubeconfigChoice{path};
  }
  if (in_cluster) return KubeconfigChoice{""};
  return NotFoundError(
      "no kubeconfig: pass --kubeconfig FILE, set KUBECONFIG, or create ~/.kube/config");
}

StatusOr<k8s::Config> LoadClusterConfig(const Options& options) {
  const char* service_host = std::getenv("KUBERNETES_SERVICE_HOST");
  RDMASTACK_ASSIGN_OR_RETURN(
      KubeconfigChoice choice,
      ChooseKubeconfig(options.kubeconfig, std::getenv("KUBECONFIG"), std::getenv("HOME"),
                       service_host != nullptr && *service_host != '\0',
                       [](const std::string& path) {
                         std::error_code ec;
                         return std::filesystem::is_regular_file(path, ec);
                       }));
  if (choice.path.empty()) {
    if (!options.context.empty())
      return InvalidArgumentError("--context needs a kubeconfig; none was found");
    return k8s::LoadInClusterConfig();
  }
  return k8s::LoadKubeconfig(choice.path, options.context);
}

}  // namespace rdmastack::plugin
