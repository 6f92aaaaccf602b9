#include "crds/types/validate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <string_view>

#include "base/pci_address.h"
#include "base/quantity.h"
#include "crds/types/path_template.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::crd {
namespace {

constexpr int64_t kMaxTransferBytes = int64_t{4} << 30;  // cuObject's per-buffer limit
constexpr int64_t kMinBufferBytes = int64_t{1} << 20;
constexpr int64_t kMaxBufferBytes = int64_t{16} << 30;

// Collects problems under a path prefix.
class Problems {
 public:
  explicit Problems(FieldProblems* out, std::string prefix = "")
      : out_(out), prefix_(std::move(prefix)) {}
  Problems At(std::string_view field) const {
    return Problems(out_,
                    prefix_.empty() ? std::string(field) : prefix_ + "." + std::string(field));
  }
  Problems Index(size_t i) const { return Problems(out_, prefix_ + "[" + std::to_string(i) + "]"); }
  Problems Key(std::string_view key) const {
    return Problems(out_, prefix_ + "[" + std::string(key) + "]");
  }
  void Add(std::string message) const { out_->push_back({prefix_, std::move(message)}); }

 private:
  FieldProblems* out_;
  std::string prefix_;
};

// Hand-written matchers instead of std::regex: these run on every reconcile, and libstdc++'s
// regex trips GCC 12's -Wmaybe-uninitialized under the sanitizers.
bool IsAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Starts and ends with an allowed end character; everything between is end or inner characters.
template <typename End, typename Inner>
bool IsToken(std::string_view s, End is_end, Inner is_inner) {
  if (s.empty() || !is_end(s.front()) || !is_end(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return is_end(c) || is_inner(c); });
}

bool IsLabelName(std::string_view s) {
  return s.size() <= 63 &&
         IsToken(s, IsAlnum, [](char c) { return c == '-' || c == '_' || c == '.'; });
}

bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!IsToken(label, IsLowerAlnum, [](char c) { return c == '-'; })) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsLabelValue(const std::string& s) {
  return s.empty() || IsLabelName(s);
}

bool IsLabelKey(const std::string& key) {
  size_t slash = key.find('/');
  if (slash == std::string::npos) return IsLabelName(key);
  return IsDnsSubdomain(std::string_view(key).substr(0, slash)) &&
         IsLabelName(std::string_view(key).substr(slash + 1));
}

// v?X.Y.Z with an optional -/+ suffix of [0-9A-Za-z.+-], e.g. 1.8.0 or 1.8.0-cuobj2.
bool IsBuildVersion(std::string_view s) {
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  size_t suffix = s.find_first_of("-+");
  std::string_view core = s.substr(0, suffix);
  for (int part = 0; part < 3; ++part) {
    size_t dot = core.find('.');
    if ((part < 2) != (dot != std::string_view::npos)) return false;
    if (!IsDigits(core.substr(0, dot))) return false;
    core = part < 2 ? core.substr(dot + 1) : std::string_view();
  }
  if (suffix == std::string_view::npos) return true;
  std::string_view rest = s.substr(suffix + 1);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return IsAlnum(c) || c == '.' || c == '+' || c == '-';
  });
}

bool IsInterfaceName(std::string_view s) {
  return !s.empty() && s.size() <= 15 && IsAlnum(s.front()) &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool ParseSmallInt(std::string_view s, int max, int* out) {
  if (!IsDigits(s) || s.size() > 3) return false;
  std::from_chars(s.data(), s.data() + s.size(), *out);
  return *out <= max;
}

bool IsIpv4Cidr(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  int value = 0;
  if (!ParseSmallInt(s.substr(slash + 1), 32, &value)) return false;
  std::string_view ip = s.substr(0, slash);
  for (int octet = 0; octet < 4; ++octet) {
    size_t dot = ip.find('.');
    if ((octet < 3) != (dot != std::string_view::npos)) return false;
    if (!ParseSmallInt(ip.substr(0, dot), 255, &value)) return false;
    ip = octet < 3 ? ip.substr(dot + 1) : std::string_view();
  }
  return true;
}

// Go-style duration limited to the s/m/h units the schema allows ("10m", "1h30m").
std::optional<int64_t> DurationSeconds(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t unit = s.find_first_not_of("0123456789", i);
    if (unit == i || unit == std::string_view::npos || unit - i > 9) return std::nullopt;
    int64_t n = 0;
    std::from_chars(s.data() + i, s.data() + unit, n);
    switch (s[unit]) {
      case 'h': total += n * 3600; break;
      case 'm': total += n * 60; break;
      case 's': total += n; break;
      default: return std::nullopt;
    }
    i = unit + 1;
  }
  return total;
}

void CheckNodeSelector(const StringMap& selector, const Problems& p) {
  if (selector.empty()) p.Add("must select nodes by at least one label");
  for (const auto& [key, value] : selector) {
    const Problems entry = p.Key(key);
    if (!IsLabelKey(key)) entry.Add("\"" + key + "\" is not a valid label key");
    if (!IsLabelValue(value)) entry.Add("\"" + value + "\" is not a valid label value");
  }
}

void CheckTolerations(const std::vector<Toleration>& tolerations, const Problems& p) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    const Problems at = p.Index(i);
    bool has_key = t.key && !t.key->empty();
    if (t.op == TolerationOperator::kExists && t.value && !t.value->empty()) {
      at.At("value").Add("must be empty with operator Exists");
    }
    if (!has_key && t.op != TolerationOperator::kExists) {
      at.At("operator").Add("a toleration without key must use operator Exists");
    }
    if (has_key && !IsLabelKey(*t.key))
      at.At("key").Add("\"" + *t.key + "\" is not a valid taint key");
    if (t.toleration_seconds && t.effect != TaintEffect::kNoExecute) {
      at.At("tolerationSeconds").Add("applies only with effect NoExecute");
    }
  }
}

// A pinned library must not float: the reference needs an explicit tag or a digest.
void CheckPinnedImage(const std::string& image, const Problems& p) {
  if (image.empty()) return p.Add("is required");
  if (image.find_first_of(" \t\n") != std::string::npos)
    return p.Add("must not contain whitespace");
  if (image.find("@sha256:") != std::string::npos) return;
  size_t last_slash = image.rfind('/');
  size_t colon = image.rfind(':');
  if (colon == std::string::npos || (last_slash != std::string::npos && colon < last_slash)) {
    return p.Add("\"" + image + "\" has no tag or digest; pin it (e.g. :1.2.0.68 or @sha256:...)");
  }
  if (image.substr(colon + 1) == "latest") {
    p.Add("\"" + image + "\" uses :latest; pin a version tag or a digest");
  }
}

void CheckSecretName(const std::string& name, const Problems& p) {
  if (!IsDnsSubdomain(name)) p.Add("\"" + name + "\" is not a valid Secret name");
}

void CheckLibraryVersion(const std::string& version, const Problems& p) {
  if (!LibraryMajor(version).ok()) {
    p.Add("\"" + version + "\" is not a four-part version such as 1.2.0.68");
  }
}

void CheckPort(const std::optional<int32_t>& port, const Problems& p) {
  if (port && (*port < 1 || *port > 65535)) {
    p.Add(std::to_string(*port) + " is not a port in 1..65535");
  }
}

void CheckBytes(const IntOrString& value, int64_t min, int64_t max, const std::string& range,
                const Problems& p) {
  StatusOr<int64_t> bytes = BytesFromIntOrQuantity(value);
  if (!bytes.ok()) return p.Add(bytes.status().message());
  if (*bytes < min || *bytes > max) {
    p.Add("\"" + value.ToString() + "\" must be " + range);
  }
}

void CheckPorts(const GatewayPoolSpec& spec, const Problems& p) {
  CheckPort(spec.s3.port, p.At("s3").At("port"));
  CheckPort(spec.rdma.port, p.At("rdma").At("port"));
  StatusOr<int32_t> s3 = EffectiveS3Port(spec);
  StatusOr<int32_t> rdma = EffectiveRdmaPort(spec);
  if (!s3.ok() || !rdma.ok()) return;  // the version problem is reported on its own
  if (*s3 > 65535) p.At("s3").At("port").Add("the default 7070 + major is beyond 65535; set it");
  if (*rdma > 65535)
    p.At("rdma").At("port").Add("the default 19099 + major is beyond 65535; set it");
  if (*s3 == *rdma) {
    p.At("rdma").At("port").Add("effective RDMA port " + std::to_string(*rdma) +
                                " equals the effective S3 port; give them different ports");
  }
  const size_t rails = spec.rdma.rails.size();
  if (rails < 2 || rails > kMaxRails) return;
  const int32_t top = static_cast<int32_t>(rails - 1) * kRailPortStride;
  if (*s3 + top > 65535 || *rdma + top > 65535) {
    p.At("rdma").At("rails").Add("rail " + std::to_string(rails - 1) +
                                 "'s ports (the pool's plus " + std::to_string(top) +
                                 ") are beyond 65535; lower s3.port and rdma.port");
  }
  // Rail i's S3 port must not be rail j's RDMA port.
  if ((*s3 - *rdma) % kRailPortStride == 0) {
    p.At("rdma").At("port").Add("the S3 and RDMA ports differ by a multiple of " +
                                std::to_string(kRailPortStride) +
                                ", so one rail's S3 port is another's RDMA port; move one");
  }
}

// interface or cidr, exactly one, each well formed: the pool's own or a rail's.
void CheckRdmaSelector(const std::optional<std::string>& interface,
                       const std::optional<std::string>& cidr, const Problems& p) {
  if (interface.has_value() == cidr.has_value()) {
    p.Add("set exactly one of interface (e.g. bond0) or cidr (e.g. 100.64.0.0/16)");
  }
  if (interface && !IsInterfaceName(*interface)) {
    p.At("interface").Add("\"" + *interface + "\" is not a network interface name");
  }
  if (cidr && !IsIpv4Cidr(*cidr)) {
    p.At("cidr").Add("\"" + *cidr + "\" is not an IPv4 CIDR such as 100.64.0.0/16");
  }
}

void CheckRails(const RdmaSpec& rdma, const Problems& p) {
  if (rdma.interface || rdma.cidr) {
    p.Add(
        "set rails or interface/cidr, not both: a pool with rails picks each rail's address "
        "in the rail");
  }
  if (rdma.rails.size() > kMaxRails) p.At("rails").Add("at most 8 rails");
  std::set<std::string> names, selectors;
  for (size_t i = 0; i < rdma.rails.size(); ++i) {
    const RdmaRail& r = rdma.rails[i];
    const Problems at = p.At("rails").At(std::to_string(i));
    if (!rails::IsRailName(r.name)) {
      at.At("name").Add("\"" + r.name +
                        "\" must be 1-15 lower-case letters, digits or '-', starting and ending "
                        "with a letter or digit");
    }
    if (!names.insert(r.name).second) at.At("name").Add("\"" + r.name + "\" names two rails");
    CheckRdmaSelector(r.interface, r.cidr, at);
    const std::string selector = r.interface.value_or(r.cidr.value_or(""));
    if (!selector.empty() && !selectors.insert(selector).second) {
      at.Add("another rail picks " + selector + " too: each rail needs an address of its own");
    }
  }
}

void CheckRdma(const RdmaSpec& rdma, const Problems& p) {
  if (rdma.rails.empty()) {
    CheckRdmaSelector(rdma.interface, rdma.cidr, p);
  } else {
    CheckRails(rdma, p);
  }
  const Problems pool = p.At("bufferPool");
  CheckBytes(rdma.buffer_pool.buffer_size, kMinBufferBytes, kMaxBufferBytes, "from 1Mi to 16Gi",
             pool.At("bufferSize"));
  if (rdma.buffer_pool.buffer_count < 1 || rdma.buffer_pool.buffer_count > 64) {
    pool.At("bufferCount").Add("must be 1..64");
  }
  if (rdma.dc_key_secret) CheckSecretName(rdma.dc_key_secret->name, p.At("dcKeySecret").At("name"));
}

PathTemplateValues ValuesForCheck(const std::string& pool_name, const std::string& ns) {
  return {"node-a", pool_name.empty() ? "pool" : pool_name, ns.empty() ? "default" : ns};
}

// metadata Sidecar names a directory of its own, beside the root inside the hostPath (so the
// hostPath rules of conflict and tenancy cover it); no other mode names one.
void CheckSidecar(const PosixBackend& posix, const PathTemplateValues& values,
                  const std::string& root, const Problems& p) {
  const Problems at = p.At("sidecarPathTemplate");
  const bool sidecar = posix.metadata == BackendMetadata::kSidecar;
  if (!sidecar) {
    if (posix.sidecar_path_template)
      at.Add("is only for metadata Sidecar (metadata is " + std::string(ToString(posix.metadata)) +
             "); remove it");
    return;
  }
  if (!posix.sidecar_path_template)
    return at.Add(
        "is required with metadata Sidecar: the directory where versitygw keeps the "
        "objects' metadata, beside the root");
  const std::string& tmpl = *posix.sidecar_path_template;
  if (tmpl.empty() || tmpl[0] != '/') return at.Add("must be an absolute path");
  if (HasDotDotSegment(tmpl) || tmpl.find("//") != std::string::npos ||
      LexicallyNormal(tmpl) != tmpl)
    return at.Add("must not contain '//', '.' or '..' segments");
  StatusOr<std::string> rendered = RenderPathTemplate(tmpl, values);
  if (!rendered.ok()) return at.Add(rendered.status().message());
  if (!PathIsWithin(*rendered, posix.host_path))
    return at.Add("renders to " + *rendered + ", outside hostPath " + posix.host_path +
                  " (the only host directory mounted into the gateway)");
  // versitygw 1.8.0 compares the two as text: "<root>.meta" counts as inside the root.
  if (PathsOverlap(*rendered, root) || rendered->starts_with(root))
    at.Add("renders to " + *rendered + ", which overlaps the gateway root " + root +
           " or begins with its path (versitygw refuses a sidecar inside the root, and compares "
           "the paths as text); put it beside the root under another name, e.g. " +
           root.substr(0, root.rfind('/') + 1) + "meta-" + root.substr(root.rfind('/') + 1));
}

void CheckBackend(const PosixBackend& posix, const std::string& pool_name, const std::string& ns,
                  const Problems& p) {
  // Each directory written once: the pools' directories are compared as the kernel resolves
  // them (pool_conflict.h), and a spelling with "//", "." or ".." only hides what it names.
  auto unclean = [](std::string_view path) {
    return path.find("//") != std::string_view::npos ||
           LexicallyNormal(path) !=
               path.substr(0,
                           path.size() > 1 && path.back() == '/' ? path.size() - 1 : path.size());
  };
  if (posix.host_path.empty() || posix.host_path[0] != '/') {
    p.At("hostPath").Add("must be an absolute path");
  } else if (unclean(posix.host_path)) {
    p.At("hostPath").Add("must not contain '//', '.' or '..' segments");
  }
  const Problems tmpl = p.At("pathTemplate");
  if (posix.path_template.empty() || posix.path_template[0] != '/') {
    return tmpl.Add("must be an absolute path");
  }
  if (HasDotDotSegment(posix.path_template)) return tmpl.Add("must not contain '..' segments");
  if (unclean(posix.path_template)) return tmpl.Add("must not contain '//' or '.' segments");
  // Render with a representative node name to catch bad placeholders and escapes.
  StatusOr<std::string> rendered =
      RenderPathTemplate(posix.path_template, ValuesForCheck(pool_name, ns));
  if (!rendered.ok()) return tmpl.Add(rendered.status().message());
  if (!PathIsWithin(*rendered, posix.host_path)) {
    tmpl.Add("renders to " + *rendered + ", outside hostPath " + posix.host_path +
             " (the only host directory mounted into the gateway)");
  }
  CheckSidecar(posix, ValuesForCheck(pool_name, ns), *rendered, p);
}

void CheckUpgrade(const UpgradeSpec& u, const Problems& p) {
  StatusOr<int64_t> unavailable = ScaledValueFromIntOrPercent(u.max_unavailable, 100, false);
  if (!unavailable.ok() || *unavailable < 0) {
    p.At("maxUnavailable").Add("must be a non-negative count or a percentage 0%..100%");
  } else if (*unavailable == 0 && u.strategy == UpgradeStrategy::kInPlace) {
    p.At("maxUnavailable")
        .Add("0 with strategy InPlace could never replace a gateway; allow at least 1");
  }
  if (u.max_parallel < 1) p.At("maxParallel").Add("must be at least 1 (use paused to stop)");
  std::optional<int64_t> timeout = DurationSeconds(u.validation_timeout);
  if (!timeout || *timeout < 10 || *timeout > 24 * 3600) {
    p.At("validationTimeout")
        .Add("\"" + u.validation_timeout + "\" must be a duration from 10s to 24h");
  }
  if (u.drain_seconds < 0 || u.drain_seconds > 3600) p.At("drainSeconds").Add("must be 0..3600");
}

void CheckGatewayPoolSpec(const GatewayPool& pool, const Problems& p) {
  const GatewayPoolSpec& spec = pool.spec;
  CheckNodeSelector(spec.node_selector, p.At("nodeSelector"));
  CheckTolerations(spec.tolerations, p.At("tolerations"));
  CheckPinnedImage(spec.gateway.image, p.At("gateway").At("image"));
  if (!IsBuildVersion(spec.gateway.version)) {
    p.At("gateway").At("version").Add("\"" + spec.gateway.version +
                                      "\" is not a build version such as 1.8.0");
  }
  CheckLibraryVersion(spec.server_library.version, p.At("serverLibrary").At("version"));
  CheckPinnedImage(spec.server_library.image, p.At("serverLibrary").At("image"));
  CheckSecretName(spec.s3.credentials_secret.name, p.At("s3").At("credentialsSecret").At("name"));
  if (spec.s3.tls_secret)
    CheckSecretName(spec.s3.tls_secret->name, p.At("s3").At("tlsSecret").At("name"));
  CheckPorts(spec, p);
  CheckRdma(spec.rdma, p.At("rdma"));
  CheckBackend(spec.backend.posix, pool.metadata.name, pool.metadata.namespace_.value_or(""),
               p.At("backend").At("posix"));
  CheckUpgrade(spec.upgrade, p.At("upgrade"));
}

// Records key; a key seen before is a problem at p.
void AddUnique(std::set<std::string>& seen, const std::string& key, const Problems& p) {
  if (!seen.insert(key).second) p.Add("duplicate entry \"" + key + "\"");
}

void CheckDeviceRef(const std::optional<std::string>& ref, const std::set<std::string>& devices,
                    const Problems& p) {
  if (ref && !ref->empty() && devices.count(*ref) == 0) {
    p.Add("\"" + *ref + "\" is not among status.devices");
  }
}

void CheckVerdict(const std::optional<Verdict>& v, bool gpu_direct, const Problems& p) {
  if (!v) return;
  if (v->capable == Capability::kNo && (!v->reason || v->reason->empty())) {
    p.At("reason").Add("a No verdict must say why");
  }
  if (gpu_direct && v->capable == Capability::kYes && v->via != "PeerMem" && v->via != "DMABuf") {
    p.At("via").Add("a Yes GPU-direct verdict must name PeerMem or DMABuf");
  }
}

void CheckPcieRoot(const std::optional<std::string>& root, const Problems& at) {
  if (root && !IsPcieRoot(*root)) at.Add("\"" + *root + "\" is not a PCIe root (pci0000:17)");
}

void CheckDevices(const RdmaNodeStatus& status, std::set<std::string>& names, const Problems& p) {
  for (size_t i = 0; i < status.devices.size(); ++i) {
    const RdmaDeviceFacts& d = status.devices[i];
    const Problems at = p.At("devices").Index(i);
    AddUnique(names, d.name, at.At("name"));
    CheckPcieRoot(d.pcie_root, at.At("pcieRoot"));
    std::set<int32_t> ports;
    for (size_t j = 0; j < d.ports.size(); ++j) {
      const RdmaPortFacts& port = d.ports[j];
      const Problems port_at = at.At("ports").Index(j);
      if (port.number < 1) port_at.At("number").Add("port numbers start at 1");
      if (!ports.insert(port.number).second) port_at.At("number").Add("duplicate port number");
      std::set<int32_t> gids;
      for (size_t k = 0; k < port.gids.size(); ++k) {
        if (!gids.insert(port.gids[k].index).second) {
          port_at.At("gids").Index(k).At("index").Add("duplicate GID index");
        }
      }
    }
  }
}

// Visits the items of a list keyed by one field, reporting duplicate keys at that field.
template <typename T, typename Key, typename Visit>
void ForEachKeyed(const std::vector<T>& items, const Problems& list, std::string_view key_field,
                  Key key, Visit visit) {
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const Problems at = list.Index(i);
    AddUnique(seen, key(items[i]), at.At(key_field));
    visit(items[i], at);
  }
}

void CheckNodeStatus(const RdmaNodeStatus& status, const Problems& p) {
  std::set<std::string> devices;
  CheckDevices(status, devices, p);
  ForEachKeyed(
      status.netdevs, p.At("netdevs"), "name", [](const NetDevFacts& n) { return n.name; },
      [&](const NetDevFacts& n, const Problems& at) {
        CheckDeviceRef(n.rdma_device, devices, at.At("rdmaDevice"));
      });
  ForEachKeyed(
      status.gpus, p.At("gpus"), "pciAddress", [](const GpuFacts& g) { return g.pci_address; },
      [&](const GpuFacts& g, const Problems& at) {
        CheckDeviceRef(g.nearest_nic, devices, at.At("nearestNic"));
        if (g.bar1_total_bytes && g.bar1_free_bytes && *g.bar1_free_bytes > *g.bar1_total_bytes) {
          at.At("bar1FreeBytes").Add("exceeds bar1TotalBytes");
        }
        if (g.path_type && !EnumFromString<PcieDistance>(*g.path_type)) {
          at.At("pathType").Add("\"" + *g.path_type + "\" is not one of PIX, PXB, PHB, SYS");
        }
        if (g.acs_redirect_bridges.size() > 8) at.At("acsRedirectBridges").Add("more than 8");
        for (const auto& bdf : g.acs_redirect_bridges) {
          if (!IsPciAddress(bdf)) {
            at.At("acsRedirectBridges").Add("\"" + bdf + "\" is not a PCI address");
          }
        }
        if (g.nearest_nic_via && !IsPciAddress(*g.nearest_nic_via)) {
          at.At("nearestNicVia").Add("\"" + *g.nearest_nic_via + "\" is not a PCI address");
        }
        CheckPcieRoot(g.pcie_root, at.At("pcieRoot"));
        if (!g.acs_redirect_bridges.empty() && g.acs_redirect != true) {
          at.At("acsRedirectBridges").Add("names bridges while acsRedirect is not true");
        }
      });
  ForEachKeyed(
      status.checks, p.At("checks"), "id", [](const CheckResult& c) { return c.id; },
      [](const CheckResult&, const Problems&) {});
  if (status.verdicts) {
    const Problems v = p.At("verdicts");
    CheckVerdict(status.verdicts->gateway, false, v.At("gateway"));
    CheckVerdict(status.verdicts->gpu_direct, true, v.At("gpuDirect"));
    CheckVerdict(status.verdicts->host_memory, false, v.At("hostMemory"));
  }
}

}  // namespace

bool IsDnsLabel(std::string_view s) {
  return s.size() <= 63 && IsToken(s, IsLowerAlnum, [](char c) { return c == '-'; });
}

FieldProblems Validate(const GatewayPool& pool) {
  FieldProblems out;
  const Problems root(&out);
  if (!IsDnsSubdomain(pool.metadata.name))
    root.At("metadata").At("name").Add("must be a DNS subdomain name");
  CheckGatewayPoolSpec(pool, root.At("spec"));
  return out;
}

namespace {

void CheckWorkload(const WorkloadSpec& w, const Problems& p) {
  const int modes = (w.shared_device_plugin ? 1 : 0) + (w.sriov ? 1 : 0) + (w.host_device ? 1 : 0);
  if (modes != 1) {
    p.Add(
        "must name exactly one way pods reach the RDMA device: sharedDevicePlugin, sriov or "
        "hostDevice");
  }
  if (w.shared_device_plugin &&
      w.shared_device_plugin->resource_name.find('/') == std::string::npos)
    p.At("sharedDevicePlugin").At("resourceName").Add("must be an extended resource, DOMAIN/NAME");
  if (w.sriov) {
    if (w.sriov->resource_name.find('/') == std::string::npos)
      p.At("sriov").At("resourceName").Add("must be an extended resource, DOMAIN/NAME");
    if (w.sriov->network_attachment.empty())
      p.At("sriov").At("networkAttachment").Add("is required: the NetworkAttachmentDefinition");
  }
  if (w.config_mount_path.empty() || w.config_mount_path.front() != '/' ||
      w.config_mount_path == "/")
    p.At("configMountPath").Add("must be an absolute directory path other than /");
}

// S3 bucket naming rules (path-style): 3..63 of a-z 0-9 . -, starting and ending with a letter or
// digit. The name is also a top-level directory of the posix backend.
bool IsBucketName(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  if (!IsLowerAlnum(b.front()) || !IsLowerAlnum(b.back())) return false;
  return std::all_of(b.begin(), b.end(),
                     [](char c) { return IsLowerAlnum(c) || c == '.' || c == '-'; });
}

void CheckS3User(const ClientProfileSpec& spec, const Problems& p) {
  const S3UserSpec& u = *spec.s3_user;
  if (spec.credentials_secret)
    p.Add(
        "s3User and credentialsSecret exclude each other: with s3User the operator makes the "
        "keys");
  if (u.buckets.empty()) p.At("buckets").Add("must name at least one bucket");
  std::set<std::string> seen;
  for (size_t i = 0; i < u.buckets.size(); ++i) {
    if (!IsBucketName(u.buckets[i]))
      p.At("buckets").Index(i).Add("'" + u.buckets[i] +
                                   "' is not a bucket name (3-63 of a-z, 0-9, '.', '-')");
    else if (!seen.insert(u.buckets[i]).second)
      p.At("buckets").Index(i).Add("'" + u.buckets[i] + "' is listed twice");
  }
  if (u.previous_key_grace_seconds < 0 || u.previous_key_grace_seconds > 86400)
    p.At("previousKeyGraceSeconds").Add("must be 0..86400");
}

}  // namespace

FieldProblems Validate(const ClientProfile& profile) {
  FieldProblems out;
  const Problems root(&out);
  const Problems p = root.At("spec");
  const ClientProfileSpec& spec = profile.spec;
  if (!IsDnsSubdomain(profile.metadata.name))
    root.At("metadata").At("name").Add("must be a DNS subdomain name");
  CheckNodeSelector(spec.node_selector, p.At("nodeSelector"));
  CheckTolerations(spec.tolerations, p.At("tolerations"));
  if (!IsDnsSubdomain(spec.gateway_pool_ref.name)) {
    p.At("gatewayPoolRef").At("name").Add("must name a GatewayPool in the same namespace");
  }
  if (spec.transport == Transport::kHostMemory &&
      spec.memory_registration != MemoryRegistration::kAuto) {
    p.At("memoryRegistration")
        .Add(std::string(ToString(spec.memory_registration)) +
             " registers GPU memory, but transport HostMemory uses host buffers; leave it Auto");
  }
  CheckBytes(spec.max_transfer_size, 1, kMaxTransferBytes, "more than 0 and at most 4Gi",
             p.At("maxTransferSize"));
  if (spec.gid_index.is_int() ? (spec.gid_index.int_value() < 0 || spec.gid_index.int_value() > 255)
                              : spec.gid_index.str_value() != "Auto") {
    p.At("gidIndex").Add("must be Auto or a GID table index 0..255");
  }
  CheckLibraryVersion(spec.client_library.version, p.At("clientLibrary").At("version"));
  CheckPinnedImage(spec.client_library.image, p.At("clientLibrary").At("image"));
  if (spec.workload) CheckWorkload(*spec.workload, p.At("workload"));
  if (spec.s3_user) CheckS3User(spec, p.At("s3User"));
  return out;
}

FieldProblems Validate(const RdmaNode& node) {
  FieldProblems out;
  const Problems root(&out);
  if (node.spec.node_name.empty()) {
    root.At("spec").At("nodeName").Add("is required");
  } else if (node.spec.node_name != node.metadata.name) {
    root.At("spec").At("nodeName").Add("must equal metadata.name (\"" + node.metadata.name + "\")");
  }
  if (node.status) CheckNodeStatus(*node.status, root.At("status"));
  return out;
}

FieldProblems ValidateUpdate(const GatewayPool& old_pool, const GatewayPool& updated) {
  FieldProblems out = Validate(updated);
  const Problems spec = Problems(&out).At("spec");
  StatusOr<int> old_major = LibraryMajor(old_pool.spec.server_library.version);
  StatusOr<int> new_major = LibraryMajor(updated.spec.server_library.version);
  if (old_major.ok() && new_major.ok()) {
    if (*new_major > *old_major + 1 || *new_major < *old_major - 1) {
      spec.At("serverLibrary")
          .At("version")
          .Add(old_pool.spec.server_library.version + " -> " + updated.spec.server_library.version +
               " moves the library major by more than one step; upgrade one major at a time");
    }
    StatusOr<int32_t> old_s3 = EffectiveS3Port(old_pool.spec);
    StatusOr<int32_t> new_s3 = EffectiveS3Port(updated.spec);
    StatusOr<int32_t> old_rdma = EffectiveRdmaPort(old_pool.spec);
    StatusOr<int32_t> new_rdma = EffectiveRdmaPort(updated.spec);
    if (*new_major != *old_major && updated.spec.upgrade.strategy == UpgradeStrategy::kSideBySide &&
        (*old_s3 == *new_s3 || *old_rdma == *new_rdma)) {
      spec.At("serverLibrary")
          .At("version")
          .Add(
              "a SideBySide move to another major runs both gateways on each node; s3.port and "
              "rdma.port must both change with the major");
    } else if (*new_major != *old_major &&
               updated.spec.upgrade.strategy == UpgradeStrategy::kSideBySide && old_s3.ok() &&
               new_s3.ok() && old_rdma.ok() && new_rdma.ok()) {
      // With rails each track holds its ports plus 100 per rail: the two tracks' sets must not
      // meet either.
      auto ports = [](const GatewayPoolSpec& s, int32_t s3, int32_t rdma) {
        std::set<int32_t> out;
        const size_t rails = std::max<size_t>(s.rdma.rails.size(), 1);
        for (size_t i = 0; i < rails; ++i) {
          out.insert(s3 + static_cast<int32_t>(i) * kRailPortStride);
          out.insert(rdma + static_cast<int32_t>(i) * kRailPortStride);
        }
        return out;
      };
      const std::set<int32_t> before = ports(old_pool.spec, *old_s3, *old_rdma);
      for (int32_t p : ports(updated.spec, *new_s3, *new_rdma)) {
        if (!before.count(p)) continue;
        spec.At("serverLibrary")
            .At("version")
            .Add(
                "a SideBySide move runs both tracks' rails on each node, and both would use port " +
                std::to_string(p) + "; give the new major ports of its own");
        break;
      }
    }
  }
  // requireMount only says whether to refuse an unmounted root; everything else names the data.
  PosixBackend old_posix = old_pool.spec.backend.posix;
  old_posix.require_mount = updated.spec.backend.posix.require_mount;
  if (!(old_posix == updated.spec.backend.posix)) {
    spec.At("backend").Add("is immutable; create a new GatewayPool for a new backend");
  }
  bool serving =
      old_pool.status && old_pool.status->node_counts && old_pool.status->node_counts->ready > 0;
  if (serving && old_pool.spec.node_selector != updated.spec.node_selector) {
    spec.At("nodeSelector").Add("cannot change while gateways of this pool are serving");
  }
  return out;
}

std::string FormatProblems(const FieldProblems& problems) {
  std::string out;
  for (const FieldProblem& p : problems) {
    if (!out.empty()) out += "; ";
    out += p.path + ": " + p.message;
  }
  return out;
}

}  // namespace rdmastack::crd
