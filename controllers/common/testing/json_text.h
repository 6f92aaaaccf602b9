#pragma once
// A test's JSON literal as an object; a test failure when it does not parse.

#include <gtest/gtest.h>

#include <string_view>

#include "operator/k8s/json_object.h"

namespace rdmastack::controllers::testing {

inline k8s::JsonObject JsonText(std::string_view text) {
  auto o = k8s::JsonObject::Parse(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << ": " << text;
  return o.ok() ? *o : k8s::JsonObject();
}

}  // namespace rdmastack::controllers::testing
