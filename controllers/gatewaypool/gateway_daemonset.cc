#include "controllers/gatewaypool/gateway_daemonset.h"

#include "base/sha256.h"
#include "controllers/common/render.h"
#include "controllers/gatewaypool/rails.h"
#include "crds/types/label_names.h"
#include "crds/types/path_template.h"
#include "crds/types/rdmanode_api.h"

namespace rdmastack::gatewaypool {
namespace {

using controllers::EnvSecret;
using controllers::EnvValue;
using controllers::HostPathVolume;
using controllers::Mount;
using controllers::Obj;
using controllers::Str;

// The container port name of a rail's S3 port: "s3" for the single rail.
std::string S3PortName(const Rail& rail) {
  return rail.name.empty() ? "s3" : "s3-r" + std::to_string(rail.index);
}

// A GET of the gateway's health path on its S3 port, with `timing` (periods and thresholds).
k8s::JsonObject HealthProbe(std::string_view timing, bool tls, const Rail& rail) {
  k8s::JsonBuilder probe(Obj(timing));
  probe.SetString({"httpGet", "path"}, kHealthPath);
  probe.SetString({"httpGet", "port"}, S3PortName(rail));
  if (tls) probe.SetString({"httpGet", "scheme"}, "HTTPS");
  return std::move(probe).Build();
}

k8s::JsonObject Labels(const crd::GatewayPool& pool, const Track& track) {
  k8s::JsonBuilder l;
  l.SetString({"app.kubernetes.io/name"}, "rdmastack-gateway");
  l.SetString({"app.kubernetes.io/instance"}, pool.metadata.name);
  l.SetString({kComponentLabel}, kGatewayComponent);
  l.SetString({crd::kManagedByLabel}, crd::kManagedByValue);
  l.SetString({kPoolLabel}, pool.metadata.name);
  l.SetString({kTrackLabel}, track.name);
  l.SetString({kLibraryVersionLabel}, track.library_version);
  return std::move(l).Build();
}

// Copies only the pinned version and makes its SONAME link here, so one library image may carry
// several versions and the launcher's check (the link resolves to the pinned file) holds.
k8s::JsonObject LibraryInitContainer(const crd::GatewayPool& pool, const Track& track) {
  const std::string file = "libcuobjserver.so." + track.library_version;
  const std::string soname = "libcuobjserver.so." + std::to_string(track.major);
  k8s::JsonBuilder c;
  c.SetString({"name"}, "install-server-library");
  c.SetString({"image"}, track.library_image);
  c.SetString({"imagePullPolicy"}, crd::ToString(pool.spec.gateway.image_pull_policy));
  for (const char* a : {"/bin/sh", "-c"}) c.Append({"command"}, Str(a));
  c.Append({"command"}, Str("set -e; cp -f " + std::string(kLibraryDir) + "/" + file + " /pinned/" +
                            file + "; ln -sfn " + file + " /pinned/" + soname));
  c.Append({"volumeMounts"}, Mount("server-library", "/pinned", false));
  c.Set({"securityContext"}, Obj(R"({"allowPrivilegeEscalation":false})"));
  c.Set({"resources"}, Obj(R"({"requests":{"cpu":"10m","memory":"16Mi"}})"));
  return std::move(c).Build();
}

// Where the gateway keeps the objects, as the launcher takes them.
struct GatewayPaths {
  std::string gwroot;
  std::string sidecar;  // "" unless the metadata is kept in sidecar files
};

StatusOr<GatewayPaths> RenderGatewayPaths(const crd::GatewayPool& pool) {
  const auto& posix = pool.spec.backend.posix;
  // {nodeName} is left for the launcher, which fills it from NODE_NAME on the node.
  crd::PathTemplateValues values{"{node}", pool.metadata.name,
                                 pool.metadata.namespace_.value_or("")};
  GatewayPaths out;
  RDMASTACK_ASSIGN_OR_RETURN(out.gwroot, crd::RenderPathTemplate(posix.path_template, values));
  if (posix.metadata != crd::BackendMetadata::kSidecar) return out;
  RDMASTACK_ASSIGN_OR_RETURN(
      out.sidecar, crd::RenderPathTemplate(posix.sidecar_path_template.value_or(""), values));
  return out;
}

// The settings every gateway gets: the launcher's and versitygw's own.
std::vector<std::pair<std::string, std::string>> FixedEnv(const crd::GatewayPoolSpec& spec,
                                                          const Track& track, const Rail& rail,
                                                          const std::string& gwroot,
                                                          int64_t buffer_bytes) {
  return {
      {"RDMASTACK_GW_MODE", "rdma"},
      {"RDMASTACK_GW_BUILD", track.gateway_build},
      {"RDMASTACK_GW_S3_PORT", std::to_string(rail.s3_port)},
      {"RDMASTACK_GW_RDMA_PORT", std::to_string(rail.rdma_port)},
      {"RDMASTACK_GW_RDMA_SELECT", rail.selector},
      {"RDMASTACK_GW_GWROOT_TEMPLATE", gwroot},
      {"RDMASTACK_GW_CREATE_GWROOT", "true"},
      {"RDMASTACK_GW_HEALTH_PATH", kHealthPath},
      {"RDMASTACK_GW_SERVER_LIB_DIR", kLibraryDir},
      {"RDMASTACK_GW_SERVER_LIB_VERSION", track.library_version},
      {"RDMASTACK_GW_SERVER_LIB_MAJOR", std::to_string(track.major)},
      // Each rail's gateway writes its own cufile.json.
      {"RDMASTACK_GW_CONFIG_DIR",
       rail.name.empty() ? std::string(kConfigDir) : std::string(kConfigDir) + "/" + rail.name},
      {"RDMASTACK_HOST_ROOT", "/host"},
      {"VGW_POOL_BUF_SIZE", std::to_string(buffer_bytes)},
      {"VGW_POOL_BUF_COUNT", std::to_string(spec.rdma.buffer_pool.buffer_count)},
      {"VGW_REGION", spec.s3.region},
      // versitygw's own IAM, where the operator keeps the ClientProfiles' S3 users (spec.s3User).
      {"VGW_IAM_DIR", kIamDir},
      // No 120 s cache of it: a key the operator removes (rotation, deleted profile) stops at once
      // on both tracks' gateways, which share the directory but not a cache.
      {"VGW_IAM_CACHE_DISABLE", "true"},
  };
}

// The settings only some pools need.
void AppendOptionalEnv(const crd::GatewayPoolSpec& spec, const Track& track,
                       const std::string& sidecar, k8s::JsonBuilder* c) {
  // Xattr, the launcher's default, is checked on the node before versitygw starts
  // (BackendNoUserXattr); it is not rendered, so pools made before the field keep their template.
  if (spec.backend.posix.metadata != crd::BackendMetadata::kXattr)
    c->Append({"env"},
              EnvValue("RDMASTACK_GW_METADATA", crd::ToString(spec.backend.posix.metadata)));
  if (!sidecar.empty()) c->Append({"env"}, EnvValue("RDMASTACK_GW_SIDECAR_TEMPLATE", sidecar));
  // The IAM directory is a hostPath under /var/lib/rdmastack, on the node's system disk: a
  // gateway root on the same file system is an unmounted backend.
  if (spec.backend.posix.require_mount)
    c->Append({"env"}, EnvValue("RDMASTACK_GW_REQUIRE_MOUNT", kIamDir));
  // The library's bytes as the compatibility data pins them (LibraryDigestMismatch otherwise).
  if (!track.library_sha256.empty())
    c->Append({"env"}, EnvValue("RDMASTACK_GW_SERVER_LIB_SHA256", track.library_sha256));
}

// The root keys and the RDMA DC key, from their Secrets.
void AppendSecretEnv(const crd::GatewayPoolSpec& spec, k8s::JsonBuilder* c) {
  const auto& creds = spec.s3.credentials_secret;
  c->Append({"env"}, EnvSecret("ROOT_ACCESS_KEY_ID", creds.name, creds.access_key_id_key));
  c->Append({"env"}, EnvSecret("ROOT_SECRET_ACCESS_KEY", creds.name, creds.secret_access_key_key));
  if (spec.rdma.dc_key_secret) {
    c->Append({"env"}, EnvSecret("VGW_RDMA_DC_KEY", spec.rdma.dc_key_secret->name,
                                 spec.rdma.dc_key_secret->key));
  }
}

void AppendTlsEnv(k8s::JsonBuilder* c) {
  const std::string tls_dir = std::string(kTlsDir) + "/";
  c->Append({"env"}, EnvValue("RDMASTACK_GW_TLS_CERT", tls_dir + kTlsCertKey));
  c->Append({"env"}, EnvValue("RDMASTACK_GW_TLS_KEY", tls_dir + kTlsKeyKey));
  // The readiness probe verifies the certificate as a client does: against the pool's CA, for
  // the address clients dial (the pod's, which is the node's: host network).
  c->Append({"env"}, EnvValue("RDMASTACK_PROBE_CA_FILE", tls_dir + kTlsCaKey));
  c->Append({"env"}, Obj(R"({"name":"RDMASTACK_PROBE_TLS_NAME",)"
                         R"("valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}})"));
}

void AppendGatewayEnv(const crd::GatewayPoolSpec& spec, const Track& track, const Rail& rail,
                      const GatewayPaths& paths, int64_t buffer_bytes,
                      const GatewayRenderOptions& o, k8s::JsonBuilder* c) {
  for (const auto& [k, v] : FixedEnv(spec, track, rail, paths.gwroot, buffer_bytes))
    c->Append({"env"}, EnvValue(k, v));
  // A rail may start with its link down (the pool withdraws its endpoints until it is up).
  if (!rail.name.empty()) c->Append({"env"}, EnvValue("RDMASTACK_GW_RAIL", rail.name));
  AppendOptionalEnv(spec, track, paths.sidecar, c);
  c->Append({"env"},
            Obj(R"({"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}})"));
  AppendSecretEnv(spec, c);
  if (spec.s3.tls_secret.has_value()) AppendTlsEnv(c);
  for (const auto& [k, v] : o.extra_env) c->Append({"env"}, EnvValue(k, v));
}

// Ready = health plus a signed ListBuckets: the listener, the root keys and a readdir of the
// backend (a hung Lustre mount shows as a timeout).
k8s::JsonObject ReadinessProbe(const crd::GatewayPoolSpec& spec, const Rail& rail, bool tls) {
  k8s::JsonBuilder ready(Obj(R"({"periodSeconds":10,"timeoutSeconds":6,"failureThreshold":3})"));
  for (const std::string& a :
       {std::string("rdmastack-gateway"), std::string("probe"), std::string("--endpoint"),
        (tls ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(rail.s3_port),
        std::string("--region"), spec.s3.region, std::string("--timeout-ms"),
        std::string("5000")}) {
    ready.Append({"exec", "command"}, Str(a));
  }
  return std::move(ready).Build();
}

void SetGatewayProbes(const crd::GatewayPoolSpec& spec, const Rail& rail, bool tls,
                      k8s::JsonBuilder* c) {
  // vgwrdma registers its buffers before it opens the listener: the first health answer proves
  // the RDMA set-up succeeded.
  c->Set({"startupProbe"},
         HealthProbe(R"({"periodSeconds":2,"failureThreshold":60,"timeoutSeconds":2})", tls, rail));
  c->Set({"readinessProbe"}, ReadinessProbe(spec, rail, tls));
  // Restart only a gateway that stopped answering at all, and not for a slow backend.
  c->Set({"livenessProbe"},
         HealthProbe(R"({"periodSeconds":10,"timeoutSeconds":5,"failureThreshold":6})", tls, rail));
}

// Pinned pages are charged to the pod: `memory_bytes` is what the buffer pool pins plus headroom.
k8s::JsonObject GatewayResources(int64_t memory_bytes, const std::string& rdma_resource) {
  const std::string memory = std::to_string(memory_bytes);
  k8s::JsonBuilder resources;
  resources.SetString({"requests", "cpu"}, "500m");
  resources.SetString({"requests", "memory"}, memory);
  resources.SetString({"limits", "memory"}, memory);
  if (!rdma_resource.empty()) {
    resources.SetString({"requests", rdma_resource}, "1");
    resources.SetString({"limits", rdma_resource}, "1");
  }
  return std::move(resources).Build();
}

void AppendGatewayMounts(const crd::GatewayPoolSpec& spec, const GatewayRenderOptions& o, bool tls,
                         k8s::JsonBuilder* c) {
  c->Append({"volumeMounts"}, Mount("host-sys", "/host/sys", true));
  for (size_t i = 0; i < o.host_mounts.size(); ++i) {
    c->Append({"volumeMounts"},
              Mount("host-extra-" + std::to_string(i), "/host" + o.host_mounts[i], true));
  }
  c->Append({"volumeMounts"}, Mount("backend", spec.backend.posix.host_path, false));
  c->Append({"volumeMounts"}, Mount("server-library", kLibraryDir, true));
  c->Append({"volumeMounts"}, Mount("gateway-run", kConfigDir, false));
  c->Append({"volumeMounts"}, Mount("dev-infiniband", "/dev/infiniband", false));
  if (tls) c->Append({"volumeMounts"}, Mount("s3-tls", kTlsDir, true));
  c->Append({"volumeMounts"}, Mount("iam", kIamDir, false));
}

StatusOr<k8s::JsonObject> GatewayContainer(const crd::GatewayPool& pool, const Track& track,
                                           const Rail& rail, const GatewayRenderOptions& o) {
  const crd::GatewayPoolSpec& spec = pool.spec;
  RDMASTACK_ASSIGN_OR_RETURN(int64_t buffer_bytes,
                             crd::BytesFromIntOrQuantity(spec.rdma.buffer_pool.buffer_size));
  RDMASTACK_ASSIGN_OR_RETURN(const GatewayPaths paths, RenderGatewayPaths(pool));
  const bool tls = spec.s3.tls_secret.has_value();

  k8s::JsonBuilder c;
  c.SetString({"name"}, GatewayContainerName(rail));
  c.SetString({"image"}, track.gateway_image);
  c.SetString({"imagePullPolicy"}, crd::ToString(spec.gateway.image_pull_policy));
  c.Append({"args"}, Str("run"));
  // The launcher's refusal (one line on stderr, then exit) becomes the termination message that
  // the pool's failingNodes quotes.
  c.SetString({"terminationMessagePolicy"}, "FallbackToLogsOnError");
  AppendGatewayEnv(spec, track, rail, paths, buffer_bytes, o, &c);

  // Key order as before rails: the template hash of a single-rail pool's pods must not move.
  k8s::JsonBuilder port;
  port.SetString({"name"}, S3PortName(rail));
  port.SetString({"protocol"}, "TCP");
  port.SetInt({"containerPort"}, rail.s3_port);
  c.Append({"ports"}, port);
  SetGatewayProbes(spec, rail, tls, &c);

  c.Set({"securityContext"},
        Obj(R"({"capabilities":{"add":["IPC_LOCK"]},"allowPrivilegeEscalation":false})"));
  c.Set({"resources"}, GatewayResources(buffer_bytes * spec.rdma.buffer_pool.buffer_count +
                                            o.memory_headroom_bytes,
                                        o.rdma_resource));
  AppendGatewayMounts(spec, o, tls, &c);
  return std::move(c).Build();
}

k8s::JsonObject NodeAffinityTerm(const crd::GatewayPool& pool, const Track& track) {
  crd::StringMap match = pool.spec.node_selector;
  match[rdmanode::kGatewayCapableLabel] = "true";
  match[NodeTrackLabel(pool.metadata.namespace_.value_or(""), pool.metadata.name, track.name)] =
      "true";
  k8s::JsonBuilder term;
  controllers::AppendSelectorExpressions(match, &term);
  return std::move(term).Build();
}

void AppendPodVolumes(const crd::GatewayPool& pool, const GatewayRenderOptions& options,
                      k8s::JsonBuilder* pod) {
  pod->Append({"volumes"}, HostPathVolume("host-sys", "/sys", "Directory"));
  for (size_t i = 0; i < options.host_mounts.size(); ++i) {
    pod->Append({"volumes"}, HostPathVolume("host-extra-" + std::to_string(i),
                                            options.host_mounts[i], "Directory"));
  }
  // Directory, not DirectoryOrCreate: an unmounted Lustre must not silently become a local
  // directory that the gateway then serves.
  pod->Append({"volumes"},
              HostPathVolume("backend", pool.spec.backend.posix.host_path, "Directory"));
  pod->Append({"volumes"}, Obj(R"({"name":"server-library","emptyDir":{}})"));
  pod->Append({"volumes"}, Obj(R"({"name":"gateway-run","emptyDir":{"medium":"Memory"}})"));
  pod->Append({"volumes"},
              HostPathVolume("dev-infiniband", "/dev/infiniband", "DirectoryOrCreate"));
  // On the node, not in the pod: a restarted gateway, and the other track's gateway during an
  // upgrade, serve the same users.
  pod->Append({"volumes"},
              HostPathVolume("iam",
                             IamHostDir(pool.metadata.namespace_.value_or(""), pool.metadata.name,
                                        pool.metadata.uid.value_or("")),
                             "DirectoryOrCreate"));
  if (pool.spec.s3.tls_secret) {
    // Projected by the kubelet and swapped atomically on rotation; the launcher reloads it.
    k8s::JsonBuilder v(Obj(R"({"name":"s3-tls","secret":{"defaultMode":256}})"));
    v.SetString({"secret", "secretName"}, pool.spec.s3.tls_secret->name);
    pod->Append({"volumes"}, v);
  }
}

}  // namespace

StatusOr<k8s::JsonObject> RenderGatewayDaemonSet(const crd::GatewayPool& pool, const Track& track,
                                                 const GatewayRenderOptions& options) {
  const crd::GatewayPoolSpec& spec = pool.spec;
  if (pool.metadata.uid.value_or("").empty()) {
    return InvalidArgumentError("GatewayPool " + pool.metadata.name +
                                " has no metadata.uid: its IAM directory would not be its own");
  }
  const std::vector<Rail> rails = RailsOf(spec, track);
  RDMASTACK_RETURN_IF_ERROR(CheckRails(spec, rails));
  std::vector<k8s::JsonObject> containers;
  for (const Rail& rail : rails) {
    RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject container,
                               GatewayContainer(pool, track, rail, options));
    containers.push_back(std::move(container));
  }
  const k8s::JsonObject labels = Labels(pool, track);

  k8s::JsonBuilder ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(DaemonSetName(pool.metadata.name, track.name));
  ds.SetNamespace(pool.metadata.namespace_.value_or(""));
  ds.Set({"metadata", "labels"}, labels);
  ds.Append({"metadata", "ownerReferences"},
            controllers::ControllerOwner("GatewayPool", pool.metadata));

  ds.SetString({"spec", "selector", "matchLabels", kPoolLabel}, pool.metadata.name);
  ds.SetString({"spec", "selector", "matchLabels", kTrackLabel}, track.name);
  // The operator replaces pods itself, node by node within the pool's upgrade budget (InPlace):
  // the DaemonSet controller would restart every node's gateway at its own pace.
  ds.SetString({"spec", "updateStrategy", "type"}, "OnDelete");
  ds.SetAnnotation(kTrackSpecAnnotation, SerializeTrack(track));

  k8s::JsonBuilder pod_labels(labels);
  for (const auto& [k, v] : options.pod_labels) pod_labels.SetString({k}, v);
  ds.Set({"spec", "template", "metadata", "labels"}, pod_labels);
  ds.SetString({"spec", "template", "metadata", "annotations", "rdmastack.io/gateway-build"},
               track.gateway_build);

  k8s::JsonBuilder pod;
  pod.SetBool({"automountServiceAccountToken"}, false);
  pod.SetBool({"hostNetwork"}, true);
  pod.SetString({"dnsPolicy"}, "ClusterFirstWithHostNet");
  pod.SetInt({"terminationGracePeriodSeconds"}, 30);
  k8s::JsonBuilder required;
  required.Append({"nodeSelectorTerms"}, NodeAffinityTerm(pool, track));
  pod.Set({"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"}, required);
  for (const auto& t : spec.tolerations)
    pod.Append({"tolerations"}, controllers::TolerationJson(t));
  pod.Append({"initContainers"}, LibraryInitContainer(pool, track));
  for (k8s::JsonObject& container : containers) pod.Append({"containers"}, std::move(container));

  AppendPodVolumes(pool, options, &pod);
  std::vector<std::string> pool_pull_secrets;
  for (const auto& ref : spec.image_pull_secrets) pool_pull_secrets.push_back(ref.name);
  controllers::ApplyNodePodPolicy(options.node_pods, pool_pull_secrets, &pod);
  ds.Set({"spec", "template", "spec"}, pod);
  // Which template a pod was made from, so that outdated pods can be found and replaced.
  const std::string template_hash =
      Sha256Hex(ds.object().Get({"spec", "template"})->Serialize()).substr(0, 16);
  ds.SetString({"spec", "template", "metadata", "labels", kTemplateHashLabel}, template_hash);
  controllers::StampAppliedHash(&ds);
  return std::move(ds).Build();
}

}  // namespace rdmastack::gatewaypool
