#include "tests/harness/audit_log.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include "operator/k8s/json_object.h"

namespace rdmastack::testing {
namespace {

// "2026-12-01T04:50:01.123456Z"
std::chrono::system_clock::time_point ParseMicroTime(const std::string& text) {
  std::tm tm{};
  int micros = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &micros) < 6) {
    return {};
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::microseconds(micros);
}

bool IsWrite(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

// `started`: also requests still running (a watch logs ResponseStarted when it opens), each once.
void ReadFile(const std::string& path, bool writes_only, bool started, std::set<std::string>& seen,
              std::vector<AuditedWrite>& out) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto event = k8s::JsonObject::Parse(line);
    if (!event.ok()) continue;
    const std::string stage = event->GetString({"stage"}).value_or("");
    if (stage != "ResponseComplete" && !(started && stage == "ResponseStarted")) continue;
    if (started && !seen.insert(event->GetString({"auditID"}).value_or("")).second) continue;
    AuditedWrite w;
    w.verb = event->GetString({"verb"}).value_or("");
    if (writes_only && !IsWrite(w.verb)) continue;
    w.resource = event->GetString({"objectRef", "resource"}).value_or("");
    w.namespace_ = event->GetString({"objectRef", "namespace"}).value_or("");
    w.name = event->GetString({"objectRef", "name"}).value_or("");
    w.user_agent = event->GetString({"userAgent"}).value_or("");
    w.user = event->GetString({"user", "username"}).value_or("");
    w.api_group = event->GetString({"objectRef", "apiGroup"}).value_or("");
    w.subresource = event->GetString({"objectRef", "subresource"}).value_or("");
    w.code = static_cast<int>(event->GetInt({"responseStatus", "code"}).value_or(0));
    w.annotations = event->GetStringMap({"annotations"});
    w.received = ParseMicroTime(event->GetString({"requestReceivedTimestamp"}).value_or(""));
    out.push_back(std::move(w));
  }
}

// The API server rotates audit.log into audit-<timestamp>.log beside it (a 5,000-node run fills
// one in minutes); the rotated files sort oldest first by name and all precede the live one.
std::vector<std::filesystem::path> AuditLogFiles(const std::filesystem::path& live) {
  std::vector<std::filesystem::path> files;
  const std::string prefix = live.stem().string() + "-";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(live.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && entry.path().extension() == live.extension()) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  files.push_back(live);
  return files;
}

std::vector<AuditedWrite> ReadLog(bool writes_only, bool started = false) {
  std::vector<AuditedWrite> out;
  const char* path = std::getenv("RDMASTACK_AUDIT_LOG");
  if (path == nullptr || *path == '\0') return out;
  std::set<std::string> seen;
  for (const auto& file : AuditLogFiles(path)) ReadFile(file, writes_only, started, seen, out);
  return out;
}

}  // namespace

std::vector<AuditedWrite> ReadAuditedWrites() {
  return ReadLog(true);
}
std::vector<AuditedWrite> ReadAuditedRequests() {
  return ReadLog(false);
}
std::vector<AuditedWrite> ReadAuditedRequestsReceived() {
  return ReadLog(false, true);
}

std::vector<AuditedWrite> WritesByAgent(const std::vector<AuditedWrite>& all,
                                        const std::string& needle) {
  std::vector<AuditedWrite> out;
  for (const auto& w : all) {
    const bool review = w.resource.size() >= 7 && w.resource.ends_with("reviews");
    if (!review && w.user_agent.find(needle) != std::string::npos) out.push_back(w);
  }
  return out;
}

int CountAudited(const std::vector<AuditedWrite>& all, const std::string& verb,
                 const std::string& resource, const std::string& user_agent) {
  int n = 0;
  for (const auto& w : all) {
    n += w.verb == verb && w.resource == resource && w.user_agent == user_agent;
  }
  return n;
}

}  // namespace rdmastack::testing
