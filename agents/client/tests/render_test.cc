// The installed files, rendered exactly: what applications on the node read.
#include "agents/client/render.h"

#include <gtest/gtest.h>

namespace rdmastack::client {
namespace {

PoolEndpoints Pool() {
  PoolEndpoints p;
  p.pool = "ml/kvcache";
  p.region = "us-east-1";
  p.endpoints = {{"stg-node-0", "198.18.0.10", 7071, "1.2.0.68"},
                 {"stg-node-2", "198.18.0.12", 7071, "1.2.0.68"}};
  return p;
}

ClientConfig Config(std::string transport, std::string registration, std::string device, int gid) {
  ClientConfig c;
  c.profile = "ml/gpudirect";
  c.host_install_dir = "/var/lib/rdmastack/clients/ml.gpudirect";
  c.transport = std::move(transport);
  c.registration = std::move(registration);
  c.rdma_devices = {device};
  c.rdma_device = device;
  c.gid_index = gid;
  c.pool = Pool();
  return c;
}

std::string CuobjJson(const std::string& device, const std::string& peer_type_line) {
  return "{\n"
         "  \"logging\": {\n"
         "    \"dir\": \"/var/lib/rdmastack/clients/ml.gpudirect/log\",\n"
         "    \"level\": \"ERROR\"\n"
         "  },\n"
         "  \"execution\": {\n"
         "    \"parallel_io\": false\n"
         "  },\n"
         "  \"properties\": {\n"
         "    \"allow_compat_mode\": false,\n"
         "    \"rdma_dev_addr_list\": [\n"
         "      \"" +
         device +
         "\"\n"
         "    ]" +
         peer_type_line +
         "\n"
         "  }\n"
         "}\n";
}

constexpr char kEnvHead[] =
    "CUFILE_ENV_PATH_JSON=/var/lib/rdmastack/clients/ml.gpudirect/cufile.json\n"
    "CUOBJ_ENV_PATH_JSON=/var/lib/rdmastack/clients/ml.gpudirect/cuobj.json\n"
    "LD_LIBRARY_PATH=/var/lib/rdmastack/clients/ml.gpudirect/lib\n"
    "RDMASTACK_PROFILE=ml/gpudirect\n";
constexpr char kEnvTail[] =
    "AWS_ENDPOINT_URL=http://198.18.0.10:7071\n"
    "AWS_REGION=us-east-1\n";

TEST(Render, GpuDirectDmaBuf) {
  const ClientConfig c = Config("GPUDirect", "DMABuf", "ibp25s0", 0);
  EXPECT_EQ(RenderCuobjJson(c), CuobjJson("ibp25s0", ",\n    \"rdma_peer_type\": \"dmabuf\""));
  EXPECT_EQ(RenderClientEnv(c), std::string(kEnvHead) +
                                    "RDMASTACK_TRANSPORT=GPUDirect\n"
                                    "RDMASTACK_MEMORY_REGISTRATION=DMABuf\n"
                                    "CUFILE_DMABUF_ENABLE=TRUE\n"
                                    "VGWRDMA_RDMA_DEV=ibp25s0\n"
                                    "VGWRDMA_GID_INDEX=0\n" +
                                    kEnvTail);
}

TEST(Render, GpuDirectPeerMem) {
  const ClientConfig c = Config("GPUDirect", "PeerMem", "mlx5_0", 0);
  EXPECT_EQ(RenderCuobjJson(c),
            CuobjJson("mlx5_0", ",\n    \"rdma_peer_type\": \"nvidia_peermem\""));
  EXPECT_EQ(RenderClientEnv(c), std::string(kEnvHead) +
                                    "RDMASTACK_TRANSPORT=GPUDirect\n"
                                    "RDMASTACK_MEMORY_REGISTRATION=PeerMem\n"
                                    "CUFILE_DMABUF_ENABLE=FALSE\n"
                                    "VGWRDMA_RDMA_DEV=mlx5_0\n"
                                    "VGWRDMA_GID_INDEX=0\n" +
                                    kEnvTail);
}

TEST(Render, HostMemoryOnNativeInfiniBand) {
  const ClientConfig c = Config("HostMemory", "", "mlx5_0", 0);
  EXPECT_EQ(RenderCuobjJson(c), CuobjJson("mlx5_0", ""));  // no rdma_peer_type
  EXPECT_EQ(RenderClientEnv(c), std::string(kEnvHead) +
                                    "RDMASTACK_TRANSPORT=HostMemory\n"
                                    "VGWRDMA_RDMA_DEV=mlx5_0\n"
                                    "VGWRDMA_GID_INDEX=0\n" +
                                    kEnvTail);
}

TEST(Render, HostMemoryOnRoceUsesTheRoceV2Gid) {
  const ClientConfig c = Config("HostMemory", "", "mlx5_0", 3);
  EXPECT_EQ(RenderCuobjJson(c), CuobjJson("mlx5_0", ""));
  EXPECT_EQ(RenderClientEnv(c), std::string(kEnvHead) +
                                    "RDMASTACK_TRANSPORT=HostMemory\n"
                                    "VGWRDMA_RDMA_DEV=mlx5_0\n"
                                    "VGWRDMA_GID_INDEX=3\n" +
                                    kEnvTail);
}

TEST(Render, EndpointsJsonListsThePoolsUrls) {
  EXPECT_EQ(RenderEndpointsJson(Config("HostMemory", "", "mlx5_0", 0)),
            "{\n"
            "  \"pool\": \"ml/kvcache\",\n"
            "  \"region\": \"us-east-1\",\n"
            "  \"endpoints\": [\n"
            "    \"http://198.18.0.10:7071\",\n"
            "    \"http://198.18.0.12:7071\"\n"
            "  ]\n"
            "}\n");
}

TEST(Render, EveryDeviceIsListedForCufileButOneIsNamedForTheGateway) {
  ClientConfig c = Config("GPUDirect", "DMABuf", "mlx5_1", 0);
  c.rdma_devices = {"mlx5_1", "mlx5_0"};
  const std::string json = RenderCuobjJson(c);
  EXPECT_NE(json.find("\"rdma_dev_addr_list\": [\n      \"mlx5_1\",\n      \"mlx5_0\"\n    ]"),
            std::string::npos)
      << json;
  EXPECT_NE(RenderClientEnv(c).find("\nVGWRDMA_RDMA_DEV=mlx5_1\n"), std::string::npos);
}

TEST(Render, InstallFilesAreCufileAndCuobjAlikeThenEndpointsAndEnv) {
  const ClientConfig c = Config("GPUDirect", "DMABuf", "ibp25s0", 0);
  const auto files = RenderInstallFiles(c);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].name, "cufile.json");
  EXPECT_EQ(files[1].name, "cuobj.json");
  EXPECT_EQ(files[0].content, files[1].content);
  EXPECT_EQ(files[2].name, "endpoints.json");
  EXPECT_EQ(files[3].name, "client.env");
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.name);
  names.push_back(kCaBundleFile);  // an https pool's
  EXPECT_EQ(names, InstalledFileNames());
}

// An https pool: the URLs, the CA for applications (AWS_CA_BUNDLE, endpoints.json) as a file.
TEST(Render, AnHttpsPoolGetsItsCaBundleInstalled) {
  ClientConfig c = Config("HostMemory", "", "mlx5_0", 0);
  c.pool.scheme = "https";
  c.pool.ca_bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const auto files = RenderInstallFiles(c);
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[4].name, "ca-bundle.pem");
  EXPECT_EQ(files[4].content, c.pool.ca_bundle);
  const std::string env = RenderClientEnv(c);
  EXPECT_NE(env.find("\nAWS_ENDPOINT_URL=https://198.18.0.10:7071\n"), std::string::npos) << env;
  EXPECT_NE(env.find("\nAWS_CA_BUNDLE=" + c.host_install_dir + "/ca-bundle.pem\n"),
            std::string::npos)
      << env;
  const std::string json = RenderEndpointsJson(c);
  EXPECT_NE(json.find("\"caBundleFile\": \"" + c.host_install_dir + "/ca-bundle.pem\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"https://198.18.0.12:7071\""), std::string::npos) << json;
}

TEST(Render, ConfigFromAPlan) {
  NodePlan plan;
  plan.capable = true;
  plan.transport = "GPUDirect";
  plan.registration = "PeerMem";
  plan.rdma_devices = {"mlx5_0", "mlx5_1"};
  plan.rdma_device = "mlx5_0";
  plan.gid_index = 0;
  const ClientConfig c = MakeClientConfig(plan, Pool(), "ml/p", "/opt/x");
  EXPECT_EQ(c.rdma_devices, plan.rdma_devices);
  EXPECT_EQ(c.registration, "PeerMem");
  EXPECT_EQ(c.profile, "ml/p");
  EXPECT_EQ(c.host_install_dir, "/opt/x");
  EXPECT_EQ(c.pool.endpoints.size(), 2u);
}

}  // namespace
}  // namespace rdmastack::client
