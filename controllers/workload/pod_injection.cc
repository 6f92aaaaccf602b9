#include "controllers/workload/pod_injection.h"

#include <algorithm>
#include <set>

#include "controllers/clientprofile/client_workload.h"
#include "controllers/clientprofile/s3_user.h"
#include "controllers/common/render.h"

namespace rdmastack::workload {
namespace {

using controllers::Obj;
using controllers::Str;

std::string ProfileRef(const crd::ClientProfile& profile) {
  return profile.metadata.namespace_.value_or("") + "/" + profile.metadata.name;
}

// Collects conflicts in the order they are found; the annotation lists each once.
class Conflicts {
 public:
  void Add(std::string text) {
    if (std::find(items_.begin(), items_.end(), text) == items_.end())
      items_.push_back(std::move(text));
  }
  std::string Joined() const {
    std::string out;
    for (const auto& c : items_) out += (out.empty() ? "" : "; ") + c;
    return out;
  }

 private:
  std::vector<std::string> items_;
};

std::vector<std::string> StringArray(const k8s::JsonObject& o, const k8s::JsonPath& path) {
  std::vector<std::string> out;
  for (const auto& v : o.GetArray(path)) {
    if (v.value().IsString()) out.emplace_back(v.value().GetString());
  }
  return out;
}

// The pod's fields have the Pod schema's types when the API server sends it; a request made by
// hand may hold another type where a write goes, and what could not be written is reported with
// the conflicts.
bool Written(const Status& s, const std::string& what, Conflicts* conflicts) {
  if (s.ok()) return true;
  conflicts->Add(what + " not injected (" + s.message() + ")");
  return false;
}

bool Contains(const std::vector<std::string>& items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// The env entry `entry`, unless the container sets that variable otherwise (`what` describes the
// profile's value in the conflict).
void InjectEnvEntry(k8s::JsonObject* c, const std::string& container, const k8s::JsonObject& entry,
                    const std::string& what, Conflicts* conflicts) {
  const std::string name = entry.GetString({"name"}).value_or("");
  for (const auto& e : c->GetArray({"env"})) {
    if (e.GetString({"name"}) != name) continue;
    if (e != entry) {
      conflicts->Add("container " + container + ": env " + name +
                     " is set by the pod (kept; the profile's value is " + what + ")");
    }
    return;
  }
  Written(c->Append({"env"}, entry), "container " + container + ": env " + name, conflicts);
}

void InjectEnv(k8s::JsonObject* c, const std::string& container, std::string_view name,
               const std::string& value, Conflicts* conflicts) {
  InjectEnvEntry(c, container, controllers::EnvValue(name, value), value, conflicts);
}

// The profile's S3 user keys (spec.s3User) as the AWS SDKs' variables.
void InjectS3UserKeys(k8s::JsonObject* c, const std::string& container,
                      const crd::ClientProfile& profile, Conflicts* conflicts) {
  const std::string secret = clientprofile::S3UserSecretName(profile.metadata.name);
  for (auto [var, key] : {std::pair{"AWS_ACCESS_KEY_ID", clientprofile::kS3UserAccessKeyKey},
                          std::pair{"AWS_SECRET_ACCESS_KEY", clientprofile::kS3UserSecretKeyKey}})
    InjectEnvEntry(c, container, controllers::EnvSecret(var, secret, key),
                   "Secret " + secret + " key " + key, conflicts);
}

// A read-only mount of `volume` at `path`, unless the container mounts something else there.
void InjectMount(k8s::JsonObject* c, const std::string& container, const std::string& volume,
                 const std::string& path, bool read_only, Conflicts* conflicts) {
  for (const auto& m : c->GetArray({"volumeMounts"})) {
    const bool same_volume = m.GetString({"name"}) == volume;
    const bool same_path = m.GetString({"mountPath"}) == path;
    if (same_volume && same_path) return;
    if (same_volume || same_path) {
      conflicts->Add("container " + container + ": " + path + " is mounted from volume " +
                     m.GetString({"name"}).value_or("?") + " at " +
                     m.GetString({"mountPath"}).value_or("?") + " (kept; " + volume +
                     " is not mounted)");
      return;
    }
  }
  Written(c->Append({"volumeMounts"}, controllers::Mount(volume, path, read_only)),
          "container " + container + ": mount of volume " + volume, conflicts);
}

void InjectIpcLock(k8s::JsonObject* c, const std::string& container, Conflicts* conflicts) {
  const std::vector<std::string> add = StringArray(*c, {"securityContext", "capabilities", "add"});
  if (Contains(add, "IPC_LOCK") || Contains(add, "CAP_IPC_LOCK")) return;
  // drop: [ALL] is fine (add is applied after drop); dropping IPC_LOCK by name is a choice.
  const std::vector<std::string> drop =
      StringArray(*c, {"securityContext", "capabilities", "drop"});
  if (Contains(drop, "IPC_LOCK") || Contains(drop, "CAP_IPC_LOCK")) {
    conflicts->Add("container " + container +
                   ": drops IPC_LOCK (kept; RDMA memory registration is then bound by "
                   "RLIMIT_MEMLOCK)");
    return;
  }
  Written(c->Append({"securityContext", "capabilities", "add"}, Str("IPC_LOCK")),
          "container " + container + ": IPC_LOCK", conflicts);
}

// One unit of an extended resource, unless the container already asks for it (any amount).
void InjectResource(k8s::JsonObject* c, const std::string& container, const std::string& resource,
                    Conflicts* conflicts) {
  if (c->Has({"resources", "limits", resource}) || c->Has({"resources", "requests", resource}))
    return;
  Written(c->SetString({"resources", "limits", resource}, "1"),
          "container " + container + ": resource " + resource, conflicts);
}

void InjectPrivileged(k8s::JsonObject* c, const std::string& container, Conflicts* conflicts) {
  const std::optional<bool> privileged = c->GetBool({"securityContext", "privileged"});
  if (privileged == true) return;
  if (privileged == false) {
    conflicts->Add("container " + container +
                   ": privileged: false (kept; without it the device cgroup denies " +
                   std::string(kDevPath) + ")");
    return;
  }
  Written(c->SetBool({"securityContext", "privileged"}, true),
          "container " + container + ": privileged", conflicts);
}

// A pod volume named `name`: added when absent, a conflict when the pod has another of that name.
bool InjectVolume(k8s::JsonObject* pod, const k8s::JsonObject& volume, Conflicts* conflicts) {
  const std::string name = volume.GetString({"name"}).value_or("");
  for (const auto& v : pod->GetArray({"spec", "volumes"})) {
    if (v.GetString({"name"}) != name) continue;
    if (v == volume) return true;
    conflicts->Add("volume " + name + " is defined by the pod (kept; not mounted)");
    return false;
  }
  return Written(pod->Append({"spec", "volumes"}, volume), "volume " + name, conflicts);
}

// "name", "ns/name", "ns/name@iface" -> "ns/name" (the pod's namespace when none is given).
std::string NetworkKey(std::string_view entry, std::string_view pod_ns) {
  std::string s(entry);
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  if (const size_t at = s.find('@'); at != std::string::npos) s.resize(at);
  if (s.find('/') == std::string::npos) s = std::string(pod_ns) + "/" + s;
  return s;
}

// Adds the NetworkAttachmentDefinition to the pod's Multus networks, in the form (comma list or
// JSON list) the pod already uses.
void InjectNetwork(k8s::JsonObject* pod, const std::string& attachment, std::string_view pod_ns) {
  const std::string want = NetworkKey(attachment, pod_ns);
  const std::string current = pod->Annotation(kNetworksAnnotation).value_or("");
  const size_t first = current.find_first_not_of(" \t\n");
  if (first != std::string::npos && current[first] == '[') {
    auto list = k8s::JsonObject::Parse(current);
    if (list.ok() && list->IsArray()) {
      for (const auto& n : list->GetArray({})) {
        std::string key = n.GetString({"namespace"}).value_or(std::string(pod_ns)) + "/" +
                          n.GetString({"name"}).value_or("");
        if (key == want) return;
      }
      k8s::JsonBuilder entry;
      entry.SetString({"name"}, want.substr(want.find('/') + 1));
      entry.SetString({"namespace"}, want.substr(0, want.find('/')));
      k8s::JsonBuilder networks(std::move(*list));
      networks.Append({}, entry);
      pod->SetAnnotation(kNetworksAnnotation, networks.object().Serialize());
      return;
    }
  }
  size_t start = 0;
  while (first != std::string::npos && start <= current.size()) {
    const size_t comma = std::min(current.find(',', start), current.size());
    if (NetworkKey(current.substr(start, comma - start), pod_ns) == want) return;
    start = comma + 1;
  }
  pod->SetAnnotation(kNetworksAnnotation,
                     first == std::string::npos ? attachment : current + "," + attachment);
}

// requiredDuringScheduling: every node selector term (they are ORed) also requires the
// profile's ready-node label.
void InjectNodeAffinity(k8s::JsonObject* pod, const std::string& label, Conflicts* conflicts) {
  const k8s::JsonPath terms_path = {"spec", "affinity", "nodeAffinity",
                                    "requiredDuringSchedulingIgnoredDuringExecution",
                                    "nodeSelectorTerms"};
  k8s::JsonBuilder expression;
  expression.SetString({"key"}, label);
  expression.SetString({"operator"}, "In");
  expression.Append({"values"}, Str(clientprofile::kReadyValue));
  const k8s::JsonObject requirement = std::move(expression).Build();
  std::vector<k8s::JsonObject> terms = pod->GetArray(terms_path);
  if (terms.empty()) terms.emplace_back();
  for (auto& term : terms) {
    const auto expressions = term.GetArray({"matchExpressions"});
    if (std::find(expressions.begin(), expressions.end(), requirement) == expressions.end()) {
      Written(term.Append({"matchExpressions"}, requirement), "node affinity term", conflicts);
    }
  }
  Written(pod->SetArray(terms_path, terms), "node affinity", conflicts);
}

std::string DeviceSummary(const crd::WorkloadSpec& w) {
  if (w.shared_device_plugin) return "sharedDevicePlugin " + w.shared_device_plugin->resource_name;
  if (w.sriov) return "sriov " + w.sriov->resource_name + " via " + w.sriov->network_attachment;
  return std::string("hostDevice ") + kDevPath;
}

}  // namespace

Status CheckAdmissible(const crd::ClientProfile& profile) {
  const std::string ref = "ClientProfile " + ProfileRef(profile);
  if (!profile.spec.workload) {
    return FailedPreconditionError(
        ref +
        " has no spec.workload, so it does not say how pods reach the RDMA device: add "
        "spec.workload with sharedDevicePlugin, sriov or hostDevice (docs/api.md \"Workloads\")");
  }
  if (profile.metadata.deletion_timestamp) {
    return FailedPreconditionError(ref + " is being deleted: name another profile");
  }
  const int32_t ready =
      profile.status && profile.status->node_counts ? profile.status->node_counts->ready : 0;
  if (ready == 0) {
    const int32_t eligible =
        profile.status && profile.status->node_counts ? profile.status->node_counts->eligible : 0;
    return FailedPreconditionError(
        ref + " has no node whose client data plane is Ready (" + std::to_string(eligible) +
        " eligible), so the pod could not be scheduled: see `kubectl rdmastack status` or "
        "`kubectl describe clientprofile " +
        profile.metadata.name + "` for why, and create the pod once a node is Ready");
  }
  return OkStatus();
}

std::string ProfileNotFoundMessage(std::string_view ns, std::string_view profile) {
  return "ClientProfile \"" + std::string(profile) + "\" not found in namespace \"" +
         std::string(ns) + "\" (named by the pod's label " + kProfileLabel +
         "): create it there, or correct the label (`kubectl get clientprofiles -n " +
         std::string(ns) + "` lists the profiles)";
}

k8s::JsonObject InjectClientProfile(const k8s::JsonObject& pod, const crd::ClientProfile& profile,
                                    std::string_view ns) {
  k8s::JsonObject out = pod;
  const crd::WorkloadSpec& w = *profile.spec.workload;
  const std::string& mount = w.config_mount_path;
  Conflicts conflicts;

  InjectNodeAffinity(&out, clientprofile::ClientNodeLabel(ns, profile.metadata.name), &conflicts);
  const bool config_volume = InjectVolume(
      &out,
      controllers::HostPathVolume(
          kConfigVolume, clientprofile::InstallDir(ns, profile.metadata.name), "Directory"),
      &conflicts);
  const bool dev_volume =
      w.host_device &&
      InjectVolume(&out, controllers::HostPathVolume(kDevVolume, kDevPath, "Directory"),
                   &conflicts);
  if (w.sriov) InjectNetwork(&out, w.sriov->network_attachment, ns);

  std::vector<k8s::JsonObject> containers = out.GetArray({"spec", "containers"});
  for (size_t i = 0; i < containers.size(); ++i) {
    k8s::JsonObject& c = containers[i];
    const std::string name = c.GetString({"name"}).value_or("#" + std::to_string(i));
    if (w.shared_device_plugin)
      InjectResource(&c, name, w.shared_device_plugin->resource_name, &conflicts);
    // One VF per pod: the first container holds it.
    if (w.sriov && i == 0) InjectResource(&c, name, w.sriov->resource_name, &conflicts);
    if (w.host_device) {
      if (dev_volume) InjectMount(&c, name, kDevVolume, kDevPath, false, &conflicts);
      InjectPrivileged(&c, name, &conflicts);
    }
    InjectIpcLock(&c, name, &conflicts);
    if (config_volume) InjectMount(&c, name, kConfigVolume, mount, true, &conflicts);
    InjectEnv(&c, name, "CUOBJ_ENV_PATH_JSON", mount + "/cuobj.json", &conflicts);
    InjectEnv(&c, name, "CUFILE_ENV_PATH_JSON", mount + "/cufile.json", &conflicts);
    InjectEnv(&c, name, "LD_LIBRARY_PATH", mount + "/lib", &conflicts);
    InjectEnv(&c, name, "RDMASTACK_CLIENT_CONFIG_DIR", mount, &conflicts);
    if (profile.spec.s3_user) InjectS3UserKeys(&c, name, profile, &conflicts);
  }
  Written(out.SetArray({"spec", "containers"}, containers), "containers", &conflicts);

  out.SetAnnotation(kInjectedAnnotation,
                    profile.metadata.name + ": " + DeviceSummary(w) + ", config at " + mount);
  if (const std::string text = conflicts.Joined(); !text.empty()) {
    out.SetAnnotation(kConflictsAnnotation, text);
  } else {
    out.Remove({"metadata", "annotations", kConflictsAnnotation});
  }
  return out;
}

k8s::JsonObject PodPatch(const k8s::JsonObject& before, const k8s::JsonObject& after) {
  k8s::JsonBuilder ops(k8s::JsonObject::Array());
  // RFC 6901: '~' and '/' in a member name are escaped.
  auto pointer_part = [](std::string_view key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  };
  for (const char* top : {"metadata", "spec"}) {
    const auto whole_before = before.Get({top});
    const auto whole_after = after.Get({top});
    if (!whole_before || !whole_before->IsObject()) {
      // Nothing to patch member by member (a request without metadata or spec): the whole of it.
      if (!whole_after || whole_after == whole_before) continue;
      k8s::JsonBuilder op;
      op.SetString({"op"}, whole_before ? "replace" : "add");
      op.SetString({"path"}, "/" + std::string(top));
      op.Set({"value"}, *whole_after);
      ops.Append({}, op);
      continue;
    }
    std::set<std::string> keys;
    for (const auto& k : before.Keys({top})) keys.insert(k);
    for (const auto& k : after.Keys({top})) keys.insert(k);
    for (const auto& key : keys) {
      const auto a = before.Get({top, key});
      const auto b = after.Get({top, key});
      if (a == b) continue;
      k8s::JsonBuilder op;
      op.SetString({"op"}, !b ? "remove" : (a ? "replace" : "add"));
      op.SetString({"path"}, "/" + std::string(top) + "/" + pointer_part(key));
      if (b) op.Set({"value"}, *b);
      ops.Append({}, op);
    }
  }
  return std::move(ops).Build();
}

}  // namespace rdmastack::workload
