#include "agents/client/state.h"

#include <gtest/gtest.h>

namespace rdmastack::client {
namespace {

using std::chrono::seconds;

ClientState Sample() {
  ClientState s;
  s.ready = true;
  s.reason = kReasonReady;
  s.message = "GPUDirect via DMABuf on ibp25s0 GID 0";
  s.profile = "ml/gpudirect";
  s.node = "gpu-node-0";
  s.transport = "GPUDirect";
  s.memory_registration = "DMABuf";
  s.gid_index = 0;
  s.rdma_device = "ibp25s0";
  s.endpoints = 2;
  s.reachable = 1;
  s.peermem_loaded_by_client = false;
  s.updated = std::chrono::system_clock::time_point(seconds(1'796'000'000));
  return s;
}

TEST(State, RendersEveryFieldAndParsesBack) {
  const ClientState s = Sample();
  const std::string json = RenderStateJson(s);
  EXPECT_EQ(json,
            "{\"ready\":true,\"reason\":\"Ready\",\"message\":\"GPUDirect via DMABuf on ibp25s0 "
            "GID 0\",\"profile\":\"ml/gpudirect\",\"node\":\"gpu-node-0\",\"transport\":"
            "\"GPUDirect\",\"memoryRegistration\":\"DMABuf\",\"gidIndex\":0,\"rdmaDevice\":"
            "\"ibp25s0\",\"endpoints\":2,\"reachable\":1,\"peermemLoadedByClient\":false,"
            "\"updated\":\"2026-11-30T00:53:20Z\"}\n");
  auto back = ParseStateJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
}

TEST(State, ParseRefusesPartialState) {
  EXPECT_FALSE(ParseStateJson("").ok());
  EXPECT_FALSE(ParseStateJson("{\"ready\":true}").ok());
  std::string json = RenderStateJson(Sample());
  json.replace(json.find("\"gidIndex\":0"), 12, "\"gidIndex\":\"0\"");
  EXPECT_FALSE(ParseStateJson(json).ok());
}

TEST(State, ReadyOnlyWhenReadyAndFresh) {
  const ClientState s = Sample();
  EXPECT_TRUE(JudgeReady(s, s.updated + seconds(29), seconds(30)).ready);
  const ReadyVerdict stale = JudgeReady(s, s.updated + seconds(31), seconds(30));
  EXPECT_FALSE(stale.ready);
  EXPECT_NE(stale.why.find("stale: written 31s ago (max 30s)"), std::string::npos) << stale.why;

  ClientState down = Sample();
  down.ready = false;
  down.reason = kReasonEndpointsUnreachable;
  down.message = "no endpoint answers";
  const ReadyVerdict v = JudgeReady(down, down.updated, seconds(30));
  EXPECT_FALSE(v.ready);
  EXPECT_EQ(v.why, "not ready: EndpointsUnreachable: no endpoint answers");
}

}  // namespace
}  // namespace rdmastack::client
