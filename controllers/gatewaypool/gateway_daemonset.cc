#include "controllers/gatewaypool/gateway_daemonset.h"

#include "base/sha256.h"
#include "controllers/common/render.h"
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

k8s::JsonObject Labels(const crd::GatewayPool& pool, const Track& track) {
  k8s::JsonObject l;
  (void)l.SetString({"app.kubernetes.io/name"}, "rdmastack-gateway");
  (void)l.SetString({"app.kubernetes.io/instance"}, pool.metadata.name);
  (void)l.SetString({kComponentLabel}, kGatewayComponent);
  (void)l.SetString({crd::kManagedByLabel}, crd::kManagedByValue);
  (void)l.SetString({kPoolLabel}, pool.metadata.name);
  (void)l.SetString({kTrackLabel}, track.name);
  (void)l.SetString({kLibraryVersionLabel}, track.library_version);
  return l;
}

// Copies only the pinned version and makes its SONAME link here, so one library image may carry
// several versions and the launcher's check (the link resolves to the pinned file) holds.
k8s::JsonObject LibraryInitContainer(const crd::GatewayPool& pool, const Track& track) {
  const std::string file = "libcuobjserver.so." + track.library_version;
  const std::string soname = "libcuobjserver.so." + std::to_string(track.major);
  k8s::JsonObject c;
  (void)c.SetString({"name"}, "install-server-library");
  (void)c.SetString({"image"}, track.library_image);
  (void)c.SetString({"imagePullPolicy"}, crd::ToString(pool.spec.gateway.image_pull_policy));
  for (const char* a : {"/bin/sh", "-c"}) (void)c.Append({"command"}, Str(a));
  (void)c.Append({"command"}, Str("set -e; cp -f " + std::string(kLibraryDir) + "/" + file +
                                  " /pinned/" + file + "; ln -sfn " + file + " /pinned/" + soname));
  (void)c.Append({"volumeMounts"}, Mount("server-library", "/pinned", false));
  (void)c.Set({"securityContext"}, Obj(R"({"allowPrivilegeEscalation":false})"));
  (void)c.Set({"resources"}, Obj(R"({"requests":{"cpu":"10m","memory":"16Mi"}})"));
  return c;
}

StatusOr<k8s::JsonObject> GatewayContainer(const crd::GatewayPool& pool, const Track& track,
                                           const GatewayRenderOptions& o) {
  const crd::GatewayPoolSpec& spec = pool.spec;
  RDMASTACK_ASSIGN_OR_RETURN(int64_t buffer_bytes,
                             crd::BytesFromIntOrQuantity(spec.rdma.buffer_pool.buffer_size));
  // {nodeName} is left for the launcher, which fills it from NODE_NAME on the node.
  crd::PathTemplateValues values{"{node}", pool.metadata.name,
                                 pool.metadata.namespace_.value_or("")};
  RDMASTACK_ASSIGN_OR_RETURN(std::string gwroot,
                             crd::RenderPathTemplate(spec.backend.posix.path_template, values));

  k8s::JsonObject c;
  (void)c.SetString({"name"}, kGatewayContainer);
  (void)c.SetString({"image"}, track.gateway_image);
  (void)c.SetString({"imagePullPolicy"}, crd::ToString(spec.gateway.image_pull_policy));
  (void)c.Append({"args"}, Str("run"));
  // The launcher's refusal (one line on stderr, then exit) becomes the termination message that
  // the pool's failingNodes quotes.
  (void)c.SetString({"terminationMessagePolicy"}, "FallbackToLogsOnError");
  const std::string s3_port = std::to_string(track.s3_port);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"RDMASTACK_GW_MODE", "rdma"},
      {"RDMASTACK_GW_BUILD", track.gateway_build},
      {"RDMASTACK_GW_S3_PORT", s3_port},
      {"RDMASTACK_GW_RDMA_PORT", std::to_string(track.rdma_port)},
      {"RDMASTACK_GW_RDMA_SELECT", spec.rdma.interface.value_or(spec.rdma.cidr.value_or(""))},
      {"RDMASTACK_GW_GWROOT_TEMPLATE", gwroot},
      {"RDMASTACK_GW_CREATE_GWROOT", "true"},
      {"RDMASTACK_GW_HEALTH_PATH", kHealthPath},
      {"RDMASTACK_GW_SERVER_LIB_DIR", kLibraryDir},
      {"RDMASTACK_GW_SERVER_LIB_VERSION", track.library_version},
      {"RDMASTACK_GW_SERVER_LIB_MAJOR", std::to_string(track.major)},
      {"RDMASTACK_GW_CONFIG_DIR", kConfigDir},
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
  for (const auto& [k, v] : env) (void)c.Append({"env"}, EnvValue(k, v));
  // The IAM directory is a hostPath under /var/lib/rdmastack, on the node's system disk: a
  // gateway root on the same file system is an unmounted backend.
  if (spec.backend.posix.require_mount)
    (void)c.Append({"env"}, EnvValue("RDMASTACK_GW_REQUIRE_MOUNT", kIamDir));
  (void)c.Append(
      {"env"},
      Obj(R"({"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}})"));
  const auto& creds = spec.s3.credentials_secret;
  (void)c.Append({"env"}, EnvSecret("ROOT_ACCESS_KEY_ID", creds.name, creds.access_key_id_key));
  (void)c.Append({"env"},
                 EnvSecret("ROOT_SECRET_ACCESS_KEY", creds.name, creds.secret_access_key_key));
  if (spec.rdma.dc_key_secret) {
    (void)c.Append({"env"}, EnvSecret("VGW_RDMA_DC_KEY", spec.rdma.dc_key_secret->name,
                                      spec.rdma.dc_key_secret->key));
  }
  const bool tls = spec.s3.tls_secret.has_value();
  const std::string tls_dir = std::string(kTlsDir) + "/";
  if (tls) {
    (void)c.Append({"env"}, EnvValue("RDMASTACK_GW_TLS_CERT", tls_dir + kTlsCertKey));
    (void)c.Append({"env"}, EnvValue("RDMASTACK_GW_TLS_KEY", tls_dir + kTlsKeyKey));
    // The readiness probe verifies the certificate as a client does: against the pool's CA, for
    // the address clients dial (the pod's, which is the node's: host network).
    (void)c.Append({"env"}, EnvValue("RDMASTACK_PROBE_CA_FILE", tls_dir + kTlsCaKey));
    (void)c.Append({"env"}, Obj(R"({"name":"RDMASTACK_PROBE_TLS_NAME",)"
                                R"("valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}})"));
  }
  for (const auto& [k, v] : o.extra_env) (void)c.Append({"env"}, EnvValue(k, v));

  k8s::JsonObject port = Obj(R"({"name":"s3","protocol":"TCP"})");
  (void)port.SetInt({"containerPort"}, track.s3_port);
  (void)c.Append({"ports"}, port);

  // vgwrdma registers its buffers before it opens the listener: the first health answer proves
  // the RDMA set-up succeeded.
  k8s::JsonObject startup = Obj(R"({"periodSeconds":2,"failureThreshold":60,"timeoutSeconds":2})");
  (void)startup.SetString({"httpGet", "path"}, kHealthPath);
  (void)startup.SetString({"httpGet", "port"}, "s3");
  if (tls) (void)startup.SetString({"httpGet", "scheme"}, "HTTPS");
  (void)c.Set({"startupProbe"}, startup);
  // Ready = health plus a signed ListBuckets: the listener, the root keys and a readdir of the
  // backend (a hung Lustre mount shows as a timeout).
  k8s::JsonObject ready = Obj(R"({"periodSeconds":10,"timeoutSeconds":6,"failureThreshold":3})");
  for (const std::string& a :
       {std::string("rdmastack-gateway"), std::string("probe"), std::string("--endpoint"),
        (tls ? "https" : "http") + std::string("://127.0.0.1:") + s3_port, std::string("--region"),
        spec.s3.region, std::string("--timeout-ms"), std::string("5000")}) {
    (void)ready.Append({"exec", "command"}, Str(a));
  }
  (void)c.Set({"readinessProbe"}, ready);
  // Restart only a gateway that stopped answering at all, and not for a slow backend.
  k8s::JsonObject live = Obj(R"({"periodSeconds":10,"timeoutSeconds":5,"failureThreshold":6})");
  (void)live.SetString({"httpGet", "path"}, kHealthPath);
  (void)live.SetString({"httpGet", "port"}, "s3");
  if (tls) (void)live.SetString({"httpGet", "scheme"}, "HTTPS");
  (void)c.Set({"livenessProbe"}, live);

  (void)c.Set({"securityContext"},
              Obj(R"({"capabilities":{"add":["IPC_LOCK"]},"allowPrivilegeEscalation":false})"));
  // Pinned pages are charged to the pod: request what the buffer pool pins plus headroom.
  const std::string memory =
      std::to_string(buffer_bytes * spec.rdma.buffer_pool.buffer_count + o.memory_headroom_bytes);
  k8s::JsonObject resources;
  (void)resources.SetString({"requests", "cpu"}, "500m");
  (void)resources.SetString({"requests", "memory"}, memory);
  (void)resources.SetString({"limits", "memory"}, memory);
  if (!o.rdma_resource.empty()) {
    (void)resources.SetString({"requests", o.rdma_resource}, "1");
    (void)resources.SetString({"limits", o.rdma_resource}, "1");
  }
  (void)c.Set({"resources"}, resources);

  (void)c.Append({"volumeMounts"}, Mount("host-sys", "/host/sys", true));
  for (size_t i = 0; i < o.host_mounts.size(); ++i) {
    (void)c.Append({"volumeMounts"},
                   Mount("host-extra-" + std::to_string(i), "/host" + o.host_mounts[i], true));
  }
  (void)c.Append({"volumeMounts"}, Mount("backend", spec.backend.posix.host_path, false));
  (void)c.Append({"volumeMounts"}, Mount("server-library", kLibraryDir, true));
  (void)c.Append({"volumeMounts"}, Mount("gateway-run", kConfigDir, false));
  (void)c.Append({"volumeMounts"}, Mount("dev-infiniband", "/dev/infiniband", false));
  if (tls) (void)c.Append({"volumeMounts"}, Mount("s3-tls", kTlsDir, true));
  (void)c.Append({"volumeMounts"}, Mount("iam", kIamDir, false));
  return c;
}

k8s::JsonObject NodeAffinityTerm(const crd::GatewayPool& pool, const Track& track) {
  crd::StringMap match = pool.spec.node_selector;
  match[rdmanode::kGatewayCapableLabel] = "true";
  match[NodeTrackLabel(pool.metadata.namespace_.value_or(""), pool.metadata.name, track.name)] =
      "true";
  k8s::JsonObject term;
  controllers::AppendSelectorExpressions(match, &term);
  return term;
}

}  // namespace

StatusOr<k8s::JsonObject> RenderGatewayDaemonSet(const crd::GatewayPool& pool, const Track& track,
                                                 const GatewayRenderOptions& options) {
  const crd::GatewayPoolSpec& spec = pool.spec;
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject container, GatewayContainer(pool, track, options));
  const k8s::JsonObject labels = Labels(pool, track);

  k8s::JsonObject ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(DaemonSetName(pool.metadata.name, track.name));
  ds.SetNamespace(pool.metadata.namespace_.value_or(""));
  (void)ds.Set({"metadata", "labels"}, labels);
  (void)ds.Append({"metadata", "ownerReferences"},
                  controllers::ControllerOwner("GatewayPool", pool.metadata));

  (void)ds.SetString({"spec", "selector", "matchLabels", kPoolLabel}, pool.metadata.name);
  (void)ds.SetString({"spec", "selector", "matchLabels", kTrackLabel}, track.name);
  // The operator replaces pods itself, node by node within the pool's upgrade budget (InPlace):
  // the DaemonSet controller would restart every node's gateway at its own pace.
  (void)ds.SetString({"spec", "updateStrategy", "type"}, "OnDelete");
  ds.SetAnnotation(kTrackSpecAnnotation, SerializeTrack(track));

  k8s::JsonObject pod_labels = labels;
  for (const auto& [k, v] : options.pod_labels) (void)pod_labels.SetString({k}, v);
  (void)ds.Set({"spec", "template", "metadata", "labels"}, pod_labels);
  (void)ds.SetString({"spec", "template", "metadata", "annotations", "rdmastack.io/gateway-build"},
                     track.gateway_build);

  k8s::JsonObject pod;
  (void)pod.SetBool({"automountServiceAccountToken"}, false);
  (void)pod.SetBool({"hostNetwork"}, true);
  (void)pod.SetString({"dnsPolicy"}, "ClusterFirstWithHostNet");
  (void)pod.SetInt({"terminationGracePeriodSeconds"}, 30);
  k8s::JsonObject required;
  (void)required.Append({"nodeSelectorTerms"}, NodeAffinityTerm(pool, track));
  (void)pod.Set({"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"},
                required);
  for (const auto& t : spec.tolerations)
    (void)pod.Append({"tolerations"}, controllers::TolerationJson(t));
  (void)pod.Append({"initContainers"}, LibraryInitContainer(pool, track));
  (void)pod.Append({"containers"}, container);

  (void)pod.Append({"volumes"}, HostPathVolume("host-sys", "/sys", "Directory"));
  for (size_t i = 0; i < options.host_mounts.size(); ++i) {
    (void)pod.Append({"volumes"}, HostPathVolume("host-extra-" + std::to_string(i),
                                                 options.host_mounts[i], "Directory"));
  }
  // Directory, not DirectoryOrCreate: an unmounted Lustre must not silently become a local
  // directory that the gateway then serves.
  (void)pod.Append({"volumes"},
                   HostPathVolume("backend", spec.backend.posix.host_path, "Directory"));
  (void)pod.Append({"volumes"}, Obj(R"({"name":"server-library","emptyDir":{}})"));
  (void)pod.Append({"volumes"}, Obj(R"({"name":"gateway-run","emptyDir":{"medium":"Memory"}})"));
  (void)pod.Append({"volumes"},
                   HostPathVolume("dev-infiniband", "/dev/infiniband", "DirectoryOrCreate"));
  // On the node, not in the pod: a restarted gateway, and the other track's gateway during an
  // upgrade, serve the same users.
  (void)pod.Append(
      {"volumes"},
      HostPathVolume("iam", IamHostDir(pool.metadata.namespace_.value_or(""), pool.metadata.name),
                     "DirectoryOrCreate"));
  if (spec.s3.tls_secret) {
    // Projected by the kubelet and swapped atomically on rotation; the launcher reloads it.
    k8s::JsonObject v = Obj(R"({"name":"s3-tls","secret":{"defaultMode":256}})");
    (void)v.SetString({"secret", "secretName"}, spec.s3.tls_secret->name);
    (void)pod.Append({"volumes"}, v);
  }
  std::vector<std::string> pool_pull_secrets;
  for (const auto& ref : spec.image_pull_secrets) pool_pull_secrets.push_back(ref.name);
  controllers::ApplyNodePodPolicy(options.node_pods, pool_pull_secrets, &pod);
  (void)ds.Set({"spec", "template", "spec"}, pod);
  // Which template a pod was made from, so that outdated pods can be found and replaced.
  const std::string template_hash =
      Sha256Hex(ds.Get({"spec", "template"})->Serialize()).substr(0, 16);
  (void)ds.SetString({"spec", "template", "metadata", "labels", kTemplateHashLabel}, template_hash);
  controllers::StampAppliedHash(&ds);
  return ds;
}

}  // namespace rdmastack::gatewaypool
