// Proves the protobuf/gRPC codegen rule: the generated message round-trips through the wire
// format and the generated service stub exists.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "agents/proto/agenthub.grpc.pb.h"
#include "agents/proto/agenthub.pb.h"

namespace rdmastack {
namespace {

TEST(AgentHubProtoTest, ReportRoundTripsThroughWireFormat) {
  agent::v1::AgentMessage msg;
  auto* report = msg.mutable_report();
  report->set_node_name("gpu-node-0");
  auto* dev = report->add_devices();
  dev->set_name("mlx5_0");
  dev->add_ports()->set_link_layer("InfiniBand");
  auto* check = report->add_checks();
  check->set_status(agent::v1::Check::FAIL);
  check->set_reason("Bar1TooSmall");

  std::string wire;
  ASSERT_TRUE(msg.SerializeToString(&wire));
  agent::v1::AgentMessage back;
  ASSERT_TRUE(back.ParseFromString(wire));
  ASSERT_TRUE(back.has_report());
  EXPECT_EQ(back.report().node_name(), "gpu-node-0");
  EXPECT_EQ(back.report().devices(0).ports(0).link_layer(), "InfiniBand");
  EXPECT_EQ(back.report().checks(0).reason(), "Bar1TooSmall");
  EXPECT_FALSE(back.has_hello());
}

TEST(AgentHubProtoTest, ServiceStubIsGenerated) {
  auto channel = grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  auto stub = agent::v1::AgentHub::NewStub(channel);
  EXPECT_NE(stub, nullptr);
}

}  // namespace
}  // namespace rdmastack
