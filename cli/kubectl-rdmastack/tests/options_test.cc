#include "cli/kubectl-rdmastack/options.h"

#include <gtest/gtest.h>

namespace rdmastack::plugin {
namespace {

StatusOr<Options> Parse(std::vector<std::string> args) {
  return ParseOptions(args);
}

TEST(OptionsTest, CommandsAndArguments) {
  auto status = Parse({"status"});
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->command, Command::kStatus);
  EXPECT_EQ(status->output, OutputFormat::kTable);
  EXPECT_EQ(status->namespace_, "");

  auto why = Parse({"why", "gpu-node-3"});
  ASSERT_TRUE(why.ok());
  EXPECT_EQ(why->command, Command::kWhy);
  EXPECT_EQ(why->argument, "gpu-node-3");

  auto upgrade = Parse({"upgrade", "archive", "-n", "ml"});
  ASSERT_TRUE(upgrade.ok());
  EXPECT_EQ(upgrade->command, Command::kUpgrade);
  EXPECT_EQ(upgrade->argument, "archive");
  EXPECT_EQ(upgrade->namespace_, "ml");

  EXPECT_EQ(Parse({"version"})->command, Command::kVersion);
  EXPECT_EQ(Parse({"--version"})->command, Command::kVersion);
  EXPECT_EQ(Parse({})->command, Command::kHelp);
  EXPECT_EQ(Parse({"help"})->command, Command::kHelp);
  EXPECT_EQ(Parse({"help", "why"})->command, Command::kHelp);
  EXPECT_EQ(Parse({"why", "--help"})->command, Command::kHelp);
  EXPECT_EQ(Parse({"-h"})->command, Command::kHelp);
}

TEST(OptionsTest, MustGatherTakesADirectoryQuietAndTheOperatorNamespace) {
  auto defaults = Parse({"must-gather"});
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->command, Command::kMustGather);
  EXPECT_EQ(defaults->output_dir, ".");
  EXPECT_FALSE(defaults->quiet);
  EXPECT_EQ(defaults->operator_namespace, "rdmastack-system");
  EXPECT_EQ(defaults->namespace_, "");

  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"must-gather", "-n", "ml", "-o", "/tmp/b", "-q", "--operator-namespace", "ops"},
           {"-q", "--namespace=ml", "must-gather", "-o/tmp/b", "--operator-namespace=ops"},
           {"must-gather", "--output", "/tmp/b", "--quiet", "-nml", "--operator-namespace",
            "ops"}}) {
    auto o = Parse(args);
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    EXPECT_EQ(o->command, Command::kMustGather);
    EXPECT_EQ(o->output_dir, "/tmp/b");
    EXPECT_TRUE(o->quiet);
    EXPECT_EQ(o->namespace_, "ml");
    EXPECT_EQ(o->operator_namespace, "ops");
  }
  // -o names a directory only for must-gather; elsewhere it is still the format.
  EXPECT_EQ(Parse({"status", "-o", "/tmp/b"}).status().message(),
            "--output must be table or json, not \"/tmp/b\"");
  EXPECT_EQ(Parse({"must-gather", "extra"}).status().message(),
            "unexpected argument \"extra\" after must-gather");
  EXPECT_EQ(Parse({"must-gather", "-A", "-n", "ml"})->namespace_, "");
}

TEST(OptionsTest, KubectlFlagForms) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-n", "ml", "-o", "json", "--kubeconfig", "/k", "--context", "c", "status"},
           {"status", "-nml", "-ojson", "--kubeconfig=/k", "--context=c"},
           {"--namespace=ml", "status", "--output", "json", "--kubeconfig", "/k", "--context", "c"},
           {"--namespace", "ml", "--output=json", "status", "--context", "c", "--kubeconfig=/k"}}) {
    auto o = Parse(args);
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    EXPECT_EQ(o->command, Command::kStatus);
    EXPECT_EQ(o->namespace_, "ml");
    EXPECT_EQ(o->output, OutputFormat::kJson);
    EXPECT_EQ(o->kubeconfig, "/k");
    EXPECT_EQ(o->context, "c");
  }
  EXPECT_EQ(Parse({"status", "-o", "table"})->output, OutputFormat::kTable);
  EXPECT_EQ(Parse({"status", "-n", "ml", "-A"})->namespace_, "");
  EXPECT_EQ(Parse({"why", "--all-namespaces", "gpu-node-0"})->argument, "gpu-node-0");
  // "--" ends the flags: a node name may start with a dash.
  EXPECT_EQ(Parse({"why", "--", "-odd"})->argument, "-odd");
}

TEST(OptionsTest, BenchTakesAProfileAndItsFlags) {
  auto b = Parse({"bench",
                  "kvcache-gpudirect",
                  "-n",
                  "demo",
                  "--bucket=smoke",
                  "--size",
                  "1Mi",
                  "--streams",
                  "1,2,4",
                  "--objects-per-stream",
                  "2",
                  "--node",
                  "gpu-node-1",
                  "--timeout",
                  "5m",
                  "--pod-label",
                  "a=b",
                  "--pod-label",
                  "rdmastack.io/simulate=run",
                  "-o",
                  "json"});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->command, Command::kBench);
  EXPECT_EQ(b->argument, "kvcache-gpudirect");
  EXPECT_EQ(b->namespace_, "demo");
  EXPECT_EQ(b->bench_bucket, "smoke");
  EXPECT_EQ(b->bench_size, "1Mi");
  EXPECT_EQ(b->bench_streams, "1,2,4");
  EXPECT_EQ(b->bench_objects, "2");
  EXPECT_EQ(b->bench_node, "gpu-node-1");
  EXPECT_EQ(b->bench_timeout, "5m");
  EXPECT_EQ(b->pod_labels,
            (std::map<std::string, std::string>{{"a", "b"}, {"rdmastack.io/simulate", "run"}}));
  EXPECT_EQ(b->output, OutputFormat::kJson);
}

TEST(OptionsTest, UsageErrorsSayWhat) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"stauts"}, "unknown command \"stauts\""},
      {{"status", "--watch"}, "unknown flag --watch"},
      {{"status", "-w"}, "unknown flag -w"},
      {{"upgrade", "archive", "-A"},
       "upgrade looks at one pool: give its namespace with -n, not -A"},
      {{"status", "-o", "yaml"}, "--output must be table or json, not \"yaml\""},
      {{"status", "-n"}, "flag -n needs a value"},
      {{"status", "--namespace="}, "flag --namespace= needs a value"},
      {{"why"}, "why needs a node name: kubectl rdmastack why NODE"},
      {{"upgrade"}, "upgrade needs a pool name: kubectl rdmastack upgrade POOL"},
      {{"why", "a", "b"}, "unexpected argument \"b\" after why"},
      {{"status", "extra"}, "unexpected argument \"extra\" after status"},
      {{"bench"}, "bench needs a ClientProfile name: kubectl rdmastack bench PROFILE -n NS"},
      {{"bench", "kv", "-A"}, "bench runs one profile: give its namespace with -n, not -A"},
      {{"bench", "kv", "--pod-label", "novalue"}, "--pod-label needs KEY=VALUE, got \"novalue\""},
      {{"status", "--streams", "1,2"},
       "--bucket, --node, --size, --streams, --objects-per-stream, --timeout and --pod-label are "
       "flags of bench only"},
  };
  for (const Case& c : cases) {
    auto o = Parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args.front();
    EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(o.status().message(), c.message);
  }
}

}  // namespace
}  // namespace rdmastack::plugin
