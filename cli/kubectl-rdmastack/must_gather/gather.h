#pragma once
// The gather steps of `kubectl rdmastack must-gather`: each reads one part of the cluster through
// the API server (list, get, pods/log; never a write) into the Bundle. A step that fails records
// the API's error in the bundle and the run goes on: one refused read must not cost the rest.

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "cli/kubectl-rdmastack/must_gather/bundle.h"
#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "operator/k8s/client.h"

namespace rdmastack::plugin {

struct ApiAccess {
  k8s::Client* client = nullptr;
  // A GET of any API path (/version, pods/log): the body, or the API's error as a Status.
  std::function<StatusOr<std::string>(const std::string& path)> get;
};

struct GatherOptions {
  std::string namespace_;  // -n: pools and profiles of this namespace only; "" = all
  std::string operator_namespace = "rdmastack-system";
  int64_t tail_lines = 10000;  // per container log
  std::string plugin_version;
};

struct GatherContext {
  ApiAccess api;
  GatherOptions options;
  bundle::Bundle* bundle = nullptr;
  std::function<void(const std::string&)> progress;  // one line per step
  SecretScrubber scrubber;
  // The operator's namespace and every namespace holding a pool or profile (in scope).
  std::set<std::string> namespaces;
  k8s::JsonObject versions;  // versions.json, filled by the steps that see versions
};

// "403 Forbidden: <the server's message>", or the transport's text when no answer came.
std::string ApiFailure(const Status& status);

// Each step; Gather runs them in this order.
void GatherApiServerVersion(GatherContext& ctx);
void GatherRdmastackObjects(GatherContext& ctx);  // fills ctx.namespaces
void GatherCrds(GatherContext& ctx);
void GatherSecrets(GatherContext& ctx);  // names and keys; feeds the scrubber; helm values
void GatherWorkloads(GatherContext& ctx);
void GatherPodsAndLogs(GatherContext& ctx);
void GatherEvents(GatherContext& ctx);
void GatherNodes(GatherContext& ctx);

void Gather(GatherContext& ctx);

}  // namespace rdmastack::plugin
