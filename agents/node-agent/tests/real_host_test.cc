// Ties the fixtures to real hardware: the tree rebuilt from files read on a real H200 host
// (tests/fixtures/nodes/real-h200-open-580-no-rdma-nic) must give the same checks and GPU facts as
// `check --live-probes` printed on that host (tests/fixtures/nodes/real-hosts/...). A parser change
// that misreads the real files shows up here, not only against hand-written fixtures.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "agents/node-agent/cli/check_command.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::agent {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Canonical(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

TEST(RealHostTest, RebuiltH200TreeMatchesLiveOutput) {
  const std::string real = testing::SourceDir() +
                           "/tests/fixtures/nodes/real-hosts/h200-open-580-no-rdma-nic/client.json";
  rapidjson::Document live;
  live.Parse(Slurp(real).c_str());
  ASSERT_FALSE(live.HasParseError()) << real;

  const std::string dir = node::testing::FixtureDir("real-h200-open-580-no-rdma-nic");
  auto options = ParseCheckOptions({"--root", dir + "/root", "--role", "client", "--ips-file",
                                    dir + "/ips.txt", "--probes-file", dir + "/probes.txt",
                                    "--output", "json"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  auto run = RunCheck(*options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // The host ran with --root /: drop the fixture's root prefix from paths in messages.
  std::string rendered = run->rendered;
  const std::string root = dir + "/root";
  for (size_t pos = rendered.find(root); pos != std::string::npos; pos = rendered.find(root, pos)) {
    rendered.erase(pos, root.size());
  }
  rapidjson::Document fixture;
  fixture.Parse(rendered.c_str());
  ASSERT_FALSE(fixture.HasParseError());

  // Every GPU fact the host printed, as it printed it; facts the agent learned to read after the
  // capture are left to the other tests.
  const auto& gpus = fixture["facts"]["gpus"];
  const auto& live_gpus = live["facts"]["gpus"];
  ASSERT_EQ(gpus.Size(), live_gpus.Size());
  for (rapidjson::SizeType i = 0; i < live_gpus.Size(); ++i) {
    for (const auto& m : live_gpus[i].GetObject()) {
      SCOPED_TRACE(m.name.GetString());
      ASSERT_TRUE(gpus[i].HasMember(m.name));
      EXPECT_EQ(Canonical(gpus[i][m.name]), Canonical(m.value));
    }
  }
  EXPECT_EQ(Canonical(fixture["verdicts"]), Canonical(live["verdicts"]));
  // The host's checks, in its order; a check added after the capture must pass here (the host has
  // no RDMA NIC, so no GPU <-> NIC path for them to judge).
  const std::set<std::string> added_since = {"gpu.acs", "gpu.iommu"};
  const auto& all = fixture["checks"];
  std::vector<const rapidjson::Value*> got;
  for (const auto& c : all.GetArray()) {
    if (!added_since.contains(c["id"].GetString())) {
      got.push_back(&c);
      continue;
    }
    EXPECT_STREQ(c["status"].GetString(), "Pass") << c["id"].GetString();
  }
  const auto& want = live["checks"];
  ASSERT_EQ(got.size(), want.Size());
  for (rapidjson::SizeType i = 0; i < want.Size(); ++i) {
    SCOPED_TRACE(want[i]["id"].GetString());
    EXPECT_STREQ((*got[i])["id"].GetString(), want[i]["id"].GetString());
    EXPECT_STREQ((*got[i])["status"].GetString(), want[i]["status"].GetString());
    EXPECT_STREQ((*got[i])["reason"].GetString(), want[i]["reason"].GetString());
    EXPECT_STREQ((*got[i])["message"].GetString(), want[i]["message"].GetString());
  }
}

}  // namespace
}  // namespace rdmastack::agent
