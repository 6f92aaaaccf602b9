#pragma once
// The must-gather bundle before it is archived: where each thing goes (the layout, pure and
// unit-tested), what was gathered (counts per step) and what failed (one line each, with the
// API's own error), and the SUMMARY.md that says all of it inside the archive.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/resource.h"

namespace rdmastack::plugin::bundle {

// ---- layout: every path is relative to the archive's top folder ----
// "rdmastack-must-gather-20261205T103500Z" for unix time `now` (UTC).
std::string RootName(int64_t now);
// A name or namespace as a path part: anything outside [A-Za-z0-9._-] becomes '_' (Kubernetes
// names never hold it; a hostile or broken one cannot climb out of its folder).
std::string SafePart(std::string_view part);
// objects/<resource.group>/<namespace>/<name>.json, or objects/<resource.group>/<name>.json for a
// cluster-scoped kind: objects/gatewaypools.rdmastack.io/ml/archive.json, objects/pods/ns/p.json.
std::string ObjectFile(const k8s::ResourceType& type, std::string_view ns, std::string_view name);
// logs/<namespace>/<pod>/<container>.log, or <container>.previous.log for the run before.
std::string LogPath(std::string_view ns, std::string_view pod, std::string_view container,
                    bool previous);
std::string EventsPath(std::string_view ns);  // events/namespaces/<ns>.json
inline constexpr char kNodeEventsPath[] = "events/nodes.json";
std::string NodePath(std::string_view node);   // nodes/<node>.json
std::string SecretsPath(std::string_view ns);  // secrets/<ns>.json (names, types, keys)
std::string HelmPath(std::string_view ns, std::string_view release,
                     std::string_view file);  // helm/<ns>/<release>/<file>
inline constexpr char kVersionsPath[] = "versions.json";
inline constexpr char kCrdsPath[] = "crds.json";
inline constexpr char kSummaryPath[] = "SUMMARY.md";

// Whether a label or annotation key belongs to rdmastack: its prefix is rdmastack.io or ends in
// .rdmastack.io (rdmastack.io/gateway-capable, gwp.rdmastack.io/..., upgrade.gwp.rdmastack.io/...).
bool IsRdmastackKey(std::string_view key);

struct Failure {
  std::string step;   // "logs", "secrets", ...
  std::string what;   // "rdmastack-system/rdmastack-operator-x/operator (current)"
  std::string error;  // the API's text, or why
};

// What the run gathered and where it failed. Files are added as they come; Finish() scrubs every
// file with the Secrets' values, adds SUMMARY.md and returns the archive's entries.
class Bundle {
 public:
  Bundle(std::string root, std::map<std::string, std::string> header)
      : root_(std::move(root)), header_(std::move(header)) {}

  void Add(const std::string& path, std::string content);
  void AddJson(const std::string& path, const k8s::JsonObject& object);
  void Fail(std::string step, std::string what, std::string error);
  // One line of the summary's table: step, and what it found ("3 GatewayPools, 1 ClientProfile").
  void Note(std::string step, std::string found);
  // Redactions done while gathering (RedactObject, RedactValues), for the summary.
  void CountRedactions(int n) { redactions_ += n; }

  const std::vector<Failure>& failures() const { return failures_; }
  size_t file_count() const { return files_.size(); }
  const std::string& root() const { return root_; }

  std::vector<ArchiveEntry> Finish(const SecretScrubber& scrubber);

 private:
  std::string root_;
  std::map<std::string, std::string> header_;  // cluster, time, plugin version, scope
  std::map<std::string, std::string> files_;
  std::vector<std::pair<std::string, std::string>> notes_;
  std::vector<Failure> failures_;
  int redactions_ = 0;
};

// SUMMARY.md: the header, the table of steps, every failure, the file list, what is never in a
// bundle. Pure.
std::string RenderSummary(const std::map<std::string, std::string>& header,
                          const std::vector<std::pair<std::string, std::string>>& notes,
                          const std::vector<Failure>& failures,
                          const std::vector<std::string>& files, int redactions,
                          size_t scrubbed_values, int scrubbed);

}  // namespace rdmastack::plugin::bundle
