#pragma once
// Reads the agent's command-line flags one at a time, as `--flag value` or `--flag=value`; a
// boolean flag stands alone. Shared by `check` and `run` so that both accept the same forms.

#include <set>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack {

struct FlagValue {
  std::string flag;   // "--root"
  std::string value;  // "" for a boolean flag
};

// The flag at args[*i], advancing *i past it (and past a separate value).
StatusOr<FlagValue> ReadFlag(const std::vector<std::string>& args, size_t* i,
                             const std::set<std::string>& boolean_flags);

}  // namespace rdmastack
