#include "tests/harness/node-runtime/pod_env.h"

namespace rdmastack::sim {
namespace {

// "metadata.labels['app.kubernetes.io/name']" -> "app.kubernetes.io/name" for prefix
// "metadata.labels".
std::optional<std::string> Subscript(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = path.substr(prefix.size());
  if (rest.size() < 4 || rest.substr(0, 2) != "['" || rest.substr(rest.size() - 2) != "']") {
    return std::nullopt;
  }
  return std::string(rest.substr(2, rest.size() - 4));
}

std::string MapLines(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& [k, v] : values) {
    if (!out.empty()) out += "\n";
    out += k + "=\"" + v + "\"";
  }
  return out;
}

bool IsOptional(const k8s::JsonObject& ref) {
  return ref.GetBool({"optional"}).value_or(false);
}

// The value of one key of a ConfigMap or Secret; nullopt when it may be absent and is.
StatusOr<std::optional<std::string>> KeyRef(const k8s::JsonObject& ref, bool secret,
                                            std::string_view ns, ObjectReader& reader) {
  const std::string name = ref.GetString({"name"}).value_or("");
  const std::string key = ref.GetString({"key"}).value_or("");
  const bool optional = IsOptional(ref);
  StatusOr<DataMap> data = secret ? reader.Secret(ns, name) : reader.ConfigMap(ns, name);
  if (!data.ok()) {
    if (optional && data.status().code() == StatusCode::kNotFound)
      return std::optional<std::string>();
    return data.status();
  }
  auto it = data->find(key);
  if (it == data->end()) {
    if (optional) return std::optional<std::string>();
    return NotFoundError("couldn't find key " + key + " in " + (secret ? "Secret " : "ConfigMap ") +
                         std::string(ns) + "/" + name);
  }
  return std::optional<std::string>(it->second);
}

}  // namespace

StatusOr<std::string> ResolveFieldRef(const PodFacts& facts, std::string_view path) {
  const k8s::JsonObject& pod = *facts.pod;
  if (path == "metadata.name") return std::string(pod.Name());
  if (path == "metadata.namespace") return std::string(pod.Namespace());
  if (path == "metadata.uid") return std::string(pod.Uid());
  if (path == "spec.nodeName") return pod.GetString({"spec", "nodeName"}).value_or("");
  if (path == "spec.serviceAccountName") {
    return pod.GetString({"spec", "serviceAccountName"}).value_or("default");
  }
  if (path == "status.hostIP" || path == "status.hostIPs") return facts.host_ip;
  if (path == "status.podIP" || path == "status.podIPs") return facts.pod_ip;
  if (path == "metadata.labels") return MapLines(pod.Labels());
  if (path == "metadata.annotations") return MapLines(pod.Annotations());
  if (auto key = Subscript(path, "metadata.labels")) return pod.Label(*key).value_or("");
  if (auto key = Subscript(path, "metadata.annotations")) return pod.Annotation(*key).value_or("");
  return InvalidArgumentError("fieldRef " + std::string(path) +
                              " is not supported by the simulated node runtime");
}

StatusOr<EnvList> BuildContainerEnv(const PodFacts& facts, const k8s::JsonObject& container,
                                    const EnvList& base, ObjectReader& reader) {
  EnvList env = base;
  const std::string ns(facts.pod->Namespace());
  for (const k8s::JsonObject& from : container.GetArray({"envFrom"})) {
    const std::string prefix = from.GetString({"prefix"}).value_or("");
    const bool secret = from.Has({"secretRef"});
    const k8s::JsonObject ref =
        from.Get({secret ? "secretRef" : "configMapRef"}).value_or(k8s::JsonObject());
    const std::string name = ref.GetString({"name"}).value_or("");
    StatusOr<DataMap> data = secret ? reader.Secret(ns, name) : reader.ConfigMap(ns, name);
    if (!data.ok()) {
      if (IsOptional(ref) && data.status().code() == StatusCode::kNotFound) continue;
      return data.status();
    }
    for (const auto& [key, value] : *data) env.Set(prefix + key, value);
  }
  for (const k8s::JsonObject& var : container.GetArray({"env"})) {
    const std::string name = var.GetString({"name"}).value_or("");
    if (std::optional<std::string> value = var.GetString({"value"})) {
      env.Set(name, ExpandKubeVars(*value, env));
      continue;
    }
    const std::optional<k8s::JsonObject> from = var.Get({"valueFrom"});
    if (!from) {
      env.Set(name, "");
      continue;
    }
    if (const auto field = from->GetString({"fieldRef", "fieldPath"})) {
      RDMASTACK_ASSIGN_OR_RETURN(std::string value, ResolveFieldRef(facts, *field));
      env.Set(name, value);
    } else if (const auto ref = from->Get({"secretKeyRef"})) {
      RDMASTACK_ASSIGN_OR_RETURN(std::optional<std::string> value, KeyRef(*ref, true, ns, reader));
      if (value) env.Set(name, *value);
    } else if (const auto cm = from->Get({"configMapKeyRef"})) {
      RDMASTACK_ASSIGN_OR_RETURN(std::optional<std::string> value, KeyRef(*cm, false, ns, reader));
      if (value) env.Set(name, *value);
    } else {
      return InvalidArgumentError("env " + name +
                                  ": only fieldRef, secretKeyRef and configMapKeyRef are supported "
                                  "by the simulated node runtime");
    }
  }
  return env;
}

}  // namespace rdmastack::sim
