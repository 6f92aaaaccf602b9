// Secrets, read for three reasons and never written: their names, types and key names (is the
// pool's credentials Secret there, with the keys it names?), their values (searched for in every
// file of the bundle and replaced), and helm's release records (the chart values in use).
#include <map>

#include "cli/kubectl-rdmastack/must_gather/gather.h"
#include "cli/kubectl-rdmastack/must_gather/helm_release.h"

namespace rdmastack::plugin {

void GatherSecrets(GatherContext& ctx) {
  size_t count = 0;
  // release name -> the newest record of it in the operator's namespace.
  std::map<std::string, std::pair<int64_t, const k8s::JsonObject*>> releases;
  std::vector<k8s::JsonObject> operator_secrets;
  bool operator_secrets_read = false;
  for (const std::string& ns : ctx.namespaces) {
    StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(k8s::kinds::Secret(), ns);
    if (!list.ok()) {
      ctx.bundle->Fail("secrets",
                       "list secrets in " + ns +
                           " (so their names and keys are not "
                           "listed and their values are not searched for in the bundle)",
                       ApiFailure(list.status()));
      continue;
    }
    std::vector<k8s::JsonObject> inventory;
    for (const k8s::JsonObject& secret : list->items) {
      const bool helm_record = secret.GetString({"type"}).value_or("") == kHelmReleaseType;
      // A helm record holds a whole release, compressed; its values are the Secrets it made
      // (searched for as themselves) and its config (redacted by key below).
      SecretScrubber ignored;
      inventory.push_back(SecretInventory(secret, helm_record ? ignored : ctx.scrubber));
      ++count;
    }
    k8s::JsonObject out;
    (void)out.SetArray({"items"}, inventory);
    ctx.bundle->AddJson(bundle::SecretsPath(ns), out);
    if (ns == ctx.options.operator_namespace) {
      operator_secrets = std::move(list->items);
      operator_secrets_read = true;
    }
  }
  ctx.bundle->Note("secrets (names, types, key names)",
                   std::to_string(count) + " in " + std::to_string(ctx.namespaces.size()) +
                       " namespaces; " + std::to_string(ctx.scrubber.size()) +
                       " value forms to search for");
  ctx.progress("secrets: " + std::to_string(count) + " (names and keys only)");

  for (const k8s::JsonObject& secret : operator_secrets) {
    if (secret.GetString({"type"}).value_or("") != kHelmReleaseType) continue;
    const std::string name = secret.Label("name").value_or("");
    const int64_t version = std::atoll(secret.Label("version").value_or("0").c_str());
    auto& newest = releases[name];
    if (newest.second == nullptr || version > newest.first) newest = {version, &secret};
  }
  std::string found;
  for (const auto& [name, record] : releases) {
    StatusOr<HelmRelease> release = DecodeHelmRelease(*record.second);
    if (!release.ok()) {
      ctx.bundle->Fail("helm", "release " + name + " (" + std::string(record.second->Name()) + ")",
                       release.status().message());
      continue;
    }
    ctx.bundle->CountRedactions(release->redacted);
    ctx.bundle->AddJson(bundle::HelmPath(ctx.options.operator_namespace, name, "values.json"),
                        release->values);
    ctx.bundle->AddJson(bundle::HelmPath(ctx.options.operator_namespace, name, "release.json"),
                        release->summary);
    found += (found.empty() ? "" : ", ") + name + " v" + std::to_string(record.first);
  }
  if (releases.empty()) {
    found = operator_secrets_read
                ? "none in " + ctx.options.operator_namespace
                : "not read (helm keeps releases in Secrets, which could not be listed in " +
                      ctx.options.operator_namespace + ")";
  }
  ctx.bundle->Note("helm releases (user-supplied values)", found);
  ctx.progress("helm releases: " + found);
}

}  // namespace rdmastack::plugin
