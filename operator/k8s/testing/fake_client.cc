#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::k8s::testing {
namespace {

bool Matches(const std::string& pattern, std::string_view value) {
  return pattern.empty() || pattern == value;
}

}  // namespace

std::string Action::ToString() const {
  std::string out = verb + (subresource.empty() ? "" : "/" + subresource) + " " + kind;
  if (!ns.empty() || !name.empty()) out += " " + ObjectKey(ns, name);
  return out;
}

bool Action::IsWrite() const {
  return verb != "get" && verb != "list" && verb != "watch";
}

std::vector<std::string> ToStrings(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const Action& a : actions) out.push_back(a.ToString());
  return out;
}

// ---- setup and inspection ----

StatusOr<JsonObject> FakeClient::Put(const ResourceType& type, JsonObject object) {
  std::lock_guard lock(mu_);
  return tracker_.Put(type, std::move(object));
}

bool FakeClient::Erase(const ResourceType& type, std::string_view ns, std::string_view name) {
  std::lock_guard lock(mu_);
  return tracker_.Erase(type, ns, name);
}

std::optional<JsonObject> FakeClient::Find(const ResourceType& type, std::string_view ns,
                                           std::string_view name) const {
  std::lock_guard lock(mu_);
  const JsonObject* o = tracker_.Find(type, ns, name);
  return o != nullptr ? std::optional<JsonObject>(*o) : std::nullopt;
}

std::vector<JsonObject> FakeClient::Objects(const ResourceType& type) const {
  std::lock_guard lock(mu_);
  return tracker_.Objects(type);
}

void FakeClient::SetNow(std::string rfc3339) {
  std::lock_guard lock(mu_);
  tracker_.SetNow(std::move(rfc3339));
}

std::vector<Action> FakeClient::actions() const {
  std::lock_guard lock(mu_);
  return actions_;
}

std::vector<Action> FakeClient::writes(std::string_view kind) const {
  std::lock_guard lock(mu_);
  std::vector<Action> out;
  for (const Action& a : actions_) {
    if (a.IsWrite() && (kind.empty() || a.kind == kind)) out.push_back(a);
  }
  return out;
}

void FakeClient::ClearActions() {
  std::lock_guard lock(mu_);
  actions_.clear();
}

void FakeClient::FailOn(std::string verb, std::string kind, Status error, int times) {
  std::lock_guard lock(mu_);
  failures_.push_back({std::move(verb), std::move(kind), std::move(error), times});
}

void FakeClient::Answer(std::string verb, std::string kind, Handler handler) {
  std::lock_guard lock(mu_);
  answers_.push_back({std::move(verb), std::move(kind), std::move(handler)});
}

// ---- requests ----

std::optional<StatusOr<JsonObject>> FakeClient::Intercept(const Action& action,
                                                          const JsonObject* body) {
  Handler answer;
  {
    std::lock_guard lock(mu_);
    actions_.push_back(action);
    const std::string verb =
        action.verb + (action.subresource.empty() ? "" : "/" + action.subresource);
    for (Failure& f : failures_) {
      if (f.times == 0 || !Matches(f.verb, verb) || !Matches(f.kind, action.kind)) continue;
      if (f.times > 0) --f.times;
      return StatusOr<JsonObject>(f.error);
    }
    for (const Answerer& a : answers_) {
      if (a.verb == verb && Matches(a.kind, action.kind)) answer = a.handler;
    }
  }
  if (!answer) return std::nullopt;
  return answer(body != nullptr ? *body : JsonObject());
}

StatusOr<JsonObject> FakeClient::Get(const ResourceType& type, std::string_view ns,
                                     std::string_view name, const GetOptions&) {
  ns = ScopedNamespace(type, ns);
  if (auto answered = Intercept({"get", "", type.kind, std::string(ns), std::string(name)}))
    return *answered;
  std::lock_guard lock(mu_);
  return tracker_.Get(type, ns, name);
}

StatusOr<ObjectList> FakeClient::List(const ResourceType& type, std::string_view ns,
                                      const ListOptions& options) {
  ns = ScopedNamespace(type, ns);
  if (auto answered = Intercept({"list", "", type.kind, std::string(ns), ""})) {
    if (!answered->ok()) return answered->status();
    ObjectList list;
    list.api_version = type.ApiVersion();
    list.kind = type.kind + "List";
    list.items = (*answered)->GetArray({"items"});
    return list;
  }
  std::lock_guard lock(mu_);
  return tracker_.List(type, ns, options);
}

StatusOr<WatchStreamPtr> FakeClient::Watch(const ResourceType& type, std::string_view ns,
                                           const WatchOptions&) {
  ns = ScopedNamespace(type, ns);
  if (auto answered = Intercept({"watch", "", type.kind, std::string(ns), ""});
      answered && !answered->ok())
    return answered->status();
  return UnimplementedError("the fake client serves no watches; fill caches from List()");
}

StatusOr<JsonObject> FakeClient::Create(const ResourceType& type, const JsonObject& object,
                                        const WriteOptions& options) {
  const std::string name(object.Name().empty() ? object.GenerateName() : object.Name());
  if (auto answered = Intercept(
          {"create", "", type.kind, std::string(ScopedNamespace(type, object.Namespace())), name},
          &object))
    return *answered;
  std::lock_guard lock(mu_);
  return tracker_.Create(type, object, options.field_manager);
}

StatusOr<JsonObject> FakeClient::Update(const ResourceType& type, const JsonObject& object,
                                        const WriteOptions& options) {
  return Replace(type, object, options.field_manager, /*status_only=*/false);
}

StatusOr<JsonObject> FakeClient::UpdateStatus(const ResourceType& type, const JsonObject& object,
                                              const WriteOptions& options) {
  return Replace(type, object, options.field_manager, /*status_only=*/true);
}

StatusOr<JsonObject> FakeClient::Replace(const ResourceType& type, const JsonObject& object,
                                         std::string_view field_manager, bool status_only) {
  if (auto answered = Intercept(
          {"update", status_only ? "status" : "", type.kind,
           std::string(ScopedNamespace(type, object.Namespace())), std::string(object.Name())},
          &object))
    return *answered;
  std::lock_guard lock(mu_);
  return tracker_.Update(type, object, field_manager, status_only);
}

StatusOr<JsonObject> FakeClient::Patch(const ResourceType& type, std::string_view ns,
                                       std::string_view name, PatchType patch_type,
                                       std::string_view body, const PatchOptions& options) {
  return PatchAny(type, ns, name, patch_type, body, options, /*status_only=*/false);
}

StatusOr<JsonObject> FakeClient::PatchStatus(const ResourceType& type, std::string_view ns,
                                             std::string_view name, PatchType patch_type,
                                             std::string_view body, const PatchOptions& options) {
  return PatchAny(type, ns, name, patch_type, body, options, /*status_only=*/true);
}

StatusOr<JsonObject> FakeClient::PatchAny(const ResourceType& type, std::string_view ns,
                                          std::string_view name, PatchType patch_type,
                                          std::string_view body, const PatchOptions& options,
                                          bool status_only) {
  ns = ScopedNamespace(type, ns);
  const auto parsed = JsonObject::Parse(body);
  if (auto answered =
          Intercept({patch_type == PatchType::kApply ? "apply" : "patch",
                     status_only ? "status" : "", type.kind, std::string(ns), std::string(name)},
                    parsed.ok() ? &*parsed : nullptr))
    return *answered;
  std::lock_guard lock(mu_);
  return tracker_.Patch(type, ns, name, patch_type, body, options, status_only);
}

StatusOr<JsonObject> FakeClient::Delete(const ResourceType& type, std::string_view ns,
                                        std::string_view name, const DeleteOptions& options) {
  ns = ScopedNamespace(type, ns);
  if (auto answered = Intercept({"delete", "", type.kind, std::string(ns), std::string(name)}))
    return *answered;
  std::lock_guard lock(mu_);
  return tracker_.Delete(type, ns, name, options);
}

StatusOr<JsonObject> FakeClient::CreateSubresource(const ResourceType& type, std::string_view ns,
                                                   std::string_view name,
                                                   std::string_view subresource,
                                                   const JsonObject& body) {
  ns = ScopedNamespace(type, ns);
  if (auto answered = Intercept(
          {"create", std::string(subresource), type.kind, std::string(ns), std::string(name)},
          &body))
    return *answered;
  return UnimplementedError("the fake client computes no " + std::string(subresource) +
                            " subresource; give it an Answer(\"create/" + std::string(subresource) +
                            "\", ...)");
}

}  // namespace rdmastack::k8s::testing
