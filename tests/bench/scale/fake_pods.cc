#include "tests/bench/scale/fake_pods.h"

#include <fmt/format.h>

namespace rdmastack::bench {

namespace {

k8s::JsonObject Container(const std::string& name, int index) {
  auto c = k8s::JsonObject::Parse(fmt::format(R"({{
    "name":"{0}","image":"registry.bench.example/ml-platform/{0}:v2.{1}.3",
    "imagePullPolicy":"IfNotPresent",
    "args":["--config=/etc/{0}/config.yaml","--shard={1}","--log-level=info"],
    "ports":[{{"name":"http","containerPort":8080,"protocol":"TCP"}},
             {{"name":"metrics","containerPort":9090,"protocol":"TCP"}}],
    "resources":{{"requests":{{"cpu":"500m","memory":"1Gi"}},
                 "limits":{{"cpu":"2","memory":"4Gi","rdma/hca_shared_devices_a":"1"}}}},
    "volumeMounts":[{{"name":"config","mountPath":"/etc/{0}","readOnly":true}},
                    {{"name":"scratch","mountPath":"/scratch"}}],
    "readinessProbe":{{"httpGet":{{"path":"/readyz","port":"http"}},"periodSeconds":10}},
    "livenessProbe":{{"httpGet":{{"path":"/healthz","port":"http"}},"periodSeconds":20,
                     "failureThreshold":3}},
    "securityContext":{{"allowPrivilegeEscalation":false,
                       "capabilities":{{"add":["IPC_LOCK"],"drop":["ALL"]}}}},
    "terminationMessagePolicy":"FallbackToLogsOnError"}})",
                                              name, index % 10));
  for (const char* env : {"S3_ENDPOINT", "S3_BUCKET", "DATASET", "CHECKPOINT_DIR", "NCCL_IB_HCA",
                          "NCCL_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS"}) {
    k8s::JsonObject e;
    (void)e.SetString({"name"}, env);
    (void)e.SetString({"value"}, fmt::format("{}-value-{}", env, index % 97));
    (void)c->Append({"env"}, e);
  }
  return std::move(*c);
}

}  // namespace

k8s::JsonObject FakePod(int index, const std::string& ns, const std::string& node) {
  auto pod = k8s::JsonObject::Parse(fmt::format(R"({{
    "apiVersion":"v1","kind":"Pod",
    "metadata":{{"name":"bench-pod-{0:05}","namespace":"{1}",
      "labels":{{"app.kubernetes.io/name":"trainer","app.kubernetes.io/part-of":"ml-platform",
                "app.kubernetes.io/instance":"run-{2}","pod-template-hash":"5d8f7c{2:04}"}},
      "annotations":{{"prometheus.io/scrape":"true","prometheus.io/port":"9090",
                     "kubectl.kubernetes.io/default-container":"trainer"}}}},
    "spec":{{"nodeName":"{3}","restartPolicy":"Always","terminationGracePeriodSeconds":30,
      "tolerations":[{{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}},
                     {{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute"}},
                     {{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"}}],
      "volumes":[{{"name":"config","configMap":{{"name":"trainer-config"}}}},
                 {{"name":"scratch","emptyDir":{{"sizeLimit":"10Gi"}}}}]}}}})",
                                                index, ns, index % 1000, node));
  (void)pod->Append({"spec", "containers"}, Container("trainer", index));
  (void)pod->Append({"spec", "containers"}, Container("data-loader", index));
  return std::move(*pod);
}

}  // namespace rdmastack::bench
