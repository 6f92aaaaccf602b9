#include "tests/harness/node-runtime/log_run.h"

#include <gtest/gtest.h>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

// A pod with containers `main` and init container `setup`; `status` is main's containerStatus.
k8s::JsonObject LogPod(const std::string& status) {
  return ParseJson(R"({"metadata":{"name":"web","namespace":"ns"},
    "spec":{"nodeName":"n1","initContainers":[{"name":"setup"}],"containers":[{"name":"main"}]},
    "status":{"initContainerStatuses":[{"name":"setup","restartCount":0,
      "state":{"terminated":{"exitCode":0}}}],"containerStatuses":[)" +
                   status + "]}}");
}

constexpr char kRunningAfterOneRestart[] =
    R"({"name":"main","restartCount":1,"containerID":"rdmastack-sim://4242",
        "state":{"running":{}},"lastState":{"terminated":{"exitCode":3}}})";
constexpr char kBackOffAfterTwoRuns[] =
    R"({"name":"main","restartCount":1,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
        "lastState":{"terminated":{"exitCode":3}}})";
constexpr char kFirstRunDone[] =
    R"({"name":"main","restartCount":0,"state":{"terminated":{"exitCode":0}},"lastState":{}})";
constexpr char kNotStarted[] =
    R"({"name":"main","restartCount":0,"state":{"waiting":{"reason":"ErrImagePull"}}})";

TEST(ChooseLogRun, RunningContainerIsItsCurrentRunWithItsProcess) {
  StatusOr<LogRun> r = ChooseLogRun(LogPod(kRunningAfterOneRestart), "main", false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->run, 1);
  EXPECT_EQ(r->pid, 4242);
  r = ChooseLogRun(LogPod(kRunningAfterOneRestart), "main", true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->run, 0);
  EXPECT_EQ(r->pid, 0);  // a previous run is never followed
}

TEST(ChooseLogRun, WhileBackingOffBothReadTheRunThatJustEnded) {
  // The kubelet reads lastState's container for both: the run numbered restartCount.
  for (bool previous : {false, true}) {
    StatusOr<LogRun> r = ChooseLogRun(LogPod(kBackOffAfterTwoRuns), "main", previous);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->run, 1);
    EXPECT_EQ(r->pid, 0);
  }
}

TEST(ChooseLogRun, TerminatedContainerAndInitContainers) {
  StatusOr<LogRun> r = ChooseLogRun(LogPod(kFirstRunDone), "main", false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->run, 0);
  EXPECT_EQ(r->pid, 0);
  r = ChooseLogRun(LogPod(kFirstRunDone), "setup", false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->run, 0);
}

TEST(ChooseLogRun, KubeletMessagesWhenThereIsNothingToRead) {
  EXPECT_EQ(ChooseLogRun(LogPod(kFirstRunDone), "main", true).status().message(),
            "previous terminated container \"main\" in pod \"web\" not found");
  EXPECT_EQ(ChooseLogRun(LogPod(kFirstRunDone), "main", true).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ChooseLogRun(LogPod(kNotStarted), "main", false).status().message(),
            "container \"main\" in pod \"web\" is waiting to start: ErrImagePull");
  // No status written yet.
  EXPECT_EQ(ChooseLogRun(LogPod(R"({"name":"other"})"), "main", false).status().message(),
            "container \"main\" in pod \"web\" is waiting to start: ContainerCreating");
  const Status unknown = ChooseLogRun(LogPod(kFirstRunDone), "sidecar", false).status();
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.message(), "container \"sidecar\" not found in pod \"web\"");
}

TEST(PidOfContainerId, OnlyTheRuntimesIds) {
  EXPECT_EQ(PidOfContainerId("rdmastack-sim://123"), 123);
  EXPECT_EQ(PidOfContainerId("containerd://123"), 0);
  EXPECT_EQ(PidOfContainerId("rdmastack-sim://12x"), 0);
  EXPECT_EQ(PidOfContainerId("rdmastack-sim://"), 0);
  EXPECT_EQ(PidOfContainerId(""), 0);
}

TEST(NotRunHere, SaysWhyAPodHasNoLogsOnThisNode) {
  const k8s::JsonObject kwok =
      ParseJson(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"n1"}})");
  const Status s = NotRunHere(&kwok, "ns", "p", "n1");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("kwok keeps this one and runs nothing for it"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("rdmastack.io/simulate=run"), std::string::npos);

  const k8s::JsonObject pending = ParseJson(
      R"({"metadata":{"name":"p","labels":{"rdmastack.io/simulate":"run"}},
          "spec":{"nodeName":"n1"}})");
  EXPECT_NE(NotRunHere(&pending, "ns", "p", "n1").message().find("not been started"),
            std::string::npos);

  EXPECT_EQ(NotRunHere(nullptr, "ns", "p", "n1").code(), StatusCode::kNotFound);
  EXPECT_EQ(NotRunHere(nullptr, "ns", "p", "n1").message(),
            "pod \"ns/p\" does not exist on node \"n1\"");
  EXPECT_EQ(NotRunHere(&kwok, "ns", "p", "n2").code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rdmastack::sim
