#include "lib/compat/compatibility.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "lib/compat/library_digest.h"

namespace rdmastack::compat {
namespace {

std::string JoinMajors(const std::vector<int>& majors) {
  if (majors.empty()) return "none";
  std::string out;
  for (int m : majors) out += (out.empty() ? "" : ", ") + std::to_string(m) + ".x";
  return out;
}

bool IsDottedNumber(std::string_view v) {
  if (v.empty() || v.front() == '.' || v.back() == '.' || v.find("..") != std::string_view::npos) {
    return false;
  }
  return std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

int LeadingNumber(std::string_view v) {
  int n = 0;
  for (char c : v) {
    if (c == '.') break;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Rejects keys outside `allowed`, so a typo is an error rather than a silently ignored field.
Status CheckKeys(const YAML::Node& node, std::initializer_list<std::string_view> allowed,
                 const std::string& where) {
  if (!node.IsMap()) return InvalidArgumentError(where + " must be a mapping");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return InvalidArgumentError(where + ": unknown key '" + key + "'");
    }
  }
  return OkStatus();
}

StatusOr<std::vector<int>> Majors(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsSequence()) return InvalidArgumentError(where + " must be a list of majors");
  std::vector<int> out;
  for (const auto& m : node) {
    int v = m.as<int>();
    if (v < 1 || v > 99)
      return InvalidArgumentError(where + ": major " + std::to_string(v) + " out of range");
    out.push_back(v);
  }
  return out;
}

std::string Required(const YAML::Node& node, const char* key, const std::string& where,
                     Status* status) {
  if (!node[key] || !node[key].IsScalar() || node[key].as<std::string>().empty()) {
    *status = InvalidArgumentError(where + ": '" + key + "' is required");
    return "";
  }
  return node[key].as<std::string>();
}

// A library entry's required `version`, a dotted number like 1.2.0.68.
StatusOr<std::string> LibraryVersion(const YAML::Node& node, const std::string& where) {
  Status st;
  std::string version = Required(node, "version", where, &st);
  RDMASTACK_RETURN_IF_ERROR(st);
  if (!IsDottedNumber(version)) {
    return InvalidArgumentError(where + ": version '" + version + "' is not like 1.2.0.68");
  }
  return version;
}

// The optional `sha256` of a library entry: "" when absent, else 64 lower-case hex digits.
StatusOr<std::string> OptionalSha256(const YAML::Node& node, const std::string& where) {
  if (!node["sha256"]) return std::string();
  const std::string hex = node["sha256"].IsScalar() ? node["sha256"].as<std::string>() : "";
  if (!IsSha256Hex(hex)) {
    return InvalidArgumentError(where + ": sha256 '" + hex +
                                "' is not 64 lower-case hex digits (sha256sum's output)");
  }
  return hex;
}

struct Parsed {
  std::vector<GatewayBuild> builds;
  std::vector<ServerLibrary> libs;
  std::vector<ClientInterop> clients;
  std::vector<ClientLibrary> client_libs;
};

Status ParseClientLibraries(const YAML::Node& list, std::vector<ClientLibrary>* out) {
  std::set<std::string> versions;
  for (const auto& l : list) {
    std::string where = "clientLibraries[" + std::to_string(out->size()) + "]";
    RDMASTACK_RETURN_IF_ERROR(CheckKeys(l, {"version", "sha256"}, where));
    ClientLibrary c;
    RDMASTACK_ASSIGN_OR_RETURN(c.version, LibraryVersion(l, where));
    if (!l["sha256"]) return InvalidArgumentError(where + ": 'sha256' is required");
    RDMASTACK_ASSIGN_OR_RETURN(c.sha256, OptionalSha256(l, where + " (" + c.version + ")"));
    if (!versions.insert(c.version).second) {
      return InvalidArgumentError("duplicate client library " + c.version);
    }
    out->push_back(std::move(c));
  }
  return OkStatus();
}

Status ParseInto(const YAML::Node& root, Parsed* out) {
  std::vector<GatewayBuild>* builds = &out->builds;
  std::vector<ServerLibrary>* libs = &out->libs;
  std::vector<ClientInterop>* clients = &out->clients;
  RDMASTACK_RETURN_IF_ERROR(CheckKeys(
      root,
      {"schemaVersion", "gatewayBuilds", "serverLibraries", "clientInterop", "clientLibraries"},
      "document"));
  if (!root["schemaVersion"] || root["schemaVersion"].as<int>() != 1) {
    return InvalidArgumentError("schemaVersion must be 1");
  }
  Status st;
  std::set<std::string> names;
  std::set<std::string> gateway_versions;
  for (const auto& b : root["gatewayBuilds"]) {
    std::string where = "gatewayBuilds[" + std::to_string(builds->size()) + "]";
    RDMASTACK_RETURN_IF_ERROR(CheckKeys(
        b, {"name", "versions", "description", "serverLibraryMajors", "evidence"}, where));
    GatewayBuild g;
    g.name = Required(b, "name", where, &st);
    RDMASTACK_RETURN_IF_ERROR(st);
    if (!names.insert(g.name).second)
      return InvalidArgumentError("duplicate gateway build " + g.name);
    if (const YAML::Node v = b["versions"]) {
      if (!v.IsSequence())
        return InvalidArgumentError(where + " (" + g.name + "): versions must be a list");
      for (const auto& item : v) {
        std::string version = item.as<std::string>();
        if (version.empty())
          return InvalidArgumentError(where + " (" + g.name + "): empty version");
        if (!gateway_versions.insert(version).second)
          return InvalidArgumentError("gateway version " + version + " is listed by two builds");
        g.versions.push_back(std::move(version));
      }
    }
    g.description = b["description"] ? b["description"].as<std::string>() : "";
    g.evidence = b["evidence"] ? b["evidence"].as<std::string>() : "";
    RDMASTACK_ASSIGN_OR_RETURN(g.server_library_majors,
                               Majors(b["serverLibraryMajors"], where + " (" + g.name + ")"));
    builds->push_back(std::move(g));
  }
  std::set<std::string> versions;
  for (const auto& l : root["serverLibraries"]) {
    std::string where = "serverLibraries[" + std::to_string(libs->size()) + "]";
    RDMASTACK_RETURN_IF_ERROR(CheckKeys(l, {"version", "major", "sha256"}, where));
    ServerLibrary s;
    RDMASTACK_ASSIGN_OR_RETURN(s.version, LibraryVersion(l, where));
    if (!l["major"]) return InvalidArgumentError(where + ": 'major' is required");
    s.major = l["major"].as<int>();
    if (LeadingNumber(s.version) != s.major) {
      return InvalidArgumentError(where + ": version " + s.version + " does not start with major " +
                                  std::to_string(s.major));
    }
    if (!versions.insert(s.version).second) {
      return InvalidArgumentError("duplicate server library " + s.version);
    }
    RDMASTACK_ASSIGN_OR_RETURN(s.sha256, OptionalSha256(l, where + " (" + s.version + ")"));
    libs->push_back(std::move(s));
  }
  for (const auto& c : root["clientInterop"]) {
    std::string where = "clientInterop[" + std::to_string(clients->size()) + "]";
    RDMASTACK_RETURN_IF_ERROR(CheckKeys(c, {"client", "serverMajors", "evidence"}, where));
    ClientInterop ci;
    ci.client_version_prefix = Required(c, "client", where, &st);
    RDMASTACK_RETURN_IF_ERROR(st);
    if (!IsDottedNumber(ci.client_version_prefix)) {
      return InvalidArgumentError(where + ": client '" + ci.client_version_prefix +
                                  "' is not a version prefix like 1.2");
    }
    ci.evidence = c["evidence"] ? c["evidence"].as<std::string>() : "";
    RDMASTACK_ASSIGN_OR_RETURN(ci.server_majors, Majors(c["serverMajors"], where));
    clients->push_back(std::move(ci));
  }
  return ParseClientLibraries(root["clientLibraries"], &out->client_libs);
}

}  // namespace

bool VersionHasPrefix(std::string_view version, std::string_view prefix) {
  if (prefix.empty() || version.size() < prefix.size() ||
      version.substr(0, prefix.size()) != prefix) {
    return false;
  }
  return version.size() == prefix.size() || version[prefix.size()] == '.';
}

StatusOr<CompatibilityMatrix> ParseCompatibility(std::string_view yaml_text) {
  CompatibilityMatrix m;
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    Parsed parsed;
    RDMASTACK_RETURN_IF_ERROR(ParseInto(root, &parsed));
    m.gateway_builds_ = std::move(parsed.builds);
    m.server_libraries_ = std::move(parsed.libs);
    m.client_interop_ = std::move(parsed.clients);
    m.client_libraries_ = std::move(parsed.client_libs);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("compatibility file: ") + e.what());
  }
  return m;
}

StatusOr<CompatibilityMatrix> LoadCompatibilityFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read compatibility file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  StatusOr<CompatibilityMatrix> m = ParseCompatibility(ss.str());
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

const GatewayBuild* CompatibilityMatrix::FindGatewayBuild(std::string_view name) const {
  for (const GatewayBuild& g : gateway_builds_) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

const GatewayBuild* CompatibilityMatrix::FindGatewayBuildForVersion(
    std::string_view version) const {
  for (const GatewayBuild& g : gateway_builds_) {
    if (std::find(g.versions.begin(), g.versions.end(), version) != g.versions.end()) return &g;
  }
  return FindGatewayBuild(version);
}

const ServerLibrary* CompatibilityMatrix::FindServerLibrary(std::string_view version) const {
  for (const ServerLibrary& s : server_libraries_) {
    if (s.version == version) return &s;
  }
  return nullptr;
}

const ClientLibrary* CompatibilityMatrix::FindClientLibrary(std::string_view version) const {
  for (const ClientLibrary& c : client_libraries_) {
    if (c.version == version) return &c;
  }
  return nullptr;
}

Status CompatibilityMatrix::CheckGatewayLibrary(std::string_view gateway_build,
                                                std::string_view library_version) const {
  const GatewayBuild* g = FindGatewayBuild(gateway_build);
  if (g == nullptr) {
    return NotFoundError("gateway build '" + std::string(gateway_build) +
                         "' is not in the compatibility file; add it or use a listed build");
  }
  const ServerLibrary* lib = FindServerLibrary(library_version);
  if (lib == nullptr) {
    return NotFoundError("server library " + std::string(library_version) +
                         " is not in the compatibility file; pin a listed version or add it");
  }
  const auto& majors = g->server_library_majors;
  if (std::find(majors.begin(), majors.end(), lib->major) == majors.end()) {
    return FailedPreconditionError("gateway build " + g->name + " links libcuobjserver " +
                                   JoinMajors(majors) + ", not " + lib->version + " (major " +
                                   std::to_string(lib->major) + ")");
  }
  return OkStatus();
}

Status CompatibilityMatrix::CheckClientServer(std::string_view client_version,
                                              int server_major) const {
  for (const ClientInterop& c : client_interop_) {
    if (!VersionHasPrefix(client_version, c.client_version_prefix)) continue;
    if (std::find(c.server_majors.begin(), c.server_majors.end(), server_major) !=
        c.server_majors.end()) {
      return OkStatus();
    }
    return FailedPreconditionError("client library " + std::string(client_version) +
                                   " is known to work with server " + JoinMajors(c.server_majors) +
                                   ", not " + std::to_string(server_major) + ".x");
  }
  return NotFoundError("client library " + std::string(client_version) +
                       " has no interoperability entry in the compatibility file");
}

}  // namespace rdmastack::compat
