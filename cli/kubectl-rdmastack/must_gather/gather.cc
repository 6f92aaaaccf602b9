#include "cli/kubectl-rdmastack/must_gather/gather.h"

#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {

std::string ApiFailure(const Status& status) {
  const std::optional<k8s::ApiError> e = k8s::GetApiError(status);
  if (!e) return "no answer from the API server: " + status.message();
  std::string reason =
      e->reason_text.empty() ? std::string(StatusCodeName(status.code())) : e->reason_text;
  return std::to_string(e->http_code) + " " + reason + ": " + e->message;
}

void Gather(GatherContext& ctx) {
  ctx.namespaces.insert(ctx.options.operator_namespace);
  // -n NS: that namespace's events, Secrets' names and pods even when it holds no pool yet (a
  // pool that was refused, or deleted, is often why someone asks).
  if (!ctx.options.namespace_.empty()) ctx.namespaces.insert(ctx.options.namespace_);
  (void)ctx.versions.SetString({"plugin"}, ctx.options.plugin_version);
  GatherApiServerVersion(ctx);
  GatherRdmastackObjects(ctx);
  GatherCrds(ctx);
  GatherSecrets(ctx);
  GatherWorkloads(ctx);
  GatherPodsAndLogs(ctx);
  GatherEvents(ctx);
  GatherNodes(ctx);
  ctx.bundle->AddJson(bundle::kVersionsPath, ctx.versions);
}

}  // namespace rdmastack::plugin
