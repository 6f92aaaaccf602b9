#include "operator/runtime/predicates.h"

namespace rdmastack::runtime {

Request Request::FromKey(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

namespace {
constexpr std::string_view kTerminalPayload = "rdmastack.io/runtime.TerminalError";
}  // namespace

Status TerminalError(Status status) {
  if (status.ok()) status = UnknownError("terminal error without a cause");
  status.SetPayload(kTerminalPayload, "true");
  return status;
}

bool IsTerminalError(const Status& status) {
  return status.GetPayload(kTerminalPayload).has_value();
}

Predicate GenerationChanged() {
  Predicate p;
  p.update = [](const k8s::JsonObject& old, const k8s::JsonObject& current) {
    return old.Generation() != current.Generation();
  };
  return p;
}

Predicate NotStatusOnly() {
  return UpdatesWhere([](const k8s::JsonObject& a, const k8s::JsonObject& b) {
    return a.Generation() != b.Generation() || a.DeletionTimestamp() != b.DeletionTimestamp() ||
           a.Finalizers() != b.Finalizers() || a.Labels() != b.Labels() ||
           a.Annotations() != b.Annotations();
  });
}

Predicate UpdatesWhere(
    std::function<bool(const k8s::JsonObject& old, const k8s::JsonObject& current)> changed) {
  Predicate p;
  p.update = std::move(changed);
  return p;
}

MapFunc EnqueueByLabel(std::string label) {
  return [label = std::move(label)](const k8s::JsonObject& o) {
    std::vector<Request> out;
    if (auto value = o.Label(label))
      out.push_back({std::string(o.Namespace()), std::string(*value)});
    return out;
  };
}

MapFunc EnqueueAll(const Store& store) {
  return [&store](const k8s::JsonObject&) {
    std::vector<Request> out;
    for (const auto& key : store.ListKeys()) out.push_back(Request::FromKey(key));
    return out;
  };
}

MapFunc EnqueueAllInNamespace(const Store& store) {
  return [&store](const k8s::JsonObject& o) {
    std::vector<Request> out;
    for (const auto& key : store.ListKeys()) {
      Request r = Request::FromKey(key);
      if (r.ns == o.Namespace()) out.push_back(std::move(r));
    }
    return out;
  };
}

MapFunc EnqueueSelf() {
  return [](const k8s::JsonObject& o) {
    return std::vector<Request>{{std::string(o.Namespace()), std::string(o.Name())}};
  };
}

std::string GroupOf(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? "" : std::string(api_version.substr(0, slash));
}

MapFunc EnqueueOwner(std::string owner_group, std::string owner_kind, bool only_controller,
                     bool owner_namespaced) {
  return [group = std::move(owner_group), kind = std::move(owner_kind), only_controller,
          owner_namespaced](const k8s::JsonObject& o) {
    std::vector<Request> out;
    for (const auto& ref : o.OwnerReferences()) {
      if (only_controller && !ref.controller) continue;
      if (ref.kind != kind || GroupOf(ref.api_version) != group) continue;
      out.push_back({owner_namespaced ? std::string(o.Namespace()) : "", ref.name});
    }
    return out;
  };
}

}  // namespace rdmastack::runtime
