#include "agents/client/endpoints.h"

#include <rapidjson/document.h>

#include "base/json_parse.h"
#include "node/probe/host_root.h"

namespace rdmastack::client {
namespace {

constexpr size_t kEndpointsFileLimit = 4 << 20;  // ~40k endpoints; a ConfigMap holds 1 MiB

StatusOr<std::string> OptionalString(const rapidjson::Value& obj, const char* key,
                                     const std::string& where, std::string fallback) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return fallback;
  if (!it->value.IsString()) return InvalidArgumentError(where + key + " must be a string");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

StatusOr<PoolEndpoint> ParseEndpoint(const rapidjson::Value& v, const std::string& where) {
  if (!v.IsObject()) return InvalidArgumentError(where + " must be an object");
  PoolEndpoint ep;
  const std::string prefix = where + ".";
  RDMASTACK_ASSIGN_OR_RETURN(ep.node, OptionalString(v, "node", prefix, ""));
  RDMASTACK_ASSIGN_OR_RETURN(ep.address, OptionalString(v, "address", prefix, ""));
  RDMASTACK_ASSIGN_OR_RETURN(ep.library_version, OptionalString(v, "libraryVersion", prefix, ""));
  RDMASTACK_ASSIGN_OR_RETURN(ep.rail, OptionalString(v, "rail", prefix, ""));
  // The address goes into URLs and client.env: nothing that would change the URL's meaning.
  if (ep.address.empty() || ep.address.find_first_of(" \t\r\n/?#@[]") != std::string::npos) {
    return InvalidArgumentError(prefix + "address must be an IP address or host name, got '" +
                                ep.address + "'");
  }
  auto port = v.FindMember("s3Port");
  if (port == v.MemberEnd() || !port->value.IsInt() || port->value.GetInt() < 1 ||
      port->value.GetInt() > 65535) {
    return InvalidArgumentError(prefix + "s3Port must be an integer 1..65535");
  }
  ep.s3_port = port->value.GetInt();
  return ep;
}

constexpr size_t kMaxNetworks = 32;

StatusOr<rails::RailNetwork> ParseNetwork(const rapidjson::Value& v, const std::string& where) {
  if (!v.IsObject()) return InvalidArgumentError(where + " must be an object");
  rails::RailNetwork n;
  const std::string prefix = where + ".";
  RDMASTACK_ASSIGN_OR_RETURN(n.rail, OptionalString(v, "rail", prefix, ""));
  RDMASTACK_ASSIGN_OR_RETURN(n.cidr, OptionalString(v, "cidr", prefix, ""));
  if (!n.rail.empty() && !rails::IsRailName(n.rail)) {
    return InvalidArgumentError(prefix +
                                "rail must be a rail name (1-15 lower-case letters, digits or "
                                "'-', starting and ending with a letter or digit), got '" +
                                n.rail.substr(0, 64) + "'");
  }
  if (n.cidr.find('/') == std::string::npos || !rails::ParseIpv4Net(n.cidr)) {
    return InvalidArgumentError(prefix + "cidr must be an IPv4 network like 10.10.0.0/24, got '" +
                                n.cidr.substr(0, 64) + "'");
  }
  return n;
}

}  // namespace

std::vector<std::string> PoolEndpoints::Urls() const {
  std::vector<std::string> out;
  for (const auto& ep : endpoints) {
    const bool v6 = ep.address.find(':') != std::string::npos;
    out.push_back(scheme + "://" + (v6 ? "[" + ep.address + "]" : ep.address) + ":" +
                  std::to_string(ep.s3_port));
  }
  return out;
}

StatusOr<PoolEndpoints> ParseEndpointsJson(std::string_view text) {
  rapidjson::Document doc;
  if (Status parsed = ParseJsonDocument(doc, text); !parsed.ok()) {
    return InvalidArgumentError("not JSON: " + parsed.message());
  }
  if (!doc.IsObject()) return InvalidArgumentError("the top level must be an object");
  PoolEndpoints out;
  RDMASTACK_ASSIGN_OR_RETURN(out.pool, OptionalString(doc, "pool", "", ""));
  RDMASTACK_ASSIGN_OR_RETURN(out.region, OptionalString(doc, "region", "", "us-east-1"));
  RDMASTACK_ASSIGN_OR_RETURN(out.scheme, OptionalString(doc, "scheme", "", "http"));
  if (out.region.empty() || out.region.find_first_of(" \t\r\n") != std::string::npos) {
    return InvalidArgumentError("region must be a non-empty word, got '" + out.region + "'");
  }
  if (out.scheme != "http" && out.scheme != "https") {
    return InvalidArgumentError("scheme must be http or https, got '" + out.scheme + "'");
  }
  RDMASTACK_ASSIGN_OR_RETURN(out.ca_bundle, OptionalString(doc, "caBundle", "", ""));
  if (!out.ca_bundle.empty() &&
      out.ca_bundle.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    return InvalidArgumentError("caBundle must be PEM certificates (BEGIN CERTIFICATE)");
  // Const iterators: RapidJSON 1.1.0 compares a mutable member iterator only with a const one,
  // which C++20's reversed operators make ambiguous (clang's -Wambiguous-reversed-operator).
  const rapidjson::Value& root = doc;
  auto list = root.FindMember("endpoints");
  if (list == root.MemberEnd() || !list->value.IsArray()) {
    return InvalidArgumentError("endpoints must be an array");
  }
  for (rapidjson::SizeType i = 0; i < list->value.Size(); ++i) {
    RDMASTACK_ASSIGN_OR_RETURN(
        PoolEndpoint ep, ParseEndpoint(list->value[i], "endpoints[" + std::to_string(i) + "]"));
    out.endpoints.push_back(std::move(ep));
  }
  auto networks = root.FindMember("networks");
  if (networks != root.MemberEnd() && !networks->value.IsNull()) {
    if (!networks->value.IsArray() || networks->value.Size() > kMaxNetworks) {
      return InvalidArgumentError("networks must be an array of at most " +
                                  std::to_string(kMaxNetworks) + " networks");
    }
    for (rapidjson::SizeType i = 0; i < networks->value.Size(); ++i) {
      RDMASTACK_ASSIGN_OR_RETURN(
          rails::RailNetwork n,
          ParseNetwork(networks->value[i], "networks[" + std::to_string(i) + "]"));
      out.networks.push_back(std::move(n));
    }
  }
  return out;
}

std::vector<PoolEndpoint> EndpointsOnRails(const std::vector<PoolEndpoint>& endpoints,
                                           const std::set<std::string>& rails) {
  std::vector<PoolEndpoint> out;
  for (const PoolEndpoint& e : endpoints) {
    if (e.rail.empty() || rails.contains(e.rail)) out.push_back(e);
  }
  return rails.empty() || out.empty() ? endpoints : out;
}

StatusOr<PoolEndpoints> ReadEndpointsFile(const std::string& path) {
  StatusOr<std::string> text = node::ReadLocalFile(path, kEndpointsFileLimit);
  if (!text.ok()) return text.status();
  StatusOr<PoolEndpoints> parsed = ParseEndpointsJson(*text);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  return parsed;
}

}  // namespace rdmastack::client
