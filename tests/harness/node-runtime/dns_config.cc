#include "tests/harness/node-runtime/dns_config.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace rdmastack::sim {
namespace {

struct Resolver {
  std::vector<std::string> nameservers, searches, options;
};

std::vector<std::string> Strings(const k8s::JsonObject& pod, const k8s::JsonPath& path) {
  std::vector<std::string> out;
  const rapidjson::Value* v = pod.Find(path);
  if (v == nullptr || !v->IsArray()) return out;
  for (const auto& item : v->GetArray())
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  return out;
}

Resolver ParseResolvConf(const std::string& text) {
  Resolver r;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    std::vector<std::string>* into = key == "nameserver" ? &r.nameservers
                                     : key == "search"   ? &r.searches
                                     : key == "options"  ? &r.options
                                                         : nullptr;
    if (into == nullptr) continue;
    if (key == "search") into->clear();  // the last search line wins, as in glibc
    for (std::string w; words >> w;) into->push_back(w);
  }
  return r;
}

void AppendNew(std::vector<std::string>* to, const std::vector<std::string>& more) {
  for (const std::string& s : more)
    if (std::find(to->begin(), to->end(), s) == to->end()) to->push_back(s);
}

// spec.dnsConfig options replace those of the same name ("ndots:2" over "ndots:5").
void MergeOptions(std::vector<std::string>* to, const k8s::JsonObject& pod) {
  for (const k8s::JsonObject& o : pod.GetArray({"spec", "dnsConfig", "options"})) {
    const std::string name = o.GetString({"name"}).value_or("");
    if (name.empty()) continue;
    const std::optional<std::string> value = o.GetString({"value"});
    const std::string text = value ? name + ":" + *value : name;
    auto same = std::find_if(to->begin(), to->end(), [&](const std::string& s) {
      return s.substr(0, s.find(':')) == name;
    });
    if (same != to->end()) {
      *same = text;
    } else {
      to->push_back(text);
    }
  }
}

}  // namespace

std::string RenderResolvConf(const k8s::JsonObject& pod, const ClusterDns& dns,
                             const std::string& node_resolv_conf) {
  const std::string policy = pod.GetString({"spec", "dnsPolicy"}).value_or("ClusterFirst");
  const bool host_network = pod.GetBool({"spec", "hostNetwork"}).value_or(false);
  const bool cluster = !dns.nameserver.empty() && (policy == "ClusterFirstWithHostNet" ||
                                                   (policy == "ClusterFirst" && !host_network));
  Resolver r;
  if (cluster) {
    const std::string ns(pod.Namespace().empty() ? "default" : pod.Namespace());
    r.nameservers = {dns.nameserver};
    r.searches = {ns + ".svc." + dns.domain, "svc." + dns.domain, dns.domain};
    r.options = {"ndots:5"};
  } else if (policy != "None") {
    r = ParseResolvConf(node_resolv_conf);
  }
  AppendNew(&r.nameservers, Strings(pod, {"spec", "dnsConfig", "nameservers"}));
  AppendNew(&r.searches, Strings(pod, {"spec", "dnsConfig", "searches"}));
  MergeOptions(&r.options, pod);
  std::string out;
  if (!r.searches.empty()) {
    out += "search";
    for (const std::string& s : r.searches) out += " " + s;
    out += "\n";
  }
  for (const std::string& n : r.nameservers) out += "nameserver " + n + "\n";
  if (!r.options.empty()) {
    out += "options";
    for (const std::string& o : r.options) out += " " + o;
    out += "\n";
  }
  return out;
}

}  // namespace rdmastack::sim
