// The pods rdmastack runs and what runs them: the operator's Deployment and the agents' DaemonSet
// in the operator's namespace, the gateways' and clients' DaemonSets in the pools' and profiles'
// namespaces; each pod's object and its containers' logs (current, and the run before when the
// container restarted), read through the API server's pods/log.
#include <map>

#include "cli/kubectl-rdmastack/must_gather/gather.h"
#include "operator/k8s/rest_codec.h"

namespace rdmastack::plugin {
namespace {

constexpr char kOperatorSelector[] =
    "app.kubernetes.io/name in (rdmastack-operator,rdmastack-agent)";
constexpr char kTenantSelector[] = "app.kubernetes.io/name in (rdmastack-gateway,rdmastack-client)";

std::string SelectorFor(const GatherContext& ctx, const std::string& ns) {
  return ns == ctx.options.operator_namespace ? kOperatorSelector : kTenantSelector;
}

// versions.images: "<namespace>/<workload>/<container>" -> image.
void NoteImages(GatherContext& ctx, const k8s::JsonObject& workload) {
  for (const char* kind : {"initContainers", "containers"}) {
    for (const k8s::JsonObject& c : workload.GetArray({"spec", "template", "spec", kind})) {
      (void)ctx.versions.SetString(
          {"images", std::string(workload.Namespace()) + "/" + std::string(workload.Name()) + "/" +
                         c.GetString({"name"}).value_or("")},
          c.GetString({"image"}).value_or(""));
    }
  }
}

int32_t RestartCount(const k8s::JsonObject& pod, const std::string& container) {
  for (const char* field : {"initContainerStatuses", "containerStatuses"}) {
    for (const k8s::JsonObject& s : pod.GetArray({"status", field})) {
      if (s.GetString({"name"}).value_or("") == container)
        return static_cast<int32_t>(s.GetInt({"restartCount"}).value_or(0));
    }
  }
  return 0;
}

}  // namespace

void GatherWorkloads(GatherContext& ctx) {
  size_t deployments = 0, daemonsets = 0;
  for (const std::string& ns : ctx.namespaces) {
    k8s::ListOptions options;
    options.label_selector = SelectorFor(ctx, ns);
    std::vector<const k8s::ResourceType*> types = {&k8s::kinds::DaemonSet()};
    if (ns == ctx.options.operator_namespace) types.push_back(&k8s::kinds::Deployment());
    for (const k8s::ResourceType* type : types) {
      StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(*type, ns, options);
      if (!list.ok()) {
        ctx.bundle->Fail("workloads", "list " + type->GroupResource() + " in " + ns,
                         ApiFailure(list.status()));
        continue;
      }
      for (k8s::JsonObject& w : list->items) {
        NoteImages(ctx, w);
        ctx.bundle->CountRedactions(RedactObject(w));
        ctx.bundle->AddJson(bundle::ObjectFile(*type, w.Namespace(), w.Name()), w);
      }
      (type == &k8s::kinds::Deployment() ? deployments : daemonsets) += list->items.size();
    }
  }
  const std::string found =
      std::to_string(deployments) + (deployments == 1 ? " Deployment, " : " Deployments, ") +
      std::to_string(daemonsets) + (daemonsets == 1 ? " DaemonSet" : " DaemonSets");
  ctx.bundle->Note("workloads (operator, agent, gateways, clients)", found);
  ctx.progress("workloads: " + found);
}

void GatherPodsAndLogs(GatherContext& ctx) {
  size_t pods = 0, logs = 0, failed = 0;
  for (const std::string& ns : ctx.namespaces) {
    k8s::ListOptions options;
    options.label_selector = SelectorFor(ctx, ns);
    StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(k8s::kinds::Pod(), ns, options);
    if (!list.ok()) {
      ctx.bundle->Fail("pods", "list pods in " + ns, ApiFailure(list.status()));
      continue;
    }
    for (k8s::JsonObject& pod : list->items) {
      ++pods;
      const std::string name(pod.Name());
      std::vector<std::string> containers;
      for (const char* kind : {"initContainers", "containers"})
        for (const k8s::JsonObject& c : pod.GetArray({"spec", kind}))
          containers.push_back(c.GetString({"name"}).value_or(""));
      for (const std::string& container : containers) {
        // The run before exists only when the container restarted; asking otherwise is a 400.
        for (const bool previous : {false, true}) {
          if (previous && RestartCount(pod, container) == 0) continue;
          // No timestamps=true: the operator's and agents' lines carry their own, and not every
          // log server can add them (the simulated nodes' answers 400).
          k8s::QueryParams query = {{"container", container},
                                    {"tailLines", std::to_string(ctx.options.tail_lines)}};
          if (previous) query.emplace_back("previous", "true");
          const std::string path = "/api/v1/namespaces/" + k8s::UrlEncode(ns) + "/pods/" +
                                   k8s::UrlEncode(name) + "/log" + k8s::BuildQuery(query);
          StatusOr<std::string> log = ctx.api.get(path);
          std::string content;
          if (log.ok()) {
            content = RedactText(*log);
            ++logs;
          } else {
            // The log's place says why it is not there, so nobody looks for it elsewhere.
            const std::string error = ApiFailure(log.status());
            content = "must-gather: the API server gave no log for this container: " + error + "\n";
            ctx.bundle->Fail(
                "logs", ns + "/" + name + "/" + container + (previous ? " (previous)" : ""), error);
            ++failed;
          }
          ctx.bundle->Add(bundle::LogPath(ns, name, container, previous), std::move(content));
        }
      }
      ctx.bundle->CountRedactions(RedactObject(pod));
      ctx.bundle->AddJson(bundle::ObjectFile(k8s::kinds::Pod(), ns, name), pod);
    }
  }
  const std::string found = std::to_string(pods) + " pods, " + std::to_string(logs) + " logs" +
                            (failed > 0 ? ", " + std::to_string(failed) + " logs failed" : "");
  ctx.bundle->Note("pods and logs", found);
  ctx.progress("pods and logs: " + found);
}

}  // namespace rdmastack::plugin
