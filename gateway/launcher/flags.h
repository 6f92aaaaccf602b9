#pragma once
// A small "--name value" / "--name=value" / "--switch" parser where every flag may also come from
// an environment variable (flag wins). Values that configure a pod arrive through env from the
// DaemonSet; humans on a node use flags.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::gateway {

using Environment = std::map<std::string, std::string>;

Environment EnvironmentFromEnviron(char** envp);

// Value of the first of `names` that is set and non-empty, else "" (for variables with aliases,
// such as ROOT_ACCESS_KEY_ID / ROOT_ACCESS_KEY).
std::string FirstNonEmpty(const Environment& env, std::initializer_list<const char*> names);

struct FlagSpec {
  std::string name;  // without dashes
  std::string env;   // "" = flag only
  bool is_switch = false;
  std::string help;
};

class ParsedFlags {
 public:
  // Flag value, else env value, else nullopt. Empty env values count as unset.
  std::optional<std::string> Get(const std::string& name) const;
  bool Switch(const std::string& name) const;
  std::map<std::string, std::string> values;    // from the command line
  std::map<std::string, std::string> from_env;  // resolved env fallbacks
};

StatusOr<ParsedFlags> ParseFlags(const std::vector<FlagSpec>& specs,
                                 const std::vector<std::string>& args, const Environment& env);

std::string FlagUsage(const std::vector<FlagSpec>& specs);

// Decimal unsigned value of a named flag within [min, max]; message names flag and env.
StatusOr<uint64_t> ParseUnsigned(const std::string& what, const std::string& text, uint64_t min,
                                 uint64_t max);

}  // namespace rdmastack::gateway
