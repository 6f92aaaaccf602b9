#pragma once
// An ordered environment (later entries win) and Kubernetes' $(VAR) expansion, used for env values,
// command and args exactly as the kubelet expands them.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmastack::sim {

class EnvList {
 public:
  // Replaces an existing entry of the same name in place, else appends.
  void Set(std::string name, std::string value);
  std::optional<std::string> Get(std::string_view name) const;
  // "NAME=value" in order.
  std::vector<std::string> ToStrings() const;
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// $(NAME) becomes NAME's value when `env` defines it and stays as written otherwise; $$ is a
// literal $; any other $ is kept.
std::string ExpandKubeVars(std::string_view input, const EnvList& env);

}  // namespace rdmastack::sim
