#include "tests/harness/node-runtime/security_context.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

namespace rdmastack::sim {
namespace {

std::optional<uint32_t> Number(const std::string& s) {
  uint32_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || s.empty()) return std::nullopt;
  return v;
}

// Field `index` (0-based) of the first colon-separated line whose field `key_index` equals `key`.
std::optional<std::string> LookupField(const std::string& db, const std::string& key,
                                       size_t key_index, size_t index) {
  std::istringstream lines(db);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream parts(line);
    for (std::string f; std::getline(parts, f, ':');) fields.push_back(f);
    if (fields.size() > std::max(key_index, index) && fields[key_index] == key) {
      return fields[index];
    }
  }
  return std::nullopt;
}

// The value at `field` of the container's securityContext, else the pod's.
template <typename Getter>
auto Layered(const k8s::JsonObject& pod, const k8s::JsonObject& container, const char* field,
             Getter get) {
  auto v = get(container, k8s::JsonPath{"securityContext", field});
  if (v) return v;
  return get(pod, k8s::JsonPath{"spec", "securityContext", field});
}

std::string CapName(std::string c) {
  std::transform(c.begin(), c.end(), c.begin(), ::toupper);
  return c.rfind("CAP_", 0) == 0 ? c : "CAP_" + c;
}

}  // namespace

const std::vector<std::string>& DefaultCapabilities() {
  static const std::vector<std::string> caps = {
      "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
      "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
      "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
      "CAP_KILL",    "CAP_AUDIT_WRITE"};
  return caps;
}

const std::vector<std::string>& AllCapabilities() {
  static const std::vector<std::string> caps = {"CAP_CHOWN",
                                                "CAP_DAC_OVERRIDE",
                                                "CAP_DAC_READ_SEARCH",
                                                "CAP_FOWNER",
                                                "CAP_FSETID",
                                                "CAP_KILL",
                                                "CAP_SETGID",
                                                "CAP_SETUID",
                                                "CAP_SETPCAP",
                                                "CAP_LINUX_IMMUTABLE",
                                                "CAP_NET_BIND_SERVICE",
                                                "CAP_NET_BROADCAST",
                                                "CAP_NET_ADMIN",
                                                "CAP_NET_RAW",
                                                "CAP_IPC_LOCK",
                                                "CAP_IPC_OWNER",
                                                "CAP_SYS_MODULE",
                                                "CAP_SYS_RAWIO",
                                                "CAP_SYS_CHROOT",
                                                "CAP_SYS_PTRACE",
                                                "CAP_SYS_PACCT",
                                                "CAP_SYS_ADMIN",
                                                "CAP_SYS_BOOT",
                                                "CAP_SYS_NICE",
                                                "CAP_SYS_RESOURCE",
                                                "CAP_SYS_TIME",
                                                "CAP_SYS_TTY_CONFIG",
                                                "CAP_MKNOD",
                                                "CAP_LEASE",
                                                "CAP_AUDIT_WRITE",
                                                "CAP_AUDIT_CONTROL",
                                                "CAP_SETFCAP",
                                                "CAP_MAC_OVERRIDE",
                                                "CAP_MAC_ADMIN",
                                                "CAP_SYSLOG",
                                                "CAP_WAKE_ALARM",
                                                "CAP_BLOCK_SUSPEND",
                                                "CAP_AUDIT_READ",
                                                "CAP_PERFMON",
                                                "CAP_BPF",
                                                "CAP_CHECKPOINT_RESTORE"};
  return caps;
}

std::vector<std::string> BoundingCapabilities() {
  std::ifstream status("/proc/self/status");
  uint64_t mask = 0;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("CapBnd:", 0) == 0) mask = std::stoull(line.substr(7), nullptr, 16);
  }
  std::vector<std::string> out;
  const std::vector<std::string>& all = AllCapabilities();
  for (size_t bit = 0; bit < all.size(); ++bit) {
    if (mask & (uint64_t{1} << bit)) out.push_back(all[bit]);
  }
  return out;
}

StatusOr<ContainerSecurity> ResolveSecurity(const k8s::JsonObject& pod,
                                            const k8s::JsonObject& container,
                                            const std::string& image_user,
                                            const std::string& passwd, const std::string& group,
                                            const std::vector<std::string>& held) {
  auto get_int = [](const k8s::JsonObject& o, const k8s::JsonPath& p) { return o.GetInt(p); };
  auto get_bool = [](const k8s::JsonObject& o, const k8s::JsonPath& p) { return o.GetBool(p); };
  const std::string who = "container " + container.GetString({"name"}).value_or("") + " of pod " +
                          std::string(pod.Namespace()) + "/" + std::string(pod.Name());
  ContainerSecurity out;

  // The image's user: numeric, or a name its /etc/passwd resolves.
  const size_t colon = image_user.find(':');
  const std::string user_part = image_user.substr(0, colon);
  const std::string group_part = colon == std::string::npos ? "" : image_user.substr(colon + 1);
  std::optional<uint32_t> image_uid =
      user_part.empty() ? std::optional<uint32_t>(0) : Number(user_part);
  std::optional<uint32_t> image_gid;
  if (!image_uid && !user_part.empty()) {
    std::optional<std::string> uid = LookupField(passwd, user_part, 0, 2);
    if (!uid || !(image_uid = Number(*uid))) {
      return FailedPreconditionError("unable to find user " + user_part + " in the image's " +
                                     "/etc/passwd (" + who + ")");
    }
  }
  if (!group_part.empty()) {
    image_gid = Number(group_part);
    if (!image_gid) {
      std::optional<std::string> gid = LookupField(group, group_part, 0, 2);
      if (!gid || !(image_gid = Number(*gid))) {
        return FailedPreconditionError("unable to find group " + group_part +
                                       " in the image's /etc/group (" + who + ")");
      }
    }
  }

  const std::optional<int64_t> run_as_user = Layered(pod, container, "runAsUser", get_int);
  const std::optional<int64_t> run_as_group = Layered(pod, container, "runAsGroup", get_int);
  out.uid = run_as_user ? static_cast<uint32_t>(*run_as_user) : *image_uid;
  if (run_as_group) {
    out.gid = static_cast<uint32_t>(*run_as_group);
  } else if (image_gid && !run_as_user) {
    out.gid = *image_gid;
  } else if (std::optional<std::string> g = LookupField(passwd, std::to_string(out.uid), 2, 3)) {
    out.gid = Number(*g).value_or(0);
  }
  if (Layered(pod, container, "runAsNonRoot", get_bool).value_or(false) && out.uid == 0) {
    return FailedPreconditionError("container has runAsNonRoot and image will run as root (" + who +
                                   ")");
  }
  for (const k8s::JsonObject& g : pod.GetArray({"spec", "securityContext", "supplementalGroups"})) {
    if (auto v = g.GetInt({})) out.additional_gids.push_back(static_cast<uint32_t>(*v));
  }
  if (auto fs_group = pod.GetInt({"spec", "securityContext", "fsGroup"})) {
    out.additional_gids.push_back(static_cast<uint32_t>(*fs_group));
  }

  out.privileged = container.GetBool({"securityContext", "privileged"}).value_or(false);
  out.read_only_root =
      container.GetBool({"securityContext", "readOnlyRootFilesystem"}).value_or(false);
  const std::optional<bool> escalation =
      container.GetBool({"securityContext", "allowPrivilegeEscalation"});
  if (escalation == false && out.privileged) {
    return InvalidArgumentError(
        "cannot set allowPrivilegeEscalation to false and privileged to "
        "true (" +
        who + ")");
  }
  out.no_new_privileges = escalation == false;

  // containerd's order: add ALL, then drop ALL, then the single additions, then the single drops
  // (so add [ALL] + drop [CHOWN] is everything but CHOWN, drop [ALL] + add [X] is only X).
  std::vector<std::string> caps = out.privileged ? held : DefaultCapabilities();
  if (!out.privileged) {
    auto names = [&](const char* which) {
      std::vector<std::string> v;
      for (const k8s::JsonObject& c :
           container.GetArray({"securityContext", "capabilities", which}))
        v.push_back(CapName(c.GetString({}).value_or("")));
      return v;
    };
    const std::vector<std::string> add = names("add"), drop = names("drop");
    auto has = [](const std::vector<std::string>& v, const std::string& c) {
      return std::find(v.begin(), v.end(), c) != v.end();
    };
    if (has(add, "CAP_ALL")) caps = held;
    if (has(drop, "CAP_ALL")) caps.clear();
    for (const std::string& c : add) {
      if (c != "CAP_ALL" && !has(caps, c)) caps.push_back(c);
    }
    for (const std::string& c : drop)
      caps.erase(std::remove(caps.begin(), caps.end(), c), caps.end());
  }
  caps.erase(std::remove_if(caps.begin(), caps.end(),
                            [&](const std::string& c) {
                              return std::find(held.begin(), held.end(), c) == held.end();
                            }),
             caps.end());
  out.capabilities = std::move(caps);
  return out;
}

}  // namespace rdmastack::sim
