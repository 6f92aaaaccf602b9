#include "cli/kubectl-rdmastack/must_gather/bundle.h"

#include <cctype>
#include <ctime>

namespace rdmastack::plugin::bundle {

std::string RootName(int64_t now) {
  const std::time_t t = static_cast<std::time_t>(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return std::string("rdmastack-must-gather-") + buf;
}

std::string SafePart(std::string_view part) {
  std::string out;
  for (char c : part) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

std::string ObjectFile(const k8s::ResourceType& type, std::string_view ns, std::string_view name) {
  std::string path = "objects/" + SafePart(type.GroupResource()) + "/";
  if (type.namespaced) path += SafePart(ns) + "/";
  return path + SafePart(name) + ".json";
}

std::string LogPath(std::string_view ns, std::string_view pod, std::string_view container,
                    bool previous) {
  return "logs/" + SafePart(ns) + "/" + SafePart(pod) + "/" + SafePart(container) +
         (previous ? ".previous.log" : ".log");
}

std::string EventsPath(std::string_view ns) {
  return "events/namespaces/" + SafePart(ns) + ".json";
}
std::string NodePath(std::string_view node) {
  return "nodes/" + SafePart(node) + ".json";
}
std::string SecretsPath(std::string_view ns) {
  return "secrets/" + SafePart(ns) + ".json";
}
std::string HelmPath(std::string_view ns, std::string_view release, std::string_view file) {
  return "helm/" + SafePart(ns) + "/" + SafePart(release) + "/" + std::string(file);
}

bool IsRdmastackKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view prefix = key.substr(0, slash);
  constexpr std::string_view kDomain = "rdmastack.io";
  return prefix == kDomain ||
         (prefix.size() > kDomain.size() + 1 &&
          prefix.substr(prefix.size() - kDomain.size() - 1) == ".rdmastack.io");
}

void Bundle::Add(const std::string& path, std::string content) {
  files_[path] = std::move(content);
}

void Bundle::AddJson(const std::string& path, const k8s::JsonObject& object) {
  Add(path, object.SerializePretty() + "\n");
}

void Bundle::Fail(std::string step, std::string what, std::string error) {
  failures_.push_back({std::move(step), std::move(what), std::move(error)});
}

void Bundle::Note(std::string step, std::string found) {
  notes_.emplace_back(std::move(step), std::move(found));
}

std::vector<ArchiveEntry> Bundle::Finish(const SecretScrubber& scrubber) {
  int scrubbed = 0;
  std::vector<std::string> names;
  for (auto& [path, content] : files_) {
    content = scrubber.Scrub(content, &scrubbed);
    names.push_back(path);
  }
  // Failure texts come from the API server and may quote what they refused.
  for (Failure& f : failures_) f.error = scrubber.Scrub(RedactText(f.error), &scrubbed);
  files_[kSummaryPath] =
      RenderSummary(header_, notes_, failures_, names, redactions_, scrubber.size(), scrubbed);
  std::vector<ArchiveEntry> entries;
  for (auto& [path, content] : files_) entries.push_back({root_ + "/" + path, std::move(content)});
  files_.clear();
  return entries;
}

std::string RenderSummary(const std::map<std::string, std::string>& header,
                          const std::vector<std::pair<std::string, std::string>>& notes,
                          const std::vector<Failure>& failures,
                          const std::vector<std::string>& files, int redactions,
                          size_t scrubbed_values, int scrubbed) {
  std::string out = "# rdmastack must-gather\n\n";
  for (const auto& [key, value] : header) out += "- " + key + ": " + value + "\n";
  out += "\n## Gathered\n\n| step | found |\n|---|---|\n";
  for (const auto& [step, found] : notes) out += "| " + step + " | " + found + " |\n";
  out += "\n## Failures (" + std::to_string(failures.size()) + ")\n\n";
  if (failures.empty()) out += "None: every step got what it asked for.\n";
  for (const Failure& f : failures) out += "- " + f.step + ": " + f.what + ": " + f.error + "\n";
  out += "\n## Redaction\n\n";
  out += "- Secrets: names, types and key names only (secrets/); never a value.\n";
  out += "- " + std::to_string(redactions) + (redactions == 1 ? " value" : " values") +
         " replaced by key while gathering (credential-looking helm values, env literals "
         "and arguments; kubectl's last-applied-configuration annotations dropped).\n";
  out += "- " + std::to_string(scrubbed) + " occurrences of " + std::to_string(scrubbed_values) +
         " known Secret values (raw, base64, JSON-escaped) replaced across all files.\n";
  out += "\n## Files (" + std::to_string(files.size() + 1) + ")\n\n";
  for (const std::string& f : files) out += "- " + f + "\n";
  out += "- " + std::string(kSummaryPath) + "\n";
  return out;
}

}  // namespace rdmastack::plugin::bundle
