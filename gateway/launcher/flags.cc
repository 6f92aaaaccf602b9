#include "gateway/launcher/flags.h"

#include <charconv>
#include <set>

#include "base/flag_reader.h"

namespace rdmastack::gateway {

Environment EnvironmentFromEnviron(char** envp) {
  Environment env;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

std::string FirstNonEmpty(const Environment& env, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (auto it = env.find(n); it != env.end() && !it->second.empty()) return it->second;
  }
  return "";
}

std::optional<std::string> ParsedFlags::Get(const std::string& name) const {
  if (auto it = values.find(name); it != values.end()) return it->second;
  if (auto it = from_env.find(name); it != from_env.end()) return it->second;
  return std::nullopt;
}

bool ParsedFlags::Switch(const std::string& name) const {
  std::optional<std::string> v = Get(name);
  return v && (*v == "true" || *v == "1");
}

StatusOr<ParsedFlags> ParseFlags(const std::vector<FlagSpec>& specs,
                                 const std::vector<std::string>& args, const Environment& env) {
  auto find = [&](const std::string& name) -> const FlagSpec* {
    for (const FlagSpec& s : specs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  std::set<std::string> switches;
  for (const FlagSpec& s : specs) {
    if (s.is_switch) switches.insert("--" + s.name);
  }
  ParsedFlags out;
  for (size_t i = 0; i < args.size();) {
    if (args[i].rfind("--", 0) != 0 || args[i].size() == 2) {
      return InvalidArgumentError("unexpected argument '" + args[i] +
                                  "'; flags look like --name value");
    }
    const std::string name = args[i].substr(2, args[i].find('=') - 2);
    if (find(name) == nullptr)
      return InvalidArgumentError("unknown flag --" + name + "; see --help");
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, switches));
    out.values[name] = std::move(next.value);
  }
  for (const FlagSpec& s : specs) {
    if (s.env.empty()) continue;
    if (auto it = env.find(s.env); it != env.end() && !it->second.empty()) {
      out.from_env[s.name] = it->second;
    }
  }
  return out;
}

std::string FlagUsage(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const FlagSpec& s : specs) {
    std::string left = "  --" + s.name + (s.is_switch ? "" : " VALUE");
    if (left.size() < 30) left.resize(30, ' ');
    out += left + " " + s.help + (s.env.empty() ? "" : " [$" + s.env + "]") + "\n";
  }
  return out;
}

StatusOr<uint64_t> ParseUnsigned(const std::string& what, const std::string& text, uint64_t min,
                                 uint64_t max) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min ||
      value > max) {
    return InvalidArgumentError(what + " '" + text + "' must be a whole number in [" +
                                std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

}  // namespace rdmastack::gateway
