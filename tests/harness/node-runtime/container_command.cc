#include "tests/harness/node-runtime/container_command.h"

namespace rdmastack::sim {
namespace {

std::vector<std::string> Strings(const k8s::JsonObject& container, const char* field,
                                 bool* present) {
  std::vector<std::string> out;
  const rapidjson::Value* v = container.Find({field});
  *present = v != nullptr && v->IsArray() && !v->Empty();
  if (!*present) return out;
  for (const auto& item : v->GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

}  // namespace

StatusOr<std::vector<std::string>> ContainerArgv(const k8s::JsonObject& container,
                                                 const ImageSpec& image, const EnvList& env) {
  bool has_command = false, has_args = false;
  std::vector<std::string> command = Strings(container, "command", &has_command);
  std::vector<std::string> args = Strings(container, "args", &has_args);
  std::vector<std::string> argv;
  if (has_command) {
    for (const std::string& c : command) argv.push_back(ExpandKubeVars(c, env));
  } else {
    argv = image.entrypoint;
  }
  if (has_args) {
    for (const std::string& a : args) argv.push_back(ExpandKubeVars(a, env));
  } else if (!has_command) {
    argv.insert(argv.end(), image.cmd.begin(), image.cmd.end());
  }
  if (argv.empty()) {
    return InvalidArgumentError(
        "no command specified: the container has no command or args and "
        "image " +
        image.names.front() + " has no entrypoint or cmd");
  }
  return argv;
}

}  // namespace rdmastack::sim
