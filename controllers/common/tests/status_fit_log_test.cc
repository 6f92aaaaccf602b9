#include "controllers/common/status_fit_log.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

const crd::SchemaFixes kLongMessage = {
    {"status.failingNodes[3].message", "maxLength 1024", "clipped from 2000 characters"}};
const crd::SchemaFixes kLongerMessage = {
    {"status.failingNodes[0].message", "maxLength 1024", "clipped from 3000 characters"}};
const crd::SchemaFixes kTwice = {
    {"status.failingNodes[1]", "x-kubernetes-list-type map", "repeats {\"node\":\"a\"}"}};

// The same problem comes back every pass; it is logged once per object.
TEST(StatusFitLogTest, LogsOncePerObjectUntilTheKindOfFixChanges) {
  StatusFitLog log("gatewaypool");
  EXPECT_TRUE(log.Report("ns/p", kLongMessage));
  EXPECT_FALSE(log.Report("ns/p", kLongMessage));
  EXPECT_FALSE(log.Report("ns/p", kLongerMessage)) << "same field, same rule";
  EXPECT_TRUE(log.Report("ns/q", kLongMessage)) << "another object";
  EXPECT_TRUE(log.Report("ns/p", kTwice));
  EXPECT_FALSE(log.Report("ns/p", {})) << "nothing to fit";
  EXPECT_TRUE(log.Report("ns/p", kTwice)) << "back after a pass without it";
  log.Forget("ns/q");
  EXPECT_TRUE(log.Report("ns/q", kLongMessage));
}

}  // namespace
}  // namespace rdmastack::controllers
