#include "tests/harness/node-runtime/oci_config.h"

#include "operator/k8s/json_object.h"

namespace rdmastack::sim {
namespace {

using k8s::JsonObject;

JsonObject Strings(const std::vector<std::string>& values) {
  JsonObject a = JsonObject::Array();
  for (const std::string& v : values) {
    JsonObject s;
    (void)s.SetString({}, v);
    (void)a.Append({}, s);
  }
  return a;
}

JsonObject Mount(const std::string& destination, const std::string& type, const std::string& source,
                 const std::vector<std::string>& options) {
  JsonObject m;
  (void)m.SetString({"destination"}, destination);
  (void)m.SetString({"type"}, type);
  (void)m.SetString({"source"}, source);
  (void)m.Set({"options"}, Strings(options));
  return m;
}

JsonObject Namespace(const std::string& type, const std::string& path = "") {
  JsonObject n;
  (void)n.SetString({"type"}, type);
  if (!path.empty()) (void)n.SetString({"path"}, path);
  return n;
}

// The kernel files a container must not read or write unless privileged (runc's own defaults).
const std::vector<std::string> kMaskedPaths = {
    "/proc/acpi",          "/proc/asound",     "/proc/kcore",       "/proc/keys",
    "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
    "/proc/scsi",          "/sys/firmware"};
const std::vector<std::string> kReadonlyPaths = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                                 "/proc/sysrq-trigger"};

}  // namespace

std::string RenderOciConfig(const OciContainerConfig& c) {
  const ContainerSecurity& sec = c.security;
  JsonObject config;
  (void)config.SetString({"ociVersion"}, "1.0.2");

  JsonObject process;
  (void)process.SetBool({"terminal"}, false);
  (void)process.SetInt({"user", "uid"}, sec.uid);
  (void)process.SetInt({"user", "gid"}, sec.gid);
  if (!sec.additional_gids.empty()) {
    JsonObject gids = JsonObject::Array();
    for (uint32_t g : sec.additional_gids) {
      JsonObject v;
      (void)v.SetInt({}, g);
      (void)gids.Append({}, v);
    }
    (void)process.Set({"user", "additionalGids"}, gids);
  }
  (void)process.Set({"args"}, Strings(c.argv));
  (void)process.Set({"env"}, Strings(c.env));
  (void)process.SetString({"cwd"}, c.working_dir.empty() ? "/" : c.working_dir);
  // No inheritable or ambient set: a non-root user gets no capability through execve, as with
  // containerd (CVE-2022-24769).
  for (const char* set : {"bounding", "effective", "permitted"}) {
    (void)process.Set({"capabilities", set}, Strings(sec.capabilities));
  }
  (void)process.SetBool({"noNewPrivileges"}, sec.no_new_privileges);
  // No rlimits: the container keeps the runtime's (containerd's 1048576 open files can exceed
  // what this host's fs.nr_open allows).
  (void)config.Set({"process"}, process);

  (void)config.SetString({"root", "path"}, "rootfs");
  (void)config.SetBool({"root", "readonly"}, sec.read_only_root);
  if (!c.hostname.empty()) (void)config.SetString({"hostname"}, c.hostname);

  const char* sys_mode = sec.privileged ? "rw" : "ro";
  (void)config.Append({"mounts"}, Mount("/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}));
  if (sec.privileged) {
    // Every device of the host, as containerd gives a privileged container.
    (void)config.Append({"mounts"}, Mount("/dev", "bind", "/dev", {"rbind", "rw"}));
  } else {
    (void)config.Append({"mounts"}, Mount("/dev", "tmpfs", "tmpfs",
                                          {"nosuid", "strictatime", "mode=755", "size=65536k"}));
    (void)config.Append({"mounts"},
                        Mount("/dev/pts", "devpts", "devpts",
                              {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}));
    (void)config.Append({"mounts"},
                        Mount("/dev/shm", "tmpfs", "shm",
                              {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}));
    (void)config.Append({"mounts"},
                        Mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}));
  }
  // A sysfs mounted in the node's network namespace lists that node's network devices.
  (void)config.Append({"mounts"},
                      Mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", sys_mode}));
  for (const BindMount& m : c.mounts) {
    (void)config.Append({"mounts"}, Mount(m.target, "bind", m.source,
                                          {"rbind", m.read_only ? "ro" : "rw", "nosuid", "nodev"}));
  }

  JsonObject linux_;
  (void)linux_.Append({"namespaces"}, Namespace("mount"));
  (void)linux_.Append({"namespaces"}, Namespace("uts"));
  (void)linux_.Append({"namespaces"}, Namespace("ipc"));
  if (!c.host_pid) (void)linux_.Append({"namespaces"}, Namespace("pid"));
  if (!c.netns_path.empty())
    (void)linux_.Append({"namespaces"}, Namespace("network", c.netns_path));
  if (!c.cgroups_path.empty()) (void)linux_.SetString({"cgroupsPath"}, c.cgroups_path);
  JsonObject devices;
  (void)devices.SetBool({"allow"}, sec.privileged);
  (void)devices.SetString({"access"}, "rwm");
  (void)linux_.Append({"resources", "devices"}, devices);
  if (!sec.privileged) {
    (void)linux_.Set({"maskedPaths"}, Strings(kMaskedPaths));
    (void)linux_.Set({"readonlyPaths"}, Strings(kReadonlyPaths));
  }
  (void)config.Set({"linux"}, linux_);
  return config.SerializePretty();
}

}  // namespace rdmastack::sim
