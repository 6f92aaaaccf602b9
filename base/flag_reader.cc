#include "base/flag_reader.h"

namespace rdmastack {

StatusOr<FlagValue> ReadFlag(const std::vector<std::string>& args, size_t* i,
                             const std::set<std::string>& boolean_flags) {
  FlagValue out{args[*i], ""};
  ++*i;
  if (const size_t eq = out.flag.find('=');
      out.flag.rfind("--", 0) == 0 && eq != std::string::npos) {
    out.value = out.flag.substr(eq + 1);
    out.flag.resize(eq);
    if (boolean_flags.count(out.flag) != 0) {
      return InvalidArgumentError(out.flag + " takes no value");
    }
    return out;
  }
  if (boolean_flags.count(out.flag) != 0) return out;
  if (*i >= args.size()) return InvalidArgumentError(out.flag + " needs a value");
  out.value = args[(*i)++];
  return out;
}

}  // namespace rdmastack
