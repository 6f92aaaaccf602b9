#include "base/flag_reader.h"

namespace rdmastack {

StatusOr<FlagValue> ReadFlag(const std::vector<std::string>& args, size_t* i,
                             const std::set<std::string>& boolean_flags) {
  FlagValue out{args[*i], ""};
  ++*i;
  const bool is_boolean = [&] {
    const size_t eq = out.flag.find('=');
    return boolean_flags.count(eq == std::string::npos ? out.flag : out.flag.substr(0, eq)) != 0;
  }();
  if (const size_t eq = out.flag.find('=');
      out.flag.rfind("--", 0) == 0 && eq != std::string::npos) {
    out.value = out.flag.substr(eq + 1);
    out.flag.resize(eq);
    if (is_boolean && out.value != "true" && out.value != "false") {
      return InvalidArgumentError(out.flag + " is true or false, not '" + out.value + "'");
    }
    return out;
  }
  if (is_boolean) {
    out.value = "true";
    return out;
  }
  if (*i >= args.size()) return InvalidArgumentError(out.flag + " needs a value");
  out.value = args[(*i)++];
  return out;
}

}  // namespace rdmastack
