#include "cli/kubectl-rdmastack/commands.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "cli/kubectl-rdmastack/printable.h"
#include "cli/kubectl-rdmastack/printable_client.h"
#include "cli/kubectl-rdmastack/render_json.h"
#include "cli/kubectl-rdmastack/render_text.h"
#include "cli/kubectl-rdmastack/snapshot.h"
#include "cli/kubectl-rdmastack/text.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {
namespace {

CommandResult Failure(std::string line) {
  return {"", "error: " + line + "\n", 1};
}

std::string Warnings(const std::vector<std::string>& warnings) {
  std::string out;
  for (const std::string& w : warnings) out += "Warning: " + w + "\n";
  return out;
}

// The three kinds `status` and `why` read; pools and profiles limited to `ns` when set.
struct Listed {
  std::vector<k8s::JsonObject> pools;
  std::vector<k8s::JsonObject> profiles;
  std::vector<k8s::JsonObject> nodes;
};

StatusOr<Listed> ListAllKinds(k8s::Client& client, const std::string& ns,
                              const ClusterInfo& cluster) {
  Listed listed;
  const std::pair<const k8s::ResourceType*, std::vector<k8s::JsonObject>*> kinds[] = {
      {&crd::kinds::GatewayPool(), &listed.pools},
      {&crd::kinds::ClientProfile(), &listed.profiles},
      {&crd::kinds::RdmaNode(), &listed.nodes},
  };
  for (const auto& [type, out] : kinds) {
    StatusOr<k8s::ObjectList> list = client.ListAll(*type, type->namespaced ? ns : "");
    if (!list.ok()) {
      return Status(list.status().code(), DescribeApiError(list.status(), "list", *type, cluster));
    }
    *out = std::move(list->items);
  }
  return listed;
}

// The one way from the cluster to the terminal for the three views: a text rendering reads
// through PrintableClient (every string escaped before layout) and its whole output is made
// printable again, keeping only the renderer's line breaks; a JSON rendering reads the plain
// client and its document goes through PrintableJson.
template <typename Command>
CommandResult ThroughTerminal(k8s::Client& api, OutputFormat format, Command command) {
  if (format == OutputFormat::kJson) {
    CommandResult r = command(api);
    r.out = PrintableJson(r.out);
    r.err = Printable(r.err, Newlines::kKeep);
    return r;
  }
  PrintableClient printable(api);
  return PrintableResult(command(printable));
}

CommandResult StatusCommand(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                            int64_t now) {
  StatusOr<Listed> listed = ListAllKinds(client, options.namespace_, cluster);
  if (!listed.ok()) return Failure(listed.status().message());
  const Snapshot snapshot = DecodeSnapshot(listed->pools, listed->profiles, listed->nodes);
  const StatusView view = BuildStatusView(snapshot, options.namespace_, now);
  if (options.output == OutputFormat::kJson) return {RenderStatusJson(view), "", 0};
  return {RenderStatusText(view), Warnings(view.warnings), 0};
}

CommandResult WhyCommand(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                         int64_t now) {
  StatusOr<Listed> listed = ListAllKinds(client, options.namespace_, cluster);
  if (!listed.ok()) return Failure(listed.status().message());
  const Snapshot snapshot = DecodeSnapshot(listed->pools, listed->profiles, listed->nodes);

  NodeExistence existence = NodeExistence::kUnknown;
  std::vector<std::string> node_names;
  const bool has_rdmanode =
      std::any_of(snapshot.nodes.begin(), snapshot.nodes.end(),
                  [&](const crd::RdmaNode& n) { return n.metadata.name == options.argument; });
  if (!has_rdmanode) {
    // Only to tell "wrong name" from "no agent there"; a refusal leaves it unknown.
    StatusOr<k8s::JsonObject> node = client.Get(k8s::kinds::Node(), "", options.argument);
    if (node.ok()) existence = NodeExistence::kExists;
    if (!node.ok() && k8s::IsNotFound(node.status()) && !IsNotServed(node.status())) {
      existence = NodeExistence::kMissing;
      // A mistyped name: offer the Nodes that look like it.
      StatusOr<k8s::ObjectList> nodes = client.ListAll(k8s::kinds::Node(), "");
      if (nodes.ok()) {
        for (const k8s::JsonObject& n : nodes->items) node_names.emplace_back(n.Name());
      }
    }
  }
  const WhyView view = BuildWhyView(snapshot, options.argument, existence, node_names, now);
  const int exit_code = view.failing ? 1 : 0;
  if (options.output == OutputFormat::kJson) return {RenderWhyJson(view), "", exit_code};
  return {RenderWhyText(view), Warnings(snapshot.warnings), exit_code};
}

CommandResult UpgradeCommand(k8s::Client& client, const Options& options,
                             const std::string& default_namespace, const ClusterInfo& cluster,
                             int64_t now) {
  const std::string ns = UpgradeNamespace(options, default_namespace);
  const k8s::ResourceType& pools = crd::kinds::GatewayPool();
  StatusOr<k8s::JsonObject> object = client.Get(pools, ns, options.argument);
  if (!object.ok()) {
    if (!k8s::IsNotFound(object.status()) || IsNotServed(object.status()))
      return Failure(DescribeApiError(object.status(), "get", pools, cluster));
    std::string line = "no GatewayPool \"" + options.argument + "\" in namespace " + ns;
    StatusOr<k8s::ObjectList> others = client.ListAll(pools, ns);
    if (others.ok()) {
      std::vector<std::string> names;
      for (const k8s::JsonObject& p : others->items) names.emplace_back(p.Name());
      const std::vector<std::string> close = CloseNames(options.argument, names);
      if (!close.empty()) {
        line += "; close names: " + close.front();
        for (size_t i = 1; i < close.size(); ++i) line += ", " + close[i];
      } else if (!names.empty()) {
        line += "; pools there: " + names.front();
        for (size_t i = 1; i < names.size() && i < 5; ++i) line += ", " + names[i];
      } else {
        line += " (it has none)";
      }
    }
    return Failure(line + (options.namespace_.empty() ? "; pass -n NAMESPACE" : ""));
  }
  std::vector<std::string> warnings;
  std::optional<crd::GatewayPool> pool = DecodePool(*object, warnings);
  if (!pool) return Failure(warnings.front());

  std::optional<std::vector<NodeInfo>> nodes;
  std::string nodes_error;
  StatusOr<k8s::ObjectList> listed = client.ListAll(k8s::kinds::Node(), "");
  if (listed.ok()) {
    nodes.emplace();
    for (const k8s::JsonObject& n : listed->items) nodes->push_back(DecodeNode(n));
  } else {
    nodes_error = DescribeApiError(listed.status(), "list", k8s::kinds::Node(), cluster);
  }
  const UpgradeView view = BuildUpgradeView(*pool, nodes, nodes_error, now);
  if (options.output == OutputFormat::kJson) return {RenderUpgradeJson(view), "", 0};
  return {RenderUpgradeText(view), "", 0};
}

}  // namespace

CommandResult PrintableResult(CommandResult result) {
  result.out = Printable(result.out, Newlines::kKeep);
  result.err = Printable(result.err, Newlines::kKeep);
  return result;
}

std::string UpgradeNamespace(const Options& options, const std::string& default_namespace) {
  if (!options.namespace_.empty()) return options.namespace_;
  if (!default_namespace.empty()) return default_namespace;
  return "default";
}

CommandResult RunStatus(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                        int64_t now) {
  return ThroughTerminal(client, options.output,
                         [&](k8s::Client& c) { return StatusCommand(c, options, cluster, now); });
}

CommandResult RunWhy(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                     int64_t now) {
  return ThroughTerminal(client, options.output,
                         [&](k8s::Client& c) { return WhyCommand(c, options, cluster, now); });
}

CommandResult RunUpgrade(k8s::Client& client, const Options& options,
                         const std::string& default_namespace, const ClusterInfo& cluster,
                         int64_t now) {
  return ThroughTerminal(client, options.output, [&](k8s::Client& c) {
    return UpgradeCommand(c, options, default_namespace, cluster, now);
  });
}

}  // namespace rdmastack::plugin
