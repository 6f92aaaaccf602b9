#include "tests/harness/node-runtime/env_list.h"

namespace rdmastack::sim {

void EnvList::Set(std::string name, std::string value) {
  for (auto& [n, v] : entries_) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string> EnvList::Get(std::string_view name) const {
  for (const auto& [n, v] : entries_) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::vector<std::string> EnvList::ToStrings() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [n, v] : entries_) out.push_back(n + "=" + v);
  return out;
}

std::string ExpandKubeVars(std::string_view input, const EnvList& env) {
  std::string out;
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] != '$' || i + 1 >= input.size()) {
      out.push_back(input[i]);
      continue;
    }
    if (input[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    if (input[i + 1] == '(') {
      size_t close = input.find(')', i + 2);
      if (close != std::string_view::npos) {
        std::string_view name = input.substr(i + 2, close - i - 2);
        if (std::optional<std::string> value = env.Get(name)) {
          out += *value;
        } else {
          out.append(input.substr(i, close - i + 1));
        }
        i = close;
        continue;
      }
    }
    out.push_back('$');
  }
  return out;
}

}  // namespace rdmastack::sim
