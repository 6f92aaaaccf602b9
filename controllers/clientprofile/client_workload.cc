#include "controllers/clientprofile/client_workload.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <tuple>

#include "controllers/clientprofile/node_retirement.h"
#include "controllers/clientprofile/s3_user.h"
#include "controllers/common/node_access.h"
#include "controllers/common/render.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/int_or_string.h"
#include "crds/types/label_names.h"

namespace rdmastack::clientprofile {
namespace {

using controllers::HostPathVolume;
using controllers::Mount;
using controllers::Obj;
using controllers::Str;

constexpr char kLibraryDir[] = "/opt/rdmastack/cuobjclient";
constexpr char kEndpointsDir[] = "/etc/rdmastack-client/endpoints";
constexpr char kCredentialsDir[] = "/etc/rdmastack-client/credentials";
constexpr char kStateDir[] = "/run/rdmastack-client";

void CommonMetadata(const crd::ClientProfile& profile, k8s::JsonBuilder* o,
                    std::string_view component = kClientComponent) {
  o->SetNamespace(profile.metadata.namespace_.value_or(""));
  o->SetLabel("app.kubernetes.io/name", "rdmastack-client");
  o->SetLabel("app.kubernetes.io/instance", profile.metadata.name);
  o->SetLabel(gatewaypool::kComponentLabel, component);
  o->SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
  o->SetLabel(kProfileLabel, profile.metadata.name);
  o->Append({"metadata", "ownerReferences"},
            controllers::ControllerOwner("ClientProfile", profile.metadata));
}

// Copies the pinned libcuobjclient and makes its SONAME link, as the gateway's init container does
// for the server library; the client then installs these files on the host.
k8s::JsonObject LibraryInitContainer(const crd::ClientProfile& profile) {
  const crd::LibraryRef& lib = profile.spec.client_library;
  const std::string file = "libcuobjclient.so." + lib.version;
  const std::string soname =
      "libcuobjclient.so." + std::to_string(crd::LibraryMajor(lib.version).value_or(1));
  k8s::JsonBuilder c;
  c.SetString({"name"}, "install-client-library");
  c.SetString({"image"}, lib.image);
  for (const char* a : {"/bin/sh", "-c"}) c.Append({"command"}, Str(a));
  c.Append({"command"}, Str("set -e; cp -f " + std::string(kLibraryDir) + "/" + file +
                            " /staging/" + file + "; ln -sfn " + file + " /staging/" + soname));
  c.Append({"volumeMounts"}, Mount("client-library", "/staging", false));
  c.Set({"securityContext"}, Obj(R"({"allowPrivilegeEscalation":false})"));
  c.Set({"resources"}, Obj(R"({"requests":{"cpu":"10m","memory":"16Mi"}})"));
  return std::move(c).Build();
}

StatusOr<std::vector<std::string>> ClientArgs(const crd::ClientProfile& profile,
                                              const ClientRenderOptions& options) {
  const crd::ClientProfileSpec& spec = profile.spec;
  const std::string ns = profile.metadata.namespace_.value_or("");
  RDMASTACK_ASSIGN_OR_RETURN(int64_t max_transfer,
                             crd::BytesFromIntOrQuantity(spec.max_transfer_size));
  std::vector<std::string> args = {
      "run", "--profile", ns + "/" + profile.metadata.name, "--root", "/host",
      // Real nodes: libibverbs and the host's NVML. A simulated node's harness appends
      // --probes-file, which overrides it.
      "--live-probes", "--transport", std::string(crd::ToString(spec.transport)),
      "--memory-registration", std::string(crd::ToString(spec.memory_registration)),
      "--max-transfer-size", std::to_string(max_transfer), "--max-gpu-nic-distance",
      std::string(crd::ToString(spec.max_gpu_nic_distance)), "--gid-index",
      spec.gid_index.is_int() ? std::to_string(spec.gid_index.int_value()) : "Auto",
      "--endpoints-file", std::string(kEndpointsDir) + "/" + kEndpointsKey, "--install-dir",
      kInstallMountPath, "--host-install-dir", InstallDir(ns, profile.metadata.name),
      "--library-dir", kLibraryDir, "--state-dir", kStateDir};
  if (spec.load_peer_mem) args.push_back("--load-peermem");
  if (options.library_max_file_bytes > 0)
    args.insert(args.end(),
                {"--max-library-file-size", std::to_string(options.library_max_file_bytes)});
  if (options.library_max_bytes > 0)
    args.insert(args.end(), {"--max-library-size", std::to_string(options.library_max_bytes)});
  if (options.client_library_sha256) {
    const std::string& version = spec.client_library.version;
    if (std::string hex = options.client_library_sha256(version); !hex.empty())
      args.insert(args.end(), {"--library-sha256", "libcuobjclient.so." + version + "=" + hex});
  }
  if (ClientCredentials(profile)) {
    args.push_back("--credentials-dir");
    args.push_back(kCredentialsDir);
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  return args;
}

StatusOr<k8s::JsonObject> ClientContainer(const crd::ClientProfile& profile,
                                          const ClientRenderOptions& options) {
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> args, ClientArgs(profile, options));
  k8s::JsonBuilder c;
  c.SetString({"name"}, kClientContainer);
  c.SetString({"image"}, options.image);
  for (const auto& a : args) c.Append({"args"}, Str(a));
  c.Append({"env"},
           Obj(R"({"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}})"));
  // Ready = the node can do the selected transport and a pool endpoint answers; the node's
  // profile label follows this.
  k8s::JsonBuilder ready(Obj(R"({"periodSeconds":3,"timeoutSeconds":2,"failureThreshold":1})"));
  for (const char* a : {"rdmastack-client", "ready", "--state-dir", kStateDir})
    ready.Append({"exec", "command"}, Str(a));
  c.Set({"readinessProbe"}, ready);
  // A client that refuses the library image stops with its reason as its last line: the
  // operator reads it from the termination message (profile condition LibraryRefused).
  c.SetString({"terminationMessagePolicy"}, "FallbackToLogsOnError");
  // The probes open the host's devices (node_access.h); privileged also gives loadPeerMem the
  // CAP_SYS_MODULE in the host's namespaces that loading nvidia_peermem takes.
  c.Set({"securityContext"}, controllers::LiveProbeSecurityContext());
  c.Set({"resources"},
        Obj(R"({"requests":{"cpu":"10m","memory":"32Mi"},"limits":{"memory":"128Mi"}})"));
  c.Append({"volumeMounts"}, controllers::HostRootMount());
  c.Append({"volumeMounts"}, controllers::DevInfinibandMount());
  c.Append({"volumeMounts"}, Mount("client-install", kInstallMountPath, false));
  c.Append({"volumeMounts"}, Mount("endpoints", kEndpointsDir, true));
  if (ClientCredentials(profile))
    c.Append({"volumeMounts"}, Mount("credentials", kCredentialsDir, true));
  c.Append({"volumeMounts"}, Mount("client-library", kLibraryDir, true));
  c.Append({"volumeMounts"}, Mount("state", kStateDir, false));
  return std::move(c).Build();
}

// The profile's own directory on the host, never the root that holds every profile's.
k8s::JsonObject InstallVolume(const crd::ClientProfile& profile) {
  return HostPathVolume("client-install",
                        InstallDir(profile.metadata.namespace_.value_or(""), profile.metadata.name),
                        "DirectoryOrCreate");
}

void AddVolumes(const crd::ClientProfile& profile, k8s::JsonBuilder* pod) {
  pod->Append({"volumes"}, controllers::HostRootVolume());
  pod->Append({"volumes"}, controllers::DevInfinibandVolume());
  pod->Append({"volumes"}, InstallVolume(profile));
  k8s::JsonBuilder endpoints(Obj(R"({"name":"endpoints","configMap":{}})"));
  endpoints.SetString({"configMap", "name"}, EndpointsConfigMapName(profile.metadata.name));
  pod->Append({"volumes"}, endpoints);
  if (const std::optional<crd::CredentialsSecretRef> creds = ClientCredentials(profile)) {
    k8s::JsonBuilder secret(Obj(R"({"name":"credentials","secret":{}})"));
    secret.SetString({"secret", "secretName"}, creds->name);
    // The files the client reads, whatever the keys are called in the Secret.
    k8s::JsonBuilder id;
    id.SetString({"key"}, creds->access_key_id_key);
    id.SetString({"path"}, "accessKeyId");
    k8s::JsonBuilder key;
    key.SetString({"key"}, creds->secret_access_key_key);
    key.SetString({"path"}, "secretAccessKey");
    secret.Append({"secret", "items"}, id);
    secret.Append({"secret", "items"}, key);
    pod->Append({"volumes"}, secret);
  }
  pod->Append({"volumes"}, Obj(R"({"name":"client-library","emptyDir":{}})"));
  pod->Append({"volumes"}, Obj(R"({"name":"state","emptyDir":{"medium":"Memory"}})"));
}

// The DaemonSet's labels on its pods, plus the operator's extra pod labels.
void SetPodLabels(const ClientRenderOptions& options, k8s::JsonBuilder* ds) {
  k8s::JsonBuilder pod_labels(*ds->object().Get({"metadata", "labels"}));
  for (const auto& [k, v] : options.pod_labels) pod_labels.SetString({k}, v);
  ds->Set({"spec", "template", "metadata", "labels"}, pod_labels);
}

// Scheduled only onto nodes whose profile label has one of `values`.
void SetNodeAffinity(const std::string& label, std::initializer_list<const char*> values,
                     k8s::JsonBuilder* pod) {
  k8s::JsonBuilder expression(Obj(R"({"operator":"In"})"));
  expression.SetString({"key"}, label);
  for (const char* v : values) expression.Append({"values"}, Str(v));
  k8s::JsonBuilder term;
  term.Append({"matchExpressions"}, expression);
  pod->Append({"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
               "nodeSelectorTerms"},
              term);
}

}  // namespace

std::string DaemonSetName(std::string_view profile) {
  return std::string(profile) + "-client";
}

std::string UninstallDaemonSetName(std::string_view profile) {
  return std::string(profile) + "-client-uninstall";
}

std::string EndpointsConfigMapName(std::string_view profile) {
  return std::string(profile) + "-client-endpoints";
}

std::string InstallDir(std::string_view ns, std::string_view profile) {
  return std::string(kHostInstallRoot) + "/" + std::string(ns) + "." + std::string(profile);
}

std::vector<PoolEndpoint> ReadyEndpoints(const std::vector<const k8s::JsonObject*>& slices) {
  std::vector<PoolEndpoint> out;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const k8s::JsonObject* slice : slices) {
    int32_t port = 0;
    for (const auto& p : slice->GetArray({"ports"})) {
      if (p.GetString({"name"}) == "s3")
        port = static_cast<int32_t>(p.GetInt({"port"}).value_or(0));
    }
    if (port == 0) continue;
    const std::string version = slice->Label(gatewaypool::kLibraryVersionLabel).value_or("");
    const std::string rail = slice->Label(gatewaypool::kRailLabel).value_or("");
    for (const auto& e : slice->GetArray({"endpoints"})) {
      if (!e.GetBool({"conditions", "ready"}).value_or(false) ||
          e.GetBool({"conditions", "terminating"}).value_or(false))
        continue;
      const rapidjson::Value* addresses = e.Find({"addresses"});
      if (addresses == nullptr || !addresses->IsArray() || addresses->Empty() ||
          !(*addresses)[0].IsString())
        continue;
      const std::string address((*addresses)[0].GetString());
      if (!seen.insert({address, port}).second) continue;
      out.push_back({e.GetString({"nodeName"}).value_or(""), address, port, version, rail});
    }
  }
  std::sort(out.begin(), out.end(), [](const PoolEndpoint& a, const PoolEndpoint& b) {
    return std::tie(a.node, a.address, a.s3_port) < std::tie(b.node, b.address, b.s3_port);
  });
  return out;
}

k8s::JsonObject RenderEndpointsConfigMap(const crd::ClientProfile& profile,
                                         const crd::GatewayPool& pool,
                                         const std::vector<PoolEndpoint>& endpoints,
                                         const std::string& ca_bundle) {
  k8s::JsonBuilder data;
  data.SetString({"pool"}, pool.metadata.namespace_.value_or("") + "/" + pool.metadata.name);
  data.SetString({"region"}, pool.spec.s3.region);
  data.SetString({"scheme"}, pool.spec.s3.tls_secret ? "https" : "http");
  if (!ca_bundle.empty()) data.SetString({"caBundle"}, ca_bundle);
  data.Set({"endpoints"}, k8s::JsonObject::Array());
  for (const auto& e : endpoints) {
    k8s::JsonBuilder o;
    o.SetString({"node"}, e.node);
    o.SetString({"address"}, e.address);
    o.SetInt({"s3Port"}, e.s3_port);
    o.SetString({"libraryVersion"}, e.library_version);
    if (!e.rail.empty()) o.SetString({"rail"}, e.rail);
    data.Append({"endpoints"}, o);
  }
  // Where the gateways serve: each client keeps, per GPU, the nearest NIC on one of them.
  if (pool.status && !pool.status->networks.empty()) {
    data.Set({"networks"}, k8s::JsonObject::Array());
    for (const crd::PoolNetwork& n : pool.status->networks) {
      k8s::JsonBuilder o;
      if (n.rail) o.SetString({"rail"}, *n.rail);
      o.SetString({"cidr"}, n.cidr);
      data.Append({"networks"}, o);
    }
  }
  k8s::JsonBuilder cm;
  cm.SetApiVersion("v1");
  cm.SetKind("ConfigMap");
  cm.SetName(EndpointsConfigMapName(profile.metadata.name));
  CommonMetadata(profile, &cm);
  cm.SetString({"data", kEndpointsKey}, data.object().Serialize());
  controllers::StampAppliedHash(&cm);
  return std::move(cm).Build();
}

StatusOr<k8s::JsonObject> RenderClientDaemonSet(const crd::ClientProfile& profile,
                                                const ClientRenderOptions& options) {
  const crd::ClientProfileSpec& spec = profile.spec;
  const std::string ns = profile.metadata.namespace_.value_or("");
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject container, ClientContainer(profile, options));
  k8s::JsonBuilder ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(DaemonSetName(profile.metadata.name));
  CommonMetadata(profile, &ds);
  ds.SetString({"spec", "selector", "matchLabels", kProfileLabel}, profile.metadata.name);
  ds.SetString({"spec", "selector", "matchLabels", gatewaypool::kComponentLabel}, kClientComponent);
  // One node at a time: a node's client is not Ready between its old pod's stop and its new pod's
  // first pass (the files stay; node_retirement.h).
  ds.Set({"spec", "updateStrategy"},
         Obj(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1}})"));
  SetPodLabels(options, &ds);
  k8s::JsonBuilder pod;
  pod.SetBool({"automountServiceAccountToken"}, false);
  pod.SetBool({"hostNetwork"}, true);
  pod.SetString({"dnsPolicy"}, "ClusterFirstWithHostNet");
  pod.SetInt({"terminationGracePeriodSeconds"}, 30);
  SetNodeAffinity(ClientNodeLabel(ns, profile.metadata.name), {kEligibleValue, kReadyValue}, &pod);
  for (const auto& t : spec.tolerations)
    pod.Append({"tolerations"}, controllers::TolerationJson(t));
  pod.Append({"initContainers"}, LibraryInitContainer(profile));
  pod.Append({"containers"}, container);
  AddVolumes(profile, &pod);
  controllers::ApplyNodePodPolicy(options.node_pods, {}, &pod);
  ds.Set({"spec", "template", "spec"}, pod);
  controllers::StampAppliedHash(&ds);
  return std::move(ds).Build();
}

k8s::JsonObject RenderUninstallDaemonSet(const crd::ClientProfile& profile,
                                         const ClientRenderOptions& options) {
  const std::string ns = profile.metadata.namespace_.value_or("");
  k8s::JsonBuilder ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(UninstallDaemonSetName(profile.metadata.name));
  CommonMetadata(profile, &ds, kUninstallComponent);
  ds.SetString({"spec", "selector", "matchLabels", kProfileLabel}, profile.metadata.name);
  ds.SetString({"spec", "selector", "matchLabels", gatewaypool::kComponentLabel},
               kUninstallComponent);
  SetPodLabels(options, &ds);
  k8s::JsonBuilder pod;
  pod.SetBool({"automountServiceAccountToken"}, false);
  pod.SetInt({"terminationGracePeriodSeconds"}, 10);
  SetNodeAffinity(ClientNodeLabel(ns, profile.metadata.name), {kUninstallValue}, &pod);
  for (const auto& t : profile.spec.tolerations)
    pod.Append({"tolerations"}, controllers::TolerationJson(t));
  // Ready = nothing a client installed is left; the operator then takes the node's label away.
  pod.Append({"containers"},
             controllers::HostCleanupContainer(
                 "uninstall", options.image,
                 {"uninstall", "--install-dir", kInstallMountPath, "--state-dir", kStateDir},
                 kStateDir, Mount("client-install", kInstallMountPath, false)));
  pod.Append({"volumes"}, InstallVolume(profile));
  pod.Append({"volumes"}, controllers::StateVolume());
  controllers::ApplyNodePodPolicy(options.node_pods, {}, &pod);
  ds.Set({"spec", "template", "spec"}, pod);
  controllers::StampAppliedHash(&ds);
  return std::move(ds).Build();
}

}  // namespace rdmastack::clientprofile
