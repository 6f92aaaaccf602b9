// The cluster-wide and rdmastack steps: the API server's version, the GatewayPools,
// ClientProfiles and RdmaNodes with their status, the CRDs' versions, events, and the labels and
// annotations rdmastack owns on each Node.
#include <map>

#include "cli/kubectl-rdmastack/must_gather/gather.h"
#include "crds/types/kinds.h"

namespace rdmastack::plugin {
namespace {

constexpr const char* kCrdNames[] = {"gatewaypools.rdmastack.io", "clientprofiles.rdmastack.io",
                                     "rdmanodes.rdmastack.io"};

std::string Plural(size_t n, const std::string& kind) {
  return std::to_string(n) + " " + kind + (n == 1 ? "" : "s");
}

}  // namespace

void GatherApiServerVersion(GatherContext& ctx) {
  StatusOr<std::string> body = ctx.api.get("/version");
  StatusOr<k8s::JsonObject> version =
      body.ok() ? k8s::JsonObject::Parse(*body) : StatusOr<k8s::JsonObject>(body.status());
  if (!version.ok()) {
    ctx.bundle->Fail("versions", "GET /version", ApiFailure(version.status()));
    ctx.progress("API server version: failed");
    return;
  }
  (void)ctx.versions.Set({"apiServer"}, *version);
  const std::string git = version->GetString({"gitVersion"}).value_or("?");
  ctx.bundle->Note("API server version", git);
  ctx.progress("API server version: " + git);
}

void GatherRdmastackObjects(GatherContext& ctx) {
  std::string found;
  k8s::JsonObject agents;
  for (const k8s::ResourceType* type :
       {&crd::kinds::GatewayPool(), &crd::kinds::ClientProfile(), &crd::kinds::RdmaNode()}) {
    const std::string ns = type->namespaced ? ctx.options.namespace_ : "";
    StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(*type, ns);
    if (!list.ok()) {
      ctx.bundle->Fail("rdmastack objects",
                       "list " + type->GroupResource() + (ns.empty() ? "" : " in " + ns),
                       ApiFailure(list.status()));
      found += (found.empty() ? "" : ", ") + type->kind + "s: failed";
      continue;
    }
    for (k8s::JsonObject& object : list->items) {
      if (type->namespaced) ctx.namespaces.insert(std::string(object.Namespace()));
      if (type == &crd::kinds::RdmaNode()) {
        (void)agents.SetString({object.Name()},
                               object.GetString({"status", "agent", "version"}).value_or(""));
      }
      ctx.bundle->CountRedactions(RedactObject(object));
      ctx.bundle->AddJson(bundle::ObjectFile(*type, object.Namespace(), object.Name()), object);
    }
    found += (found.empty() ? "" : ", ") + Plural(list->items.size(), type->kind);
  }
  // Which agent version each node's agent reported ("" = never reported one).
  (void)ctx.versions.Set({"agentsReported"}, agents);
  ctx.bundle->Note("rdmastack objects (with status)", found);
  ctx.progress("rdmastack objects: " + found);
}

void GatherCrds(GatherContext& ctx) {
  k8s::JsonObject crds;
  int got = 0;
  for (const char* name : kCrdNames) {
    StatusOr<k8s::JsonObject> crd =
        ctx.api.client->Get(k8s::kinds::CustomResourceDefinition(), "", name);
    if (!crd.ok()) {
      ctx.bundle->Fail("CRDs", std::string("get customresourcedefinitions/") + name,
                       ApiFailure(crd.status()));
      continue;
    }
    ++got;
    k8s::JsonObject entry;
    std::vector<k8s::JsonObject> versions;
    for (const k8s::JsonObject& v : crd->GetArray({"spec", "versions"})) {
      k8s::JsonObject out;
      (void)out.SetString({"name"}, v.GetString({"name"}).value_or(""));
      (void)out.SetBool({"served"}, v.GetBool({"served"}).value_or(false));
      (void)out.SetBool({"storage"}, v.GetBool({"storage"}).value_or(false));
      versions.push_back(std::move(out));
    }
    (void)entry.SetArray({"versions"}, versions);
    (void)entry.SetArray({"storedVersions"}, crd->GetArray({"status", "storedVersions"}));
    (void)entry.SetString({"resourceVersion"}, crd->ResourceVersion());
    (void)crds.Set({name}, entry);
  }
  ctx.bundle->AddJson(bundle::kCrdsPath, crds);
  (void)ctx.versions.Set({"crds"}, crds);
  ctx.bundle->Note("CRDs", std::to_string(got) + " of 3");
  ctx.progress("CRDs: " + std::to_string(got) + " of 3");
}

void GatherEvents(GatherContext& ctx) {
  size_t total = 0;
  auto write = [&](std::vector<k8s::JsonObject>& items, const std::string& path) {
    std::vector<k8s::JsonObject> events;
    for (k8s::JsonObject& e : items) {
      ctx.bundle->CountRedactions(RedactObject(e));
      if (auto message = e.GetString({"message"})) {
        int replaced = 0;
        (void)e.SetString({"message"}, RedactText(*message, &replaced));
        ctx.bundle->CountRedactions(replaced);
      }
      events.push_back(std::move(e));
    }
    k8s::JsonObject list;
    (void)list.SetArray({"items"}, events);
    ctx.bundle->AddJson(path, list);
    total += events.size();
  };
  for (const std::string& ns : ctx.namespaces) {
    StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(k8s::kinds::Event(), ns);
    if (!list.ok()) {
      ctx.bundle->Fail("events", "list events in " + ns, ApiFailure(list.status()));
      continue;
    }
    write(list->items, bundle::EventsPath(ns));
  }
  // Node events: the kubelet and controllers write them in "default"; other writers may not, so
  // every namespace first, and "default" when that is not allowed.
  k8s::ListOptions nodes;
  nodes.field_selector = "involvedObject.kind=Node";
  StatusOr<k8s::ObjectList> node_events = ctx.api.client->ListAll(k8s::kinds::Event(), "", nodes);
  if (!node_events.ok())
    node_events = ctx.api.client->ListAll(k8s::kinds::Event(), "default", nodes);
  size_t node_count = 0;
  if (node_events.ok()) {
    node_count = node_events->items.size();
    write(node_events->items, bundle::kNodeEventsPath);
  } else {
    ctx.bundle->Fail("events", "list events of Nodes", ApiFailure(node_events.status()));
  }
  const std::string found = std::to_string(total - node_count) + " in " +
                            std::to_string(ctx.namespaces.size()) + " namespaces, " +
                            std::to_string(node_count) + " of Nodes";
  ctx.bundle->Note("events", found);
  ctx.progress("events: " + found);
}

void GatherNodes(GatherContext& ctx) {
  StatusOr<k8s::ObjectList> list = ctx.api.client->ListAll(k8s::kinds::Node(), "");
  if (!list.ok()) {
    ctx.bundle->Fail("nodes", "list nodes", ApiFailure(list.status()));
    ctx.progress("nodes: failed");
    return;
  }
  size_t keys = 0;
  for (const k8s::JsonObject& node : list->items) {
    // Only what rdmastack owns: the rest of a Node is the cluster's, and large.
    k8s::JsonObject out;
    (void)out.SetString({"name"}, node.Name());
    std::map<std::string, std::string> labels, annotations;
    for (auto& [k, v] : node.Labels())
      if (bundle::IsRdmastackKey(k)) labels[k] = v;
    for (auto& [k, v] : node.Annotations())
      if (bundle::IsRdmastackKey(k)) annotations[k] = v;
    keys += labels.size() + annotations.size();
    (void)out.SetStringMap({"labels"}, labels);
    (void)out.SetStringMap({"annotations"}, annotations);
    (void)out.SetBool({"unschedulable"}, node.GetBool({"spec", "unschedulable"}).value_or(false));
    ctx.bundle->AddJson(bundle::NodePath(node.Name()), out);
  }
  const std::string found = std::to_string(list->items.size()) + " nodes, " + std::to_string(keys) +
                            " rdmastack labels and annotations";
  ctx.bundle->Note("nodes (rdmastack keys only)", found);
  ctx.progress("nodes: " + found);
}

}  // namespace rdmastack::plugin
