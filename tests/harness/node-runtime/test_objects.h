#pragma once
// Helpers for the runtime's unit tests: JSON literals and in-memory ConfigMaps/Secrets/tokens.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "operator/k8s/json_object.h"
#include "tests/harness/node-runtime/object_reader.h"
#include "tests/harness/node-runtime/service_account_token.h"

namespace rdmastack::sim {

inline std::string ReadTestFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// An empty directory of its own for the running test (removed first if an earlier run left it).
inline std::filesystem::path FreshTestDir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + "-" + std::to_string(::getpid()) + "-" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  return dir;
}

inline k8s::JsonObject ParseJson(const std::string& text) {
  auto parsed = k8s::JsonObject::Parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << text;
  return parsed.ok() ? *parsed : k8s::JsonObject();
}

class FakeObjectReader final : public ObjectReader {
 public:
  StatusOr<DataMap> ConfigMap(std::string_view ns, std::string_view name) override {
    return Find(config_maps, ns, name, "configmap");
  }
  StatusOr<DataMap> Secret(std::string_view ns, std::string_view name) override {
    return Find(secrets, ns, name, "secret");
  }
  std::map<std::string, DataMap> config_maps;  // "ns/name"
  std::map<std::string, DataMap> secrets;

 private:
  static StatusOr<DataMap> Find(const std::map<std::string, DataMap>& from, std::string_view ns,
                                std::string_view name, const std::string& word) {
    auto it = from.find(std::string(ns) + "/" + std::string(name));
    if (it == from.end()) return NotFoundError(word + " \"" + std::string(name) + "\" not found");
    return it->second;
  }
};

class FakeTokenIssuer final : public TokenIssuer {
 public:
  explicit FakeTokenIssuer(Clock& clock) : clock_(clock) {}
  StatusOr<IssuedToken> Issue(const TokenRequestSpec& spec) override {
    requests.push_back(spec);
    const auto now = clock_.WallNow();
    return IssuedToken{"token-" + std::to_string(requests.size()), now,
                       now + std::chrono::seconds(spec.expiration_seconds)};
  }
  std::vector<TokenRequestSpec> requests;

 private:
  Clock& clock_;
};

}  // namespace rdmastack::sim
