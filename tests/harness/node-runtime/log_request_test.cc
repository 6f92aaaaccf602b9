#include "tests/harness/node-runtime/log_request.h"

#include <gtest/gtest.h>

namespace rdmastack::sim {
namespace {

TEST(LogRequest, ParsesWhatTheApiServerSends) {
  // kubectl logs -f --previous --tail=3 --limit-bytes=100 -c main web-0 -n ns-1
  StatusOr<LogRequest> r = ParseLogRequest(
      "/containerLogs/ns-1/web-0/main?follow=true&limitBytes=100&previous=true&tailLines=3");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ns, "ns-1");
  EXPECT_EQ(r->pod, "web-0");
  EXPECT_EQ(r->container, "main");
  EXPECT_TRUE(r->follow);
  EXPECT_TRUE(r->previous);
  EXPECT_EQ(r->tail_lines, 3);
  EXPECT_EQ(r->limit_bytes, 100);
}

TEST(LogRequest, DefaultsAreAllOfTheCurrentRun) {
  StatusOr<LogRequest> r = ParseLogRequest("/containerLogs/a/b/c");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->follow);
  EXPECT_FALSE(r->previous);
  EXPECT_FALSE(r->tail_lines.has_value());
  EXPECT_FALSE(r->limit_bytes.has_value());
  // Go's ParseBool spellings, escapes, parameters the kubelet does not know, stream=All.
  r = ParseLogRequest(
      "/containerLogs/a/b/c%2Dx?follow=1&previous=False&x=y&timestamps=false&"
      "stream=All&&tailLines=0");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->container, "c-x");
  EXPECT_TRUE(r->follow);
  EXPECT_FALSE(r->previous);
  EXPECT_EQ(r->tail_lines, 0);
}

TEST(LogRequest, OtherPathsAreNotFound) {
  for (const char* target : {"/containerLogs/a/b", "/containerLogs/a/b/c/d", "/containerLogs//b/c",
                             "/logs/a/b/c", "/exec/a/b/c", "/"}) {
    EXPECT_EQ(ParseLogRequest(target).status().code(), StatusCode::kNotFound) << target;
  }
}

TEST(LogRequest, BadValuesAreBadRequests) {
  for (const char* query : {"follow=yes", "tailLines=-1", "tailLines=3x", "limitBytes=0",
                            "limitBytes=", "previous=%zz"}) {
    StatusOr<LogRequest> r = ParseLogRequest(std::string("/containerLogs/a/b/c?") + query);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << query;
  }
  EXPECT_EQ(ParseLogRequest("/containerLogs/a/b/c?tailLines=-1").status().message(),
            "tailLines=-1 must be at least 0");
}

TEST(LogRequest, WhatThePlainLogCannotAnswerIsRefusedByName) {
  // The files hold the output as written: no per-line times, one stream.
  for (const auto& [query, named] : std::vector<std::pair<std::string, std::string>>{
           {"timestamps=true", "timestamps (kubectl logs --timestamps)"},
           {"sinceSeconds=60", "sinceSeconds (kubectl logs --since"},
           {"sinceTime=2026-12-05T10%3A00%3A00Z", "sinceTime (kubectl logs --since"},
           {"stream=Stderr", "stream=Stderr"}}) {
    StatusOr<LogRequest> r = ParseLogRequest("/containerLogs/a/b/c?" + query);
    ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument) << query;
    EXPECT_EQ(r.status().message().rfind(named, 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find("not supported by the simulated node runtime"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace rdmastack::sim
