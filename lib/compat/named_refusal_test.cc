#include "lib/compat/named_refusal.h"

#include <gtest/gtest.h>

namespace rdmastack::compat {
namespace {

TEST(NamedRefusalTest, TheLaunchersLinesOfANamedClassGiveTheirReason) {
  EXPECT_EQ(NamedRefusalReason("rdmastack-gateway: refused (library-digest): libcuobjserver.so."
                               "1.2.0.68: sha256 is 00, the compatibility data expects 11"),
            "LibraryDigestMismatch");
  // A termination message is the log's tail: the line need not be first.
  EXPECT_EQ(NamedRefusalReason("starting\nrdmastack-gateway: refused (backend-metadata): "
                               "BackendNoUserXattr: the file system of gateway root /r ..."),
            "BackendNoUserXattr");
}

TEST(NamedRefusalTest, OtherRefusalsAndLogsHaveNoReasonOfTheirOwn) {
  EXPECT_EQ(NamedRefusalReason("rdmastack-gateway: refused (filesystem): gateway root /r does "
                               "not exist"),
            std::nullopt);
  EXPECT_EQ(NamedRefusalReason("xattr check failed: xattrs are not supported on this filesystem"),
            std::nullopt);
  // A gateway that merely logs the words is not refused by the launcher.
  EXPECT_EQ(NamedRefusalReason("backend-metadata BackendNoUserXattr"), std::nullopt);
  EXPECT_EQ(NamedRefusalReason(""), std::nullopt);
}

TEST(NamedRefusalTest, TheReasonsAreKnownByName) {
  EXPECT_TRUE(IsNamedRefusalReason("LibraryDigestMismatch"));
  EXPECT_TRUE(IsNamedRefusalReason("BackendNoUserXattr"));
  EXPECT_FALSE(IsNamedRefusalReason("GatewayCrashLooping"));
  EXPECT_FALSE(IsNamedRefusalReason(""));
}

}  // namespace
}  // namespace rdmastack::compat
