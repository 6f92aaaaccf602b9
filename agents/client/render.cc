#include "agents/client/render.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace rdmastack::client {
namespace {

std::string HostPath(const ClientConfig& c, const std::string& name) {
  return (c.host_install_dir == "/" ? "" : c.host_install_dir) + "/" + name;
}

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

std::string Finish(const rapidjson::StringBuffer& buf) {
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace

ClientConfig MakeClientConfig(const NodePlan& plan, const PoolEndpoints& pool,
                              const std::string& profile, const std::string& host_install_dir) {
  ClientConfig c;
  c.profile = profile;
  c.host_install_dir = host_install_dir;
  c.transport = plan.transport;
  c.registration = plan.registration;
  c.rdma_devices = plan.rdma_devices;
  c.rdma_device = plan.rdma_device;
  c.gid_index = plan.gid_index;
  c.pool = pool;
  return c;
}

std::string RenderCuobjJson(const ClientConfig& c) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("logging");
  w.StartObject();
  w.Key("dir");
  w.String(HostPath(c, kLogDir));
  w.Key("level");
  w.String("ERROR");
  w.EndObject();
  // cuObject forces parallel_io off (GDS 1.20 release notes); saying so keeps cuFile alike.
  w.Key("execution");
  w.StartObject();
  w.Key("parallel_io");
  w.Bool(false);
  w.EndObject();
  w.Key("properties");
  w.StartObject();
  // Compat mode would fall back to POSIX reads silently; a broken RDMA path must fail loudly.
  w.Key("allow_compat_mode");
  w.Bool(false);
  w.Key("rdma_dev_addr_list");
  w.StartArray();
  for (const auto& d : c.rdma_devices) w.String(d);
  w.EndArray();
  if (c.transport == "GPUDirect") {
    w.Key("rdma_peer_type");
    w.String(c.registration == "DMABuf" ? "dmabuf" : "nvidia_peermem");
  }
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

std::string RenderEndpointsJson(const ClientConfig& c) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("pool");
  w.String(c.pool.pool);
  w.Key("region");
  w.String(c.pool.region);
  if (!c.pool.ca_bundle.empty()) {
    w.Key("caBundleFile");
    w.String(HostPath(c, kCaBundleFile));
  }
  w.Key("endpoints");
  w.StartArray();
  for (const auto& url : c.pool.Urls()) w.String(url);
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

std::string RenderClientEnv(const ClientConfig& c) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"CUFILE_ENV_PATH_JSON", HostPath(c, "cufile.json")},
      {"CUOBJ_ENV_PATH_JSON", HostPath(c, "cuobj.json")},
      {"LD_LIBRARY_PATH", HostPath(c, kLibDir)},
      {"RDMASTACK_PROFILE", c.profile},
      {"RDMASTACK_TRANSPORT", c.transport},
  };
  if (c.transport == "GPUDirect") {
    kv.emplace_back("RDMASTACK_MEMORY_REGISTRATION", c.registration);
    // Applied after the JSON by libcuobjclient, so it must agree with rdma_peer_type.
    kv.emplace_back("CUFILE_DMABUF_ENABLE", c.registration == "DMABuf" ? "TRUE" : "FALSE");
  }
  kv.emplace_back("VGWRDMA_RDMA_DEV", c.rdma_device);
  kv.emplace_back("VGWRDMA_GID_INDEX", std::to_string(c.gid_index));
  const std::vector<std::string> urls = c.pool.Urls();
  if (!urls.empty()) kv.emplace_back("AWS_ENDPOINT_URL", urls.front());
  kv.emplace_back("AWS_REGION", c.pool.region);
  if (!c.pool.ca_bundle.empty()) kv.emplace_back("AWS_CA_BUNDLE", HostPath(c, kCaBundleFile));
  std::string out;
  for (const auto& [k, v] : kv) out += k + "=" + v + "\n";
  return out;
}

std::vector<RenderedFile> RenderInstallFiles(const ClientConfig& c) {
  const std::string cuobj = RenderCuobjJson(c);
  std::vector<RenderedFile> files = {{"cufile.json", cuobj},
                                     {"cuobj.json", cuobj},
                                     {"endpoints.json", RenderEndpointsJson(c)},
                                     {"client.env", RenderClientEnv(c)}};
  if (!c.pool.ca_bundle.empty()) files.push_back({kCaBundleFile, c.pool.ca_bundle});
  return files;
}

const std::vector<std::string>& InstalledFileNames() {
  static const std::vector<std::string> kNames = {"cufile.json", "cuobj.json", "endpoints.json",
                                                  "client.env", kCaBundleFile};
  return kNames;
}

}  // namespace rdmastack::client
