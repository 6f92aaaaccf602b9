#include "cmd/rdmastack-operator/operator_options.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "base/duration.h"
#include "base/flag_reader.h"
#include "base/quantity.h"
#include "base/version.h"
#include "controllers/common/host_policy.h"
#include "controllers/rdmanode/resource_slice.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/http_server.h"

namespace rdmastack::operator_cmd {
namespace {

// A bind address, or "0" for "do not serve".
Status CheckBindAddress(const std::string& flag, const std::string& value, bool zero_disables) {
  if (zero_disables && value == "0") return OkStatus();
  if (auto parsed = runtime::ParseBindAddress(value); !parsed.ok()) {
    return InvalidArgumentError(flag + ": " + parsed.status().message() +
                                (zero_disables ? " (or 0 to disable)" : ""));
  }
  return OkStatus();
}

StatusOr<bool> ParseBool(const std::string& flag, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return InvalidArgumentError(flag + " must be true or false, got '" + value + "'");
}

}  // namespace

const char* const kOperatorUsage =
    "usage: rdmastack-operator [flags]\n"
    "\n"
    "Runs the rdmastack operator: GatewayPool, ClientProfile and RdmaNode controllers and the "
    "agent\n"
    "hub, against the cluster of --kubeconfig (else the in-cluster config, else $KUBECONFIG).\n"
    "\n"
    "  --kubeconfig PATH                    kubeconfig file\n"
    "  --leader-elect                       elect a leader on a Lease before writing (default "
    "false)\n"
    "  --leader-election-namespace NS       namespace of the Lease (default: the pod's, else\n"
    "                                       rdmastack-system)\n"
    "  --leader-election-id NAME            name of the Lease (default rdmastack-operator)\n"
    "  --leader-election-lease-duration D   how long a lease holds without renewal (default 15s)\n"
    "  --leader-election-renew-deadline D   the leader stops writing and exits when it could not\n"
    "                                       renew within this (default 10s)\n"
    "  --leader-election-retry-period D     between acquire/renew attempts (default 2s)\n"
    "  --graceful-shutdown-timeout D        on SIGTERM, how long in-flight work may finish "
    "(default 30s)\n"
    "  --metrics-bind-address ADDR          metrics endpoint, host:port; 0 disables (default "
    ":8443)\n"
    "  --metrics-secure                     HTTPS with TokenReview + SubjectAccessReview on every\n"
    "                                       scrape (default true; false serves plain HTTP)\n"
    "  --metrics-cert-dir DIR               tls.crt and tls.key for metrics (default: "
    "self-signed)\n"
    "  --health-probe-bind-address ADDR     /healthz and /readyz; 0 disables (default :8081)\n"
    "  --health-probe-max-connections N     connections the probe listener holds at once\n"
    "                                       (default 256)\n"
    "  --health-probe-max-connections-per-address N\n"
    "                                       of those, from one peer address (default 8; 0: no\n"
    "                                       limit of its own)\n"
    "  --metrics-max-connections N          the same for the metrics listener (default 64)\n"
    "  --metrics-max-connections-per-address N\n"
    "                                       (default 8)\n"
    "  --http-header-timeout D              the probe, metrics and webhook listeners close a\n"
    "                                       connection whose request head (TLS handshake\n"
    "                                       included) has not arrived within D (default 5s)\n"
    "  --http-idle-timeout D                and a kept-alive one idle between requests for D\n"
    "                                       (default 30s)\n"
    "  --agent-bind-address ADDR            agent hub gRPC endpoint (default :9443)\n"
    "  --agent-image IMAGE                  node agent image (default "
    "ghcr.io/rdmastack/agent:<version>)\n"
    "  --agent-namespace NS                 namespace of the agent DaemonSet (default: the "
    "pod's,\n"
    "                                       else rdmastack-system)\n"
    "  --agent-hub-address HOST:PORT        where agents dial the hub (default\n"
    "                                       rdmastack-agenthub.<agent namespace>.svc:<hub port>)\n"
    "  --agent-pod-label KEY=VALUE          extra label on agent pods (repeatable)\n"
    "  --agent-arg ARG                      extra argument to `rdmastack-agent run` "
    "(repeatable)\n"
    "  --agent-tolerations JSON             extra tolerations of agent pods (a JSON array)\n"
    "  --agent-resources JSON               resources of the agent container (a JSON object)\n"
    "  --agent-stale-ttl D                  an agent silent this long is Stale (default 60s)\n"
    "  --node-label-grace D                 a Stale node keeps its labels this long (default "
    "5m)\n"
    "  --dra-resource-slices                publish each node's RDMA ports as DRA devices of\n"
    "                                       driver rdma.rdmastack.io (ResourceSlices; default "
    "off)\n"
    "  --agent-hub-cert-validity D          validity of the hub's generated serving certificate,\n"
    "                                       renewed after 2/3 of it (default 2160h)\n"
    "  --agent-hub-pending-per-address N    Hellos of one address in authentication at once\n"
    "                                       (default 4; 0: no limit)\n"
    "  --agent-hub-failures-per-minute N    refused Hellos of one address before its Hellos are\n"
    "                                       refused unreviewed for the rest of the minute\n"
    "                                       (default 10; 0: no limit)\n"
    "  --agent-hub-max-connections N        connections the agent hub holds at once, agents'\n"
    "                                       and any other peer's (default 4096)\n"
    "  --agent-hub-max-connections-per-address N\n"
    "                                       of those, from one peer address (default 8; 0: no\n"
    "                                       limit of its own)\n"
    "  --agent-hub-memory-quota Q           gRPC's memory quota of the agent hub (default 256Mi)\n"
    "  --agent-hub-hello-timeout D          a stream whose Hello has not arrived within D is\n"
    "                                       closed (default 10s)\n"
    "  --webhook-bind-address ADDR          pod admission webhook (HTTPS); 0 disables (default\n"
    "                                       :9444)\n"
    "  --webhook-configuration NAME         MutatingWebhookConfiguration whose caBundle the\n"
    "                                       operator keeps (default "
    "rdmastack-clientprofile-injector)\n"
    "  --webhook-host NAME                  extra DNS name or IP in the webhook's generated\n"
    "                                       certificate (repeatable)\n"
    "  --webhook-cert-validity D            validity of the webhook's generated serving\n"
    "                                       certificate, renewed after 2/3 of it (default 2160h)\n"
    "  --webhook-max-connections N          connections the webhook listener holds at once\n"
    "                                       (default 32)\n"
    "  --webhook-max-connections-per-address N\n"
    "                                       of those, from one peer address (default 8)\n"
    "  --image-pull-secret NAME             Secret with registry credentials, listed in every\n"
    "                                       agent, gateway and client pod (repeatable)\n"
    "  --node-priority-class NAME           priorityClassName of agent, gateway and client pods;\n"
    "                                       none sets none (default system-node-critical)\n"
    "  --allow-image [NS=]PREFIX            images pools and profiles may name start with one of\n"
    "                                       these (in NS only, with NS=); none given: any image\n"
    "                                       (repeatable)\n"
    "  --allow-backend-path [NS=]DIR        a pool's backend.posix.hostPath lies in one of these\n"
    "                                       (in NS only, with NS=); none given: any directory\n"
    "                                       (repeatable)\n"
    "  --tenant-namespace NS                serve pools and profiles in NS only (repeatable; the\n"
    "                                       chart then grants Secrets and writes there only);\n"
    "                                       none given: every namespace\n"
    "  --host-port-range MIN-MAX            host ports a pool's gateways may bind (s3.port,\n"
    "                                       rdma.port); others are refused HostPortNotAllowed\n"
    "                                       (default 1024-65535)\n"
    "  --allow-control-plane-tolerations    let pools and profiles tolerate the control plane's\n"
    "                                       taints (default: refused\n"
    "                                       ControlPlaneTolerationNotAllowed)\n"
    "  --gateway-pod-label KEY=VALUE        extra label on gateway pods (repeatable)\n"
    "  --gateway-env NAME=VALUE             extra environment of the gateway container "
    "(repeatable)\n"
    "  --gateway-host-mount DIR             host directory mounted read-only at /host<DIR> in\n"
    "                                       gateway pods (repeatable; for fixture hosts)\n"
    "  --gateway-rdma-resource NAME         extended resource each gateway requests for the RDMA\n"
    "                                       devices; none requests nothing (default\n"
    "                                       rdma/hca_shared_devices_a)\n"
    "  --compatibility-file PATH            compatibility data (default: the built-in copy of\n"
    "                                       gateway/compatibility.yaml)\n"
    "  --compatibility-configmap NS/NAME    compatibility data from this ConfigMap's key\n"
    "                                       compatibility.yaml (wins over the file)\n"
    "  --gateway-answer-max-size Q          bytes the operator reads of one answer of a gateway's\n"
    "                                       admin API (list-users, ListBuckets, a bucket policy);\n"
    "                                       a longer one fails the call (default 4Mi)\n"
    "  --upgrade-validation MODE            how a node's new gateway is checked before clients\n"
    "                                       move to it: s3 (the operator's signed ListBuckets)\n"
    "                                       or pod-ready (the pod's Ready condition; default s3)\n"
    "  --client-image IMAGE                 client data-plane image of ClientProfiles (default\n"
    "                                       ghcr.io/rdmastack/client:<version>)\n"
    "  --client-pod-label KEY=VALUE         extra label on client data-plane pods (repeatable)\n"
    "  --client-arg ARG                     extra argument to `rdmastack-client run` "
    "(repeatable)\n"
    "  --client-library-max-file-size Q     bytes one file of a profile's library image may\n"
    "                                       put on a node (default: the client's, 64Mi)\n"
    "  --client-library-max-size Q          bytes a whole library image may put on a node\n"
    "                                       (default: the client's, 128Mi)\n"
    "  --controllers LIST                   optional controllers to run: * for all, -NAME turns\n"
    "                                       one off (known: gatewaypool, clientprofile; default "
    "*)\n"
    "  --log-level LEVEL                    trace|debug|info|warn|error (default info)\n"
    "  --log-format FORMAT                  text|json (default text)\n"
    "  --version                            print the version and exit\n"
    "  --help                               print this help and exit\n";

StatusOr<OperatorOptions> ParseOperatorOptions(const std::vector<std::string>& args) {
  OperatorOptions o;
  using Setter = std::function<Status(const std::string& flag, const std::string& value)>;
  auto text = [](std::string* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      if (value.empty()) return InvalidArgumentError(flag + " must not be empty");
      *field = value;
      return OkStatus();
    };
  };
  auto boolean = [](bool* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      RDMASTACK_ASSIGN_OR_RETURN(*field, ParseBool(flag, value));
      return OkStatus();
    };
  };
  auto duration = [](std::chrono::milliseconds* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      auto d = ParseDuration(value);
      if (!d.ok()) return InvalidArgumentError(flag + ": " + d.status().message());
      if (d->count() <= 0) return InvalidArgumentError(flag + " must be above 0s");
      *field = *d;
      return OkStatus();
    };
  };
  auto key_value = [](std::map<std::string, std::string>* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      const size_t eq = value.find('=');
      if (eq == 0 || eq == std::string::npos) {
        return InvalidArgumentError(flag + " must be KEY=VALUE, got '" + value + "'");
      }
      (*field)[value.substr(0, eq)] = value.substr(eq + 1);
      return OkStatus();
    };
  };
  // A whole number from 0 to 1,000,000 (0 = no limit).
  auto count = [](int* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      int n = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (error != std::errc() || end != value.data() + value.size() || n < 0 || n > 1'000'000)
        return InvalidArgumentError(flag +
                                    " must be a whole number from 0 (no limit) to "
                                    "1000000, got '" +
                                    value + "'");
      *field = n;
      return OkStatus();
    };
  };
  // A connection limit: 1 to 1,000,000, or 0 (no limit of its own) where `zero` says so.
  auto limit = [](size_t* field, bool zero) -> Setter {
    return [field, zero](const std::string& flag, const std::string& value) {
      size_t n = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (error != std::errc() || end != value.data() + value.size() || (n == 0 && !zero) ||
          n > 1'000'000)
        return InvalidArgumentError(flag + " must be a whole number from " +
                                    (zero ? "0 (no limit)" : "1") + " to 1000000, got '" + value +
                                    "'");
      *field = n;
      return OkStatus();
    };
  };
  auto list = [](std::vector<std::string>* field) -> Setter {
    return [field](const std::string& flag, const std::string& value) {
      if (value.empty()) return InvalidArgumentError(flag + " must not be empty");
      field->push_back(value);
      return OkStatus();
    };
  };
  auto address = [](std::string* field, bool zero_disables) -> Setter {
    return [field, zero_disables](const std::string& flag, const std::string& value) {
      RDMASTACK_RETURN_IF_ERROR(CheckBindAddress(flag, value, zero_disables));
      *field = value;
      return OkStatus();
    };
  };
  // A JSON value of the given type, kept as text (the renderer embeds it).
  auto json = [](std::string* field, bool want_array) -> Setter {
    return [field, want_array](const std::string& flag, const std::string& value) {
      auto parsed = k8s::JsonObject::Parse(value);
      const char* want = want_array ? "a JSON array" : "a JSON object";
      if (!parsed.ok())
        return InvalidArgumentError(flag + " must be " + want + ": " +
                                    std::string(parsed.status().message()));
      if ((want_array ? parsed->IsArray() : parsed->IsObject()) == false)
        return InvalidArgumentError(flag + " must be " + want + ", got '" + value + "'");
      *field = value;
      return OkStatus();
    };
  };
  using RuleParser = StatusOr<controllers::TenancyRule> (*)(std::string_view);
  auto tenancy_rule = [](RuleParser parse, std::vector<controllers::TenancyRule>* rules) -> Setter {
    return [parse, rules](const std::string& flag, const std::string& value) {
      auto rule = parse(value);
      if (!rule.ok())
        return InvalidArgumentError(flag + ": " + std::string(rule.status().message()));
      rules->push_back(*rule);
      return OkStatus();
    };
  };
  // A byte budget: a quantity above 0 ("64Mi").
  auto byte_budget = [](int64_t* out) {
    return [out](const std::string& flag, const std::string& value) {
      StatusOr<int64_t> q = ParseByteQuantity(value);
      if (!q.ok()) return InvalidArgumentError(flag + ": " + std::string(q.status().message()));
      if (*q <= 0) return InvalidArgumentError(flag + " '" + value + "' must be above 0");
      *out = *q;
      return OkStatus();
    };
  };
  const std::map<std::string, Setter> value_flags = {
      {"--kubeconfig", text(&o.kubeconfig)},
      {"--leader-election-namespace", text(&o.leader_election_namespace)},
      {"--leader-election-id", text(&o.leader_election_id)},
      {"--leader-election-lease-duration", duration(&o.lease_duration)},
      {"--leader-election-renew-deadline", duration(&o.renew_deadline)},
      {"--leader-election-retry-period", duration(&o.retry_period)},
      {"--graceful-shutdown-timeout", duration(&o.graceful_shutdown_timeout)},
      {"--metrics-bind-address", address(&o.metrics_bind_address, true)},
      {"--metrics-cert-dir", text(&o.metrics_cert_dir)},
      {"--health-probe-bind-address", address(&o.health_probe_bind_address, true)},
      {"--health-probe-max-connections", limit(&o.health_probe_connections.max_connections, false)},
      {"--health-probe-max-connections-per-address",
       limit(&o.health_probe_connections.max_connections_per_address, true)},
      {"--metrics-max-connections", limit(&o.metrics_connections.max_connections, false)},
      {"--metrics-max-connections-per-address",
       limit(&o.metrics_connections.max_connections_per_address, true)},
      {"--webhook-max-connections", limit(&o.webhook_connections.max_connections, false)},
      {"--webhook-max-connections-per-address",
       limit(&o.webhook_connections.max_connections_per_address, true)},
      {"--agent-hub-max-connections", limit(&o.agent_hub_connections.max_connections, false)},
      {"--agent-hub-max-connections-per-address",
       limit(&o.agent_hub_connections.max_connections_per_address, true)},
      {"--agent-hub-memory-quota", byte_budget(&o.agent_hub_memory_quota_bytes)},
      {"--agent-hub-hello-timeout", duration(&o.agent_hub_hello_timeout)},
      {"--http-header-timeout", duration(&o.http_header_timeout)},
      {"--http-idle-timeout", duration(&o.http_idle_timeout)},
      {"--agent-bind-address", address(&o.agent_bind_address, false)},
      {"--agent-image", text(&o.agent_image)},
      {"--agent-namespace", text(&o.agent_namespace)},
      {"--agent-hub-address", text(&o.agent_hub_address)},
      {"--agent-pod-label", key_value(&o.agent_pod_labels)},
      {"--agent-arg", list(&o.agent_args)},
      {"--agent-tolerations", json(&o.agent_tolerations, true)},
      {"--agent-resources", json(&o.agent_resources, false)},
      {"--image-pull-secret", list(&o.image_pull_secrets)},
      {"--node-priority-class", text(&o.node_priority_class)},
      {"--allow-image", tenancy_rule(controllers::ParseImageRule, &o.tenancy.images)},
      {"--allow-backend-path",
       tenancy_rule(controllers::ParseBackendPathRule, &o.tenancy.backend_paths)},
      {"--tenant-namespace",
       [&o](const std::string& flag, const std::string& value) {
         if (Status ok = controllers::CheckNamespaceName(value); !ok.ok())
           return InvalidArgumentError(flag + ": " + std::string(ok.message()));
         o.tenancy.namespaces.push_back(value);
         return OkStatus();
       }},
      {"--host-port-range",
       [&o](const std::string& flag, const std::string& value) {
         if (Status ok = controllers::ParseHostPortRange(value, &o.tenancy.host_ports); !ok.ok())
           return InvalidArgumentError(flag + ": " + std::string(ok.message()));
         return OkStatus();
       }},
      {"--gateway-pod-label", key_value(&o.gateway_pod_labels)},
      {"--client-image", text(&o.client_image)},
      {"--client-pod-label", key_value(&o.client_pod_labels)},
      {"--client-arg", list(&o.client_args)},
      {"--client-library-max-file-size", byte_budget(&o.client_library_max_file_bytes)},
      {"--client-library-max-size", byte_budget(&o.client_library_max_bytes)},
      {"--gateway-answer-max-size", byte_budget(&o.gateway_answer_max_bytes)},
      {"--gateway-env",
       [&o, key_value](const std::string& flag, const std::string& value) {
         std::map<std::string, std::string> one;
         RDMASTACK_RETURN_IF_ERROR(key_value(&one)(flag, value));
         o.gateway_env.emplace_back(*one.begin());
         return OkStatus();
       }},
      {"--gateway-host-mount",
       [&o](const std::string& flag, const std::string& value) {
         if (value.empty() || value.front() != '/' || value == "/")
           return InvalidArgumentError(flag + " must be an absolute directory other than /, got '" +
                                       value + "'");
         o.gateway_host_mounts.push_back(value);
         return OkStatus();
       }},
      {"--gateway-rdma-resource", text(&o.gateway_rdma_resource)},
      {"--upgrade-validation",
       [&o](const std::string& flag, const std::string& value) {
         if (value != "s3" && value != "pod-ready")
           return InvalidArgumentError(flag + " must be s3 or pod-ready, got '" + value + "'");
         o.upgrade_validation = value;
         return OkStatus();
       }},
      {"--controllers",
       [&o](const std::string& flag, const std::string& value) {
         o.controllers.clear();
         size_t start = 0;
         while (start <= value.size()) {
           const size_t comma = std::min(value.find(',', start), value.size());
           std::string item = value.substr(start, comma - start);
           const std::string name = item.rfind('-', 0) == 0 ? item.substr(1) : item;
           if (item != "*" && name != "gatewaypool" && name != "clientprofile")
             return InvalidArgumentError(
                 flag + ": unknown controller '" + item +
                 "' (known: gatewaypool, clientprofile; * for all, -NAME to turn one off)");
           o.controllers.push_back(item);
           start = comma + 1;
         }
         return OkStatus();
       }},
      {"--compatibility-file", text(&o.compatibility_file)},
      {"--compatibility-configmap",
       [&o](const std::string& flag, const std::string& value) {
         const size_t slash = value.find('/');
         if (slash == 0 || slash == std::string::npos || slash + 1 == value.size() ||
             value.find('/', slash + 1) != std::string::npos)
           return InvalidArgumentError(flag + " must be NAMESPACE/NAME, got '" + value + "'");
         o.compatibility_configmap = value;
         return OkStatus();
       }},
      {"--agent-stale-ttl", duration(&o.agent_stale_ttl)},
      {"--node-label-grace", duration(&o.node_label_grace)},
      {"--agent-hub-cert-validity", duration(&o.agent_hub_cert_validity)},
      {"--agent-hub-pending-per-address", count(&o.agent_hub_per_address.max_pending)},
      {"--agent-hub-failures-per-minute", count(&o.agent_hub_per_address.max_failures_per_minute)},
      {"--webhook-bind-address", address(&o.webhook_bind_address, true)},
      {"--webhook-configuration", text(&o.webhook_configuration)},
      {"--webhook-host", list(&o.webhook_hosts)},
      {"--webhook-cert-validity", duration(&o.webhook_cert_validity)},
      {"--log-level",
       [&o](const std::string& flag, const std::string& value) {
         static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error"};
         for (const char* level : kLevels) {
           if (value == level) {
             o.log_level = value;
             return OkStatus();
           }
         }
         return InvalidArgumentError(flag + " must be trace, debug, info, warn or error, got '" +
                                     value + "'");
       }},
      {"--log-format",
       [&o](const std::string& flag, const std::string& value) {
         if (value == "json") {
           o.log_format = LogFormat::kJson;
         } else if (value == "text") {
           o.log_format = LogFormat::kText;
         } else {
           return InvalidArgumentError(flag + " must be json or text, got '" + value + "'");
         }
         return OkStatus();
       }},
  };
  const std::map<std::string, Setter> bool_flags = {
      {"--leader-elect", boolean(&o.leader_elect)},
      {"--metrics-secure", boolean(&o.metrics_secure)},
      {"--allow-control-plane-tolerations", boolean(&o.tenancy.allow_control_plane_tolerations)},
      {"--dra-resource-slices", boolean(&o.dra_resource_slices)},
      {"--version", boolean(&o.show_version)},
      {"--help", boolean(&o.show_help)},
  };

  std::set<std::string> booleans = {"-h"};
  for (const auto& [name, setter] : bool_flags) booleans.insert(name);
  for (size_t i = 0; i < args.size();) {
    // Known before its value is taken: an unknown flag must not swallow the next argument.
    const std::string name = args[i].substr(0, args[i].find('='));
    if (booleans.count(name) == 0 && value_flags.count(name) == 0) {
      if (name.rfind("-", 0) != 0)
        return InvalidArgumentError("unexpected argument '" + name + "'");
      return InvalidArgumentError("unknown flag " + name + " (see --help)");
    }
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, booleans));
    if (next.flag == "-h") next.flag = "--help";
    if (auto b = bool_flags.find(next.flag); b != bool_flags.end()) {
      RDMASTACK_RETURN_IF_ERROR(b->second(next.flag, next.value));
    } else {
      RDMASTACK_RETURN_IF_ERROR(value_flags.at(next.flag)(next.flag, next.value));
    }
  }
  if (o.agent_hub_memory_quota_bytes < int64_t{16} << 20) {
    return InvalidArgumentError("--agent-hub-memory-quota must be at least 16Mi");
  }
  // client-go's rules, checked here so that a bad combination is a flag error, not a start-up one.
  if (o.lease_duration < std::chrono::seconds(1)) {
    return InvalidArgumentError(
        "--leader-election-lease-duration must be at least 1s (the Lease stores whole seconds)");
  }
  if (o.lease_duration <= o.renew_deadline) {
    return InvalidArgumentError(
        "--leader-election-lease-duration must be greater than --leader-election-renew-deadline");
  }
  if (o.renew_deadline * 10 <= o.retry_period * 12) {
    return InvalidArgumentError(
        "--leader-election-renew-deadline must be greater than 1.2 x "
        "--leader-election-retry-period");
  }
  return o;
}

controllers::NodePodPolicy NodePodPolicyFrom(const OperatorOptions& options) {
  controllers::NodePodPolicy policy;
  policy.image_pull_secrets = options.image_pull_secrets;
  policy.priority_class_name =
      options.node_priority_class == "none" ? "" : options.node_priority_class;
  policy.tenancy = options.tenancy;
  return policy;
}

rdmanode::NodeControllerOptions NodeControllerOptionsFrom(const OperatorOptions& options,
                                                          const std::string& default_namespace) {
  rdmanode::NodeControllerOptions out;
  out.label_grace = options.node_label_grace;
  if (options.dra_resource_slices) out.dra_driver = rdmanode::kDraDriverName;
  rdmanode::AgentDaemonSetOptions& agent = out.agent;
  // The agent speaks the operator's protocol version: same release, same tag.
  agent.image = options.agent_image.empty() ? std::string("ghcr.io/rdmastack/agent:") + kVersion
                                            : options.agent_image;
  agent.namespace_ = options.agent_namespace.empty() ? default_namespace : options.agent_namespace;
  if (!options.agent_hub_address.empty()) {
    agent.hub_address = options.agent_hub_address;
  } else {
    auto bind = runtime::ParseBindAddress(options.agent_bind_address);
    const uint16_t port = bind.ok() ? bind->port : 9443;  // the flag was checked when parsed
    agent.hub_address = "rdmastack-agenthub." + agent.namespace_ + ".svc:" + std::to_string(port);
  }
  agent.pod_labels = options.agent_pod_labels;
  agent.extra_args = options.agent_args;
  agent.extra_tolerations_json = options.agent_tolerations;
  agent.resources_json = options.agent_resources;
  agent.node_pods = NodePodPolicyFrom(options);
  return out;
}

bool ControllerEnabled(const OperatorOptions& options, std::string_view name) {
  bool enabled = false;
  for (const std::string& item : options.controllers) {
    if (item == "*" || item == name) enabled = true;
    if (item.size() == name.size() + 1 && item[0] == '-' && item.substr(1) == name) return false;
  }
  return enabled;
}

// The client runs the agent's checks: same release, same tag.
std::string ClientImage(const OperatorOptions& options) {
  return options.client_image.empty() ? std::string("ghcr.io/rdmastack/client:") + kVersion
                                      : options.client_image;
}

gatewaypool::GatewayPoolControllerOptions GatewayPoolOptionsFrom(const OperatorOptions& options) {
  gatewaypool::GatewayPoolControllerOptions out;
  out.render.pod_labels = options.gateway_pod_labels;
  out.render.extra_env = options.gateway_env;
  out.render.host_mounts = options.gateway_host_mounts;
  out.render.rdma_resource =
      options.gateway_rdma_resource == "none" ? "" : options.gateway_rdma_resource;
  out.compatibility_file = options.compatibility_file;
  out.compatibility_configmap = options.compatibility_configmap;
  out.upgrade_validation = options.upgrade_validation;
  out.render.node_pods = NodePodPolicyFrom(options);
  out.render.cleanup_image = ClientImage(options);
  return out;
}

clientprofile::ClientProfileControllerOptions ClientProfileOptionsFrom(
    const OperatorOptions& options) {
  clientprofile::ClientProfileControllerOptions out;
  out.render.image = ClientImage(options);
  out.render.pod_labels = options.client_pod_labels;
  out.render.extra_args = options.client_args;
  out.render.library_max_file_bytes = options.client_library_max_file_bytes;
  out.render.library_max_bytes = options.client_library_max_bytes;
  out.render.node_pods = NodePodPolicyFrom(options);
  out.gateway_answer_max_bytes = static_cast<uint64_t>(options.gateway_answer_max_bytes);
  return out;
}

agenthub::AgentHubOptions AgentHubOptionsFrom(const OperatorOptions& options,
                                              const rdmanode::NodeControllerOptions& nodes) {
  agenthub::AgentHubOptions out;
  out.listen_address = options.agent_bind_address;
  const std::string& ns = nodes.agent.namespace_;
  out.policy.service_account_namespace = ns;
  out.policy.service_account_name = rdmanode::kAgentServiceAccount;
  out.policy.audience = rdmanode::kAgentHubAudience;
  out.policy.daemonset_name = rdmanode::kAgentName;
  out.streams.per_address = options.agent_hub_per_address;
  out.streams.hello_timeout = options.agent_hub_hello_timeout;
  out.connections = options.agent_hub_connections;
  out.memory_quota_bytes = static_cast<size_t>(options.agent_hub_memory_quota_bytes);
  out.certificates.namespace_ = ns;
  out.certificates.ca_config_map = rdmanode::kAgentHubCaConfigMap;
  out.certificates.serving_validity =
      std::chrono::duration_cast<std::chrono::seconds>(options.agent_hub_cert_validity);
  // Look often enough to renew a short-lived certificate in time (a sixth of its life), at most
  // once a minute otherwise.
  out.certificates.check_interval = std::min<Clock::Duration>(
      std::chrono::minutes(1),
      std::chrono::duration_cast<Clock::Duration>(options.agent_hub_cert_validity / 6));
  const std::string service = "rdmastack-agenthub";
  std::vector<std::string>& hosts = out.certificates.hosts;
  // The name agents verify: --tls-server-name, else the host part of host:port (brackets off).
  std::string dialled = nodes.agent.tls_server_name;
  if (dialled.empty()) {
    const std::string& address = nodes.agent.hub_address;
    dialled = address.substr(0, address.rfind(':'));
    if (dialled.size() > 2 && dialled.front() == '[' && dialled.back() == ']') {
      dialled = dialled.substr(1, dialled.size() - 2);
    }
  }
  if (!dialled.empty()) hosts.push_back(dialled);
  for (const std::string& name : {service, service + "." + ns, service + "." + ns + ".svc",
                                  service + "." + ns + ".svc.cluster.local"}) {
    if (std::find(hosts.begin(), hosts.end(), name) == hosts.end()) hosts.push_back(name);
  }
  return out;
}

webhook::WebhookServerOptions WebhookOptionsFrom(const OperatorOptions& options,
                                                 const std::string& ns) {
  webhook::WebhookServerOptions out;
  out.bind_address = options.webhook_bind_address;
  out.namespace_ = ns;
  out.configuration_name = options.webhook_configuration;
  out.connections = options.webhook_connections;
  out.deadlines = {.header = options.http_header_timeout, .idle = options.http_idle_timeout};
  out.cert_validity =
      std::chrono::duration_cast<std::chrono::seconds>(options.webhook_cert_validity);
  // As for the hub: a short-lived certificate is looked at every sixth of its life.
  out.check_interval = std::min<Clock::Duration>(
      std::chrono::minutes(1),
      std::chrono::duration_cast<Clock::Duration>(options.webhook_cert_validity / 6));
  const std::string service = "rdmastack-webhook";
  out.hosts = {service + "." + ns + ".svc", service + "." + ns + ".svc.cluster.local", service,
               service + "." + ns};
  for (const auto& h : options.webhook_hosts) {
    if (std::find(out.hosts.begin(), out.hosts.end(), h) == out.hosts.end()) out.hosts.push_back(h);
  }
  return out;
}

void ApplyListenerOptions(const OperatorOptions& options, runtime::ManagerOptions* manager) {
  const runtime::HttpDeadlines deadlines{.header = options.http_header_timeout,
                                         .idle = options.http_idle_timeout};
  manager->health_probe_connections = options.health_probe_connections;
  manager->health_probe_deadlines = deadlines;
  manager->metrics.connections = options.metrics_connections;
  manager->metrics.deadlines = deadlines;
}

}  // namespace rdmastack::operator_cmd
