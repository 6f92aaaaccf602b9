#pragma once
// The compatibility data file (gateway/compatibility.yaml): which gateway builds link which
// libcuobjserver major, and which client library versions interoperate with which server majors.
// Pure: parsing and queries only; the operator and the launcher both use it.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::compat {

struct GatewayBuild {
  std::string name;
  // GatewayPool spec.gateway.version values that name this build ("1.8.0", "1.8.0-cuobj2").
  std::vector<std::string> versions;
  std::string description;
  std::vector<int> server_library_majors;  // empty: HTTP-only build
  std::string evidence;                    // field | upstream | inferred
};

struct ServerLibrary {
  std::string version;  // 1.2.0.68
  int major = 0;
  // Lower-case hex sha256 of libcuobjserver.so.<version>; "" = the file's bytes are not pinned.
  std::string sha256;
};

// A libcuobjclient release whose file bytes are pinned (clientLibraries).
struct ClientLibrary {
  std::string version;  // 1.2.0.68
  std::string sha256;   // of libcuobjclient.so.<version>, lower-case hex
};

struct ClientInterop {
  std::string client_version_prefix;  // "1.2"
  std::vector<int> server_majors;
  std::string evidence;
};

class CompatibilityMatrix {
 public:
  const std::vector<GatewayBuild>& gateway_builds() const { return gateway_builds_; }
  const std::vector<ServerLibrary>& server_libraries() const { return server_libraries_; }
  const std::vector<ClientInterop>& client_interop() const { return client_interop_; }
  const std::vector<ClientLibrary>& client_libraries() const { return client_libraries_; }

  const GatewayBuild* FindGatewayBuild(std::string_view name) const;
  // The build a GatewayPool's gateway.version names: one listing it under `versions`, else the
  // build of that name; null when neither.
  const GatewayBuild* FindGatewayBuildForVersion(std::string_view version) const;
  const ServerLibrary* FindServerLibrary(std::string_view version) const;
  const ClientLibrary* FindClientLibrary(std::string_view version) const;

  // OK when the build links the library's major and the library version is listed.
  Status CheckGatewayLibrary(std::string_view gateway_build,
                             std::string_view library_version) const;
  // OK when a listed client prefix matches and includes the server major.
  Status CheckClientServer(std::string_view client_version, int server_major) const;

 private:
  friend StatusOr<CompatibilityMatrix> ParseCompatibility(std::string_view yaml_text);
  std::vector<GatewayBuild> gateway_builds_;
  std::vector<ServerLibrary> server_libraries_;
  std::vector<ClientInterop> client_interop_;
  std::vector<ClientLibrary> client_libraries_;
};

// Strict: unknown keys, duplicate names, malformed versions and majors are errors naming the entry.
StatusOr<CompatibilityMatrix> ParseCompatibility(std::string_view yaml_text);
StatusOr<CompatibilityMatrix> LoadCompatibilityFile(const std::string& path);

// "1.2" is a prefix of "1.2.0.68" by components (not of "1.20.0").
bool VersionHasPrefix(std::string_view version, std::string_view prefix);

}  // namespace rdmastack::compat
