#pragma once
// A test's JSON literal as an object; a test failure when it does not parse.

#include <gtest/gtest.h>

#include <string_view>

#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::testing {

inline JsonObject JsonText(std::string_view text) {
  auto o = JsonObject::Parse(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << ": " << text;
  return o.ok() ? *o : JsonObject();
}

}  // namespace rdmastack::k8s::testing
