#include "tests/harness/node-runtime/container_command.h"

#include <gtest/gtest.h>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

using Argv = std::vector<std::string>;

ImageSpec Gateway() {
  ImageSpec image;
  image.names = {"rdmastack/gateway"};
  image.entrypoint = {"/usr/local/bin/rdmastack-gateway"};
  image.cmd = {"run"};
  return image;
}

Argv ArgvOf(const std::string& container, const ImageSpec& image) {
  EnvList env;
  env.Set("HOST_IP", "198.18.0.10");
  auto argv = ContainerArgv(ParseJson(container), image, env);
  EXPECT_TRUE(argv.ok()) << argv.status().ToString();
  return argv.ok() ? *argv : Argv{};
}

TEST(ContainerArgv, KubernetesCommandAndArgsRules) {
  EXPECT_EQ(ArgvOf("{}", Gateway()), (Argv{"/usr/local/bin/rdmastack-gateway", "run"}));
  EXPECT_EQ(
      ArgvOf(R"({"args":["probe","--endpoint","http://$(HOST_IP):7070"]})", Gateway()),
      (Argv{"/usr/local/bin/rdmastack-gateway", "probe", "--endpoint", "http://198.18.0.10:7070"}));
  EXPECT_EQ(ArgvOf(R"j({"command":["sh","-c","echo $(HOST_IP)"]})j", Gateway()),
            (Argv{"sh", "-c", "echo 198.18.0.10"}));  // command drops the image's CMD
  EXPECT_EQ(ArgvOf(R"({"command":["sleep"],"args":["1"]})", Gateway()), (Argv{"sleep", "1"}));
}

TEST(ContainerArgv, NothingToRunIsAnError) {
  ImageSpec host;
  host.names = {"rdmastack.invalid/host"};
  auto argv = ContainerArgv(ParseJson("{}"), host, EnvList());
  ASSERT_FALSE(argv.ok());
  EXPECT_NE(argv.status().message().find("no command specified"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::sim
