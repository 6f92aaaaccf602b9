#include "tests/bench/k8s/node_list_generator.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <initializer_list>
#include <utility>

namespace rdmastack::k8s::bench {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Str(Writer& w, const std::string& key, const std::string& value) {
  w.Key(key.c_str());
  w.String(value.c_str());
}

void Members(Writer& w, std::initializer_list<std::pair<const char*, const char*>> members) {
  for (const auto& [key, value] : members) Str(w, key, value);
}

void Node(Writer& w, int i) {
  const std::string name = "gpu-node-" + std::to_string(i);
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  Str(w, "name", name);
  Str(w, "uid", "5f1c2a4e-0000-4000-8000-" + std::to_string(100000000000 + i));
  Str(w, "resourceVersion", std::to_string(1000000 + i));
  Str(w, "creationTimestamp", "2026-11-20T08:00:00Z");
  w.Key("labels");
  w.StartObject();
  Str(w, "kubernetes.io/hostname", name);
  Str(w, "kubernetes.io/os", "linux");
  Str(w, "kubernetes.io/arch", "amd64");
  Str(w, "topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3));
  Str(w, "node.kubernetes.io/instance-type", "dgx-h200");
  for (int l = 0; l < 95; ++l) {
    Str(w, "feature.node.kubernetes.io/pci-15b3-" + std::to_string(l) + ".present",
        l % 2 ? "true" : "false");
  }
  w.EndObject();
  w.Key("annotations");
  w.StartObject();
  Str(w, "node.alpha.kubernetes.io/ttl", "0");
  Str(w, "volumes.kubernetes.io/controller-managed-attach-detach", "true");
  Str(w, "nfd.node.kubernetes.io/feature-labels",
      "cpu-cpuid.AVX512F,cpu-cpuid.AMXBF16,kernel-version.full,pci-10de.present,pci-15b3.present,"
      "rdma.available");
  w.EndObject();
  w.EndObject();

  w.Key("spec");
  w.StartObject();
  Str(w, "podCIDR", "10.244." + std::to_string(i % 250) + ".0/24");
  Str(w, "providerID", "kwok://" + name);
  w.EndObject();

  w.Key("status");
  w.StartObject();
  for (const char* section : {"capacity", "allocatable"}) {
    w.Key(section);
    w.StartObject();
    Members(w, {{"cpu", "224"},
                {"memory", "2113681360Ki"},
                {"ephemeral-storage", "7497620436Ki"},
                {"hugepages-1Gi", "0"},
                {"hugepages-2Mi", "0"},
                {"nvidia.com/gpu", "8"},
                {"rdma/rdma_shared_device_a", "63"},
                {"pods", "110"}});
    w.EndObject();
  }
  w.Key("conditions");
  w.StartArray();
  for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    w.StartObject();
    Str(w, "type", type);
    Str(w, "status", std::string(type) == "Ready" ? "True" : "False");
    Str(w, "lastHeartbeatTime", "2026-11-29T08:00:00Z");
    Str(w, "lastTransitionTime", "2026-11-20T08:00:00Z");
    Str(w, "reason", std::string("Kubelet") + type);
    Str(w, "message", "kubelet has sufficient resources and is posting ready status");
    w.EndObject();
  }
  w.EndArray();
  w.Key("addresses");
  w.StartArray();
  w.StartObject();
  Str(w, "type", "InternalIP");
  Str(w, "address", "100.64." + std::to_string(i / 250) + "." + std::to_string(i % 250));
  w.EndObject();
  w.StartObject();
  Str(w, "type", "Hostname");
  Str(w, "address", name);
  w.EndObject();
  w.EndArray();
  w.Key("daemonEndpoints");
  w.StartObject();
  w.Key("kubeletEndpoint");
  w.StartObject();
  w.Key("Port");
  w.Int(10250);
  w.EndObject();
  w.EndObject();
  w.Key("nodeInfo");
  w.StartObject();
  Members(w, {{"machineID", "0f4e6c1d2b3a49588776655443322110"},
              {"systemUUID", "4c4c4544-0042-3610-8052-b7c04f4d3332"},
              {"bootID", "9b8f0d3c-1a2b-4c5d-8e9f-0a1b2c3d4e5f"},
              {"kernelVersion", "6.8.0-45-generic"},
              {"osImage", "Ubuntu 24.04.1 LTS"},
              {"containerRuntimeVersion", "containerd://1.7.22"},
              {"kubeletVersion", "v1.36.3"},
              {"operatingSystem", "linux"},
              {"architecture", "amd64"}});
  w.EndObject();
  w.Key("images");
  w.StartArray();
  for (int m = 0; m < 28; ++m) {
    w.StartObject();
    w.Key("names");
    w.StartArray();
    const std::string repo = "nvcr.io/nvidia/cloud-native/component-" + std::to_string(m);
    w.String((repo + "@sha256:6a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1" +
              std::to_string(m % 10))
                 .c_str());
    w.String((repo + ":v24." + std::to_string(m % 12) + ".0").c_str());
    w.EndArray();
    w.Key("sizeBytes");
    w.Int64(100000000LL + m * 7919LL * 1000);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::string GenerateNodeList(int nodes) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Str(w, "kind", "NodeList");
  Str(w, "apiVersion", "v1");
  w.Key("metadata");
  w.StartObject();
  Str(w, "resourceVersion", "2000000");
  w.EndObject();
  w.Key("items");
  w.StartArray();
  for (int i = 0; i < nodes; ++i) Node(w, i);
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string GenerateNodeWatchList(int nodes) {
  rapidjson::StringBuffer buffer;
  for (int i = 0; i < nodes; ++i) {
    Writer w(buffer);
    w.StartObject();
    Str(w, "type", "ADDED");
    w.Key("object");
    Node(w, i);
    w.EndObject();
    buffer.Put('\n');
  }
  std::string out(buffer.GetString(), buffer.GetSize());
  out +=
      R"({"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{)"
      R"("resourceVersion":"2000000","annotations":{"k8s.io/initial-events-end":"true"}}}})"
      "\n";
  return out;
}

}  // namespace rdmastack::k8s::bench
