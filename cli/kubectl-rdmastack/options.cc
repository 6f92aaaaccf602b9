#include "cli/kubectl-rdmastack/options.h"

#include <optional>
#include <string_view>

namespace rdmastack::plugin {
namespace {

struct ValueFlag {
  std::string_view long_name;   // "--namespace"
  std::string_view short_name;  // "-n", or "" when there is none
  std::string Options::*field;
};

// --output is kept apart: its value is checked.
constexpr std::string_view kOutputLong = "--output";
constexpr std::string_view kOutputShort = "-o";

const ValueFlag kValueFlags[] = {
    {"--kubeconfig", "", &Options::kubeconfig},
    {"--context", "", &Options::context},
    {"--namespace", "-n", &Options::namespace_},
    {"--operator-namespace", "", &Options::operator_namespace},
    {"--bucket", "", &Options::bench_bucket},
    {"--node", "", &Options::bench_node},
    {"--size", "", &Options::bench_size},
    {"--streams", "", &Options::bench_streams},
    {"--objects-per-stream", "", &Options::bench_objects},
    {"--timeout", "", &Options::bench_timeout},
};
constexpr std::string_view kPodLabel = "--pod-label";

// The value of the flag at args[*i] when it is `name`: "--name=v", "--name v", and for a short
// name also "-nv". Advances *i past a separate value. nullopt when args[*i] is another flag.
StatusOr<std::optional<std::string>> TakeValue(const std::vector<std::string>& args, size_t* i,
                                               std::string_view long_name,
                                               std::string_view short_name) {
  const std::string& arg = args[*i];
  for (std::string_view name : {long_name, short_name}) {
    if (name.empty() || arg.compare(0, name.size(), name) != 0) continue;
    const std::string_view rest = std::string_view(arg).substr(name.size());
    if (rest.empty()) {
      if (*i + 1 >= args.size()) return InvalidArgumentError("flag " + arg + " needs a value");
      *i += 1;
      return std::optional<std::string>(args[*i]);
    }
    if (rest.front() == '=') return std::optional<std::string>(std::string(rest.substr(1)));
    // "-nprod" is kubectl's short form; "--namespacefoo" is not a flag of ours.
    if (name == short_name) return std::optional<std::string>(std::string(rest));
  }
  return std::optional<std::string>();
}

StatusOr<Command> ParseCommand(std::string_view word) {
  if (word == "status") return Command::kStatus;
  if (word == "why") return Command::kWhy;
  if (word == "upgrade") return Command::kUpgrade;
  if (word == "must-gather") return Command::kMustGather;
  if (word == "bench") return Command::kBench;
  if (word == "version") return Command::kVersion;
  if (word == "help") return Command::kHelp;
  return InvalidArgumentError("unknown command \"" + std::string(word) + "\"");
}

}  // namespace

StatusOr<Options> ParseOptions(const std::vector<std::string>& args) {
  Options options;
  std::vector<std::string> words;
  bool help = false;
  bool all_namespaces = false;
  std::optional<std::string> output;  // checked once the command is known
  bool bench_flags = false;           // a flag only bench takes was given
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      help = true;
      continue;
    }
    if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (arg == "-A" || arg == "--all-namespaces") {
      all_namespaces = true;
      continue;
    }
    if (arg == "--version") {
      words.insert(words.begin(), "version");
      continue;
    }
    if (arg == "--") {
      words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg.front() != '-') {
      words.push_back(arg);
      continue;
    }
    bool matched = false;
    for (const ValueFlag& flag : kValueFlags) {
      RDMASTACK_ASSIGN_OR_RETURN(auto value, TakeValue(args, &i, flag.long_name, flag.short_name));
      if (!value) continue;
      if (value->empty()) return InvalidArgumentError("flag " + arg + " needs a value");
      options.*flag.field = std::move(*value);
      matched = true;
      break;
    }
    if (matched) continue;
    RDMASTACK_ASSIGN_OR_RETURN(auto label, TakeValue(args, &i, kPodLabel, ""));
    if (label) {
      const size_t eq = label->find('=');
      if (eq == std::string::npos || eq == 0)
        return InvalidArgumentError("--pod-label needs KEY=VALUE, got \"" + *label + "\"");
      options.pod_labels[label->substr(0, eq)] = label->substr(eq + 1);
      bench_flags = true;
      continue;
    }
    RDMASTACK_ASSIGN_OR_RETURN(auto value, TakeValue(args, &i, kOutputLong, kOutputShort));
    if (!value) return InvalidArgumentError("unknown flag " + arg);
    if (value->empty()) return InvalidArgumentError("flag " + arg + " needs a value");
    output = std::move(*value);
  }

  if (words.empty()) {
    // A bare `kubectl rdmastack` (or with --help) prints the usage.
    options.command = Command::kHelp;
    return options;
  }
  RDMASTACK_ASSIGN_OR_RETURN(options.command, ParseCommand(words.front()));
  if (help || options.command == Command::kHelp) {
    options.command = Command::kHelp;  // `help why` is as good as `why --help`
    return options;
  }
  const size_t want = options.command == Command::kWhy || options.command == Command::kUpgrade ||
                      options.command == Command::kBench;
  if (words.size() - 1 < want) {
    return InvalidArgumentError(
        options.command == Command::kWhy       ? "why needs a node name: kubectl rdmastack why NODE"
        : options.command == Command::kUpgrade ? "upgrade needs a pool name: kubectl rdmastack "
                                                 "upgrade POOL"
                                               : "bench needs a ClientProfile name: kubectl "
                                                 "rdmastack bench PROFILE -n NS");
  }
  for (const std::string* v :
       {&options.bench_bucket, &options.bench_node, &options.bench_size, &options.bench_streams,
        &options.bench_objects, &options.bench_timeout})
    bench_flags = bench_flags || !v->empty();
  if (bench_flags && options.command != Command::kBench)
    return InvalidArgumentError(
        "--bucket, --node, --size, --streams, --objects-per-stream, "
        "--timeout and --pod-label are flags of bench only");
  if (words.size() - 1 > want) {
    return InvalidArgumentError("unexpected argument \"" + words[want + 1] + "\" after " +
                                words.front());
  }
  if (want == 1) options.argument = words[1];
  if (output) {
    // -o is the output format everywhere but must-gather, whose output is an archive: there it
    // names the directory the archive goes to.
    if (options.command == Command::kMustGather) {
      options.output_dir = *output;
    } else if (*output == "table") {
      options.output = OutputFormat::kTable;
    } else if (*output == "json") {
      options.output = OutputFormat::kJson;
    } else {
      return InvalidArgumentError("--output must be table or json, not \"" + *output + "\"");
    }
  }
  if (all_namespaces) {
    if (options.command == Command::kUpgrade || options.command == Command::kBench)
      return InvalidArgumentError(std::string(options.command == Command::kUpgrade
                                                  ? "upgrade looks at one pool"
                                                  : "bench runs one profile") +
                                  ": give its namespace with -n, not -A");
    // must-gather: every namespace is its default, as for status.
    options.namespace_.clear();  // as kubectl: -A wins over -n
  }
  return options;
}

}  // namespace rdmastack::plugin
