#pragma once
// Reads command-line flags one at a time, the one grammar of every rdmastack binary but the
// kubectl plugin (whose kubectl-style short flags and positional words are its own): a value flag
// as `--flag value` or `--flag=value`; a boolean flag alone (true) or as `--flag=true|false`.

#include <set>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack {

struct FlagValue {
  std::string flag;   // "--root", as written before any '='
  std::string value;  // a boolean flag's is "true" or "false"
};

// The flag at args[*i], advancing *i past it (and past a separate value). `boolean_flags` names
// the flags that take no separate value. An argument that is no flag comes back as the flag, for
// the caller to refuse in its own words.
StatusOr<FlagValue> ReadFlag(const std::vector<std::string>& args, size_t* i,
                             const std::set<std::string>& boolean_flags);

}  // namespace rdmastack
