#include "tests/harness/node-runtime/pod_volumes.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace rdmastack::sim {
namespace fs = std::filesystem;
namespace {

constexpr int kDefaultMode = 0644;

int ModeOf(const k8s::JsonObject& obj, int fallback) {
  return static_cast<int>(
      obj.GetInt({"mode"}).value_or(obj.GetInt({"defaultMode"}).value_or(fallback)));
}

// The files of a ConfigMap or Secret source: every key, or just `items` (key -> path).
StatusOr<VolumePayload> KeyFiles(const DataMap& data, const k8s::JsonObject& source, int mode,
                                 const std::string& what) {
  VolumePayload payload;
  const std::vector<k8s::JsonObject> items = source.GetArray({"items"});
  if (items.empty()) {
    for (const auto& [key, value] : data) payload[key] = {value, mode};
    return payload;
  }
  for (const k8s::JsonObject& item : items) {
    const std::string key = item.GetString({"key"}).value_or("");
    auto it = data.find(key);
    if (it == data.end()) {
      if (source.GetBool({"optional"}).value_or(false)) continue;
      return NotFoundError("couldn't find key " + key + " in " + what);
    }
    payload[item.GetString({"path"}).value_or(key)] = {it->second, ModeOf(item, mode)};
  }
  return payload;
}

StatusOr<VolumePayload> ObjectFiles(ObjectReader& reader, const std::string& ns,
                                    const k8s::JsonObject& source, bool secret, int mode) {
  const std::string name =
      source.GetString({secret && source.Has({"secretName"}) ? "secretName" : "name"}).value_or("");
  StatusOr<DataMap> data = secret ? reader.Secret(ns, name) : reader.ConfigMap(ns, name);
  if (!data.ok()) {
    if (source.GetBool({"optional"}).value_or(false) &&
        data.status().code() == StatusCode::kNotFound) {
      return VolumePayload{};
    }
    return data.status();
  }
  return KeyFiles(*data, source, mode,
                  std::string(secret ? "Secret " : "ConfigMap ") + ns + "/" + name);
}

StatusOr<VolumePayload> DownwardFiles(const PodFacts& facts, const k8s::JsonObject& source,
                                      int mode) {
  VolumePayload payload;
  for (const k8s::JsonObject& item : source.GetArray({"items"})) {
    const std::string path = item.GetString({"path"}).value_or("");
    const auto field = item.GetString({"fieldRef", "fieldPath"});
    if (!field) {
      return InvalidArgumentError("downwardAPI item " + path +
                                  ": only fieldRef is supported by the simulated node runtime");
    }
    RDMASTACK_ASSIGN_OR_RETURN(std::string value, ResolveFieldRef(facts, *field));
    payload[path] = {value, ModeOf(item, mode)};
  }
  return payload;
}

Status CheckHostPathType(const std::string& path, const std::string& type) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  auto want = [&](bool ok, const char* what) {
    return ok ? OkStatus()
              : FailedPreconditionError("hostPath type check failed: " + path + " is not " + what);
  };
  if (type.empty()) {
    if (!fs::exists(st)) fs::create_directories(path, ec);  // as Docker does for a missing source
    return ec ? InternalError("create " + path + ": " + ec.message()) : OkStatus();
  }
  if (type == "DirectoryOrCreate") {
    fs::create_directories(path, ec);
    return ec ? InternalError("create " + path + ": " + ec.message()) : OkStatus();
  }
  if (type == "FileOrCreate") {
    if (fs::exists(st)) return want(!fs::is_directory(st), "a file");
    fs::create_directories(fs::path(path).parent_path(), ec);
    std::ofstream(path, std::ios::app).close();
    return fs::exists(path) ? OkStatus() : InternalError("create " + path);
  }
  if (type == "Directory") return want(fs::is_directory(st), "a directory");
  if (type == "File") return want(fs::is_regular_file(st), "a file");
  if (type == "Socket") return want(fs::is_socket(st), "a socket");
  if (type == "CharDevice") return want(fs::is_character_file(st), "a character device");
  if (type == "BlockDevice") return want(fs::is_block_file(st), "a block device");
  return InvalidArgumentError("hostPath type " + type + " is not known");
}

}  // namespace

StatusOr<std::string> HostPathBelowRoot(const std::string& root, const std::string& path) {
  if (path.empty() || path.front() != '/') {
    return InvalidArgumentError("hostPath path '" + path + "' is not absolute");
  }
  // An absolute path normalises without "..": "/../etc" is "/etc", on a host as here.
  std::string joined = root + fs::path(path).lexically_normal().string();
  while (joined.size() > 1 && joined.back() == '/') joined.pop_back();
  return joined;
}

Status PodVolumes::Sync(const PodFacts& facts) {
  for (const k8s::JsonObject& volume : facts.pod->GetArray({"spec", "volumes"})) {
    Status s = SyncOne(facts, volume);
    if (!s.ok()) return s.WithContext("volume " + volume.GetString({"name"}).value_or(""));
  }
  return OkStatus();
}

Status PodVolumes::SyncOne(const PodFacts& facts, const k8s::JsonObject& volume) {
  const std::string name = volume.GetString({"name"}).value_or("");
  const std::string ns(facts.pod->Namespace());
  const std::string dir = volumes_dir_ + "/" + name;
  if (volume.Has({"hostPath"})) {
    if (host_paths_.count(name) != 0) return OkStatus();
    RDMASTACK_ASSIGN_OR_RETURN(
        std::string path,
        HostPathBelowRoot(host_root_, volume.GetString({"hostPath", "path"}).value_or("")));
    RDMASTACK_RETURN_IF_ERROR(
        CheckHostPathType(path, volume.GetString({"hostPath", "type"}).value_or("")));
    host_paths_[name] = path;
    return OkStatus();
  }
  if (volume.Has({"emptyDir"})) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    // World-writable, as the kubelet makes an emptyDir: a container of any user writes there.
    if (!ec) fs::permissions(dir, fs::perms::all, ec);
    if (ec) return InternalError("create " + dir + ": " + ec.message());
    host_paths_[name] = dir;
    return OkStatus();
  }
  StatusOr<VolumePayload> payload = [&]() -> StatusOr<VolumePayload> {
    if (const auto cm = volume.Get({"configMap"})) {
      return ObjectFiles(reader_, ns, *cm, false, ModeOf(*cm, kDefaultMode));
    }
    if (const auto secret = volume.Get({"secret"})) {
      return ObjectFiles(reader_, ns, *secret, true, ModeOf(*secret, kDefaultMode));
    }
    if (const auto downward = volume.Get({"downwardAPI"})) {
      return DownwardFiles(facts, *downward, ModeOf(*downward, kDefaultMode));
    }
    if (const auto projected = volume.Get({"projected"})) {
      return ProjectedPayload(facts, name, *projected);
    }
    std::vector<std::string> keys = volume.Keys({});
    keys.erase(std::remove(keys.begin(), keys.end(), "name"), keys.end());
    return UnimplementedError("type " + (keys.empty() ? std::string("(none)") : keys.front()) +
                              " is not supported on simulated nodes (hostPath, emptyDir, "
                              "configMap, secret, downwardAPI and projected are)");
  }();
  if (!payload.ok()) return payload.status();
  auto [it, inserted] = writers_.try_emplace(name, dir);
  RDMASTACK_ASSIGN_OR_RETURN(bool changed, it->second.Write(*payload));
  (void)changed;
  host_paths_[name] = dir;
  return OkStatus();
}

StatusOr<VolumePayload> PodVolumes::ProjectedPayload(const PodFacts& facts,
                                                     const std::string& volume,
                                                     const k8s::JsonObject& projected) {
  const int mode = ModeOf(projected, kDefaultMode);
  const std::string ns(facts.pod->Namespace());
  VolumePayload payload;
  for (const k8s::JsonObject& source : projected.GetArray({"sources"})) {
    VolumePayload part;
    if (const auto token = source.Get({"serviceAccountToken"})) {
      const std::string path = token->GetString({"path"}).value_or("token");
      RDMASTACK_ASSIGN_OR_RETURN(std::string value, Token(facts, volume + "/" + path, *token));
      part[path] = {value, mode};
    } else if (const auto cm = source.Get({"configMap"})) {
      RDMASTACK_ASSIGN_OR_RETURN(part, ObjectFiles(reader_, ns, *cm, false, mode));
    } else if (const auto secret = source.Get({"secret"})) {
      RDMASTACK_ASSIGN_OR_RETURN(part, ObjectFiles(reader_, ns, *secret, true, mode));
    } else if (const auto downward = source.Get({"downwardAPI"})) {
      RDMASTACK_ASSIGN_OR_RETURN(part, DownwardFiles(facts, *downward, mode));
    } else {
      return UnimplementedError(
          "a projected source other than serviceAccountToken, configMap, "
          "secret or downwardAPI is not supported on simulated nodes");
    }
    payload.merge(part);
  }
  return payload;
}

StatusOr<std::string> PodVolumes::Token(const PodFacts& facts, const std::string& key,
                                        const k8s::JsonObject& source) {
  auto it = issued_.find(key);
  if (it != issued_.end() && !TokenNeedsRefresh(it->second, clock_.WallNow()))
    return it->second.token;
  TokenRequestSpec spec;
  spec.ns = std::string(facts.pod->Namespace());
  spec.service_account = facts.pod->GetString({"spec", "serviceAccountName"}).value_or("default");
  spec.audience = source.GetString({"audience"}).value_or("");
  spec.expiration_seconds = source.GetInt({"expirationSeconds"}).value_or(3600);
  spec.pod_name = std::string(facts.pod->Name());
  spec.pod_uid = std::string(facts.pod->Uid());
  StatusOr<IssuedToken> issued = tokens_.Issue(spec);
  if (!issued.ok()) {
    // A failed renewal keeps the still-valid token, as the kubelet does.
    if (it != issued_.end() && clock_.WallNow() < it->second.expires_at) return it->second.token;
    return issued.status();
  }
  issued_[key] = *issued;
  return issued->token;
}

StatusOr<std::vector<BindMount>> PodVolumes::MountsFor(const k8s::JsonObject& container) const {
  std::vector<BindMount> mounts;
  for (const k8s::JsonObject& m : container.GetArray({"volumeMounts"})) {
    const std::string name = m.GetString({"name"}).value_or("");
    auto it = host_paths_.find(name);
    if (it == host_paths_.end()) {
      return NotFoundError("volumeMount " + name + " names no volume of the pod");
    }
    std::string source = it->second;
    if (const auto sub = m.GetString({"subPath"}); sub && !sub->empty()) {
      RDMASTACK_RETURN_IF_ERROR(CheckRelativePath(*sub));
      source += "/" + *sub;
      std::error_code ec;
      if (!fs::exists(source, ec)) fs::create_directories(source, ec);
    }
    mounts.push_back(
        {source, m.GetString({"mountPath"}).value_or(""), m.GetBool({"readOnly"}).value_or(false)});
  }
  std::stable_sort(mounts.begin(), mounts.end(), [](const BindMount& a, const BindMount& b) {
    return std::count(a.target.begin(), a.target.end(), '/') <
           std::count(b.target.begin(), b.target.end(), '/');
  });
  return mounts;
}

}  // namespace rdmastack::sim
