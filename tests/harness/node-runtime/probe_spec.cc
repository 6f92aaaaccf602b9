#include "tests/harness/node-runtime/probe_spec.h"

namespace rdmastack::sim {
namespace {

StatusOr<int> ResolvePort(const rapidjson::Value* port, const k8s::JsonObject& container) {
  if (port == nullptr) return InvalidArgumentError("probe has no port");
  if (port->IsInt()) return port->GetInt();
  if (!port->IsString()) return InvalidArgumentError("probe port must be a number or a name");
  const std::string name(port->GetString(), port->GetStringLength());
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    return std::stoi(name);
  }
  for (const k8s::JsonObject& p : container.GetArray({"ports"})) {
    if (p.GetString({"name"}).value_or("") == name) {
      return static_cast<int>(p.GetInt({"containerPort"}).value_or(0));
    }
  }
  return NotFoundError("probe port " + name + " is not a named port of the container");
}

int PositiveOr(const k8s::JsonObject& probe, const char* field, int fallback) {
  const int64_t v = probe.GetInt({field}).value_or(0);
  return v > 0 ? static_cast<int>(v) : fallback;
}

}  // namespace

StatusOr<ProbeSpec> ParseProbe(const k8s::JsonObject& probe, const k8s::JsonObject& container) {
  ProbeSpec spec;
  if (const auto exec = probe.Get({"exec"})) {
    spec.action = ProbeAction::kExec;
    for (const auto& item : exec->GetArray({"command"})) {
      if (item.value().IsString()) spec.command.emplace_back(item.value().GetString());
    }
    if (spec.command.empty()) return InvalidArgumentError("exec probe has no command");
  } else if (const auto http = probe.Get({"httpGet"})) {
    spec.action = ProbeAction::kHttpGet;
    RDMASTACK_ASSIGN_OR_RETURN(spec.port, ResolvePort(http->Find({"port"}), container));
    spec.host = http->GetString({"host"}).value_or("");
    spec.path = http->GetString({"path"}).value_or("/");
    if (spec.path.empty() || spec.path.front() != '/') spec.path = "/" + spec.path;
    spec.scheme = http->GetString({"scheme"}).value_or("HTTP");
    for (const k8s::JsonObject& h : http->GetArray({"httpHeaders"})) {
      spec.headers.emplace_back(h.GetString({"name"}).value_or(""),
                                h.GetString({"value"}).value_or(""));
    }
  } else if (const auto tcp = probe.Get({"tcpSocket"})) {
    spec.action = ProbeAction::kTcpSocket;
    RDMASTACK_ASSIGN_OR_RETURN(spec.port, ResolvePort(tcp->Find({"port"}), container));
    spec.host = tcp->GetString({"host"}).value_or("");
  } else {
    return UnimplementedError("only exec, httpGet and tcpSocket probes run on simulated nodes");
  }
  spec.initial_delay = std::chrono::seconds(probe.GetInt({"initialDelaySeconds"}).value_or(0));
  spec.period = std::chrono::seconds(PositiveOr(probe, "periodSeconds", 10));
  spec.timeout = std::chrono::seconds(PositiveOr(probe, "timeoutSeconds", 1));
  spec.success_threshold = PositiveOr(probe, "successThreshold", 1);
  spec.failure_threshold = PositiveOr(probe, "failureThreshold", 3);
  return spec;
}

ProbeTracker::ProbeTracker(ProbeType type, ProbeSpec spec) : type_(type), spec_(std::move(spec)) {
  Reset({});
}

void ProbeTracker::Reset(Clock::TimePoint container_started) {
  verdict_ = type_ == ProbeType::kReadiness  ? ProbeResult::kFailure
             : type_ == ProbeType::kLiveness ? ProbeResult::kSuccess
                                             : ProbeResult::kUnknown;
  last_.reset();
  run_ = 0;
  next_ = container_started + spec_.initial_delay;
}

ProbeResult ProbeTracker::Record(bool success, Clock::TimePoint now) {
  next_ = now + spec_.period;
  if (last_ == success) {
    ++run_;
  } else {
    last_ = success;
    run_ = 1;
  }
  const int needed = success ? spec_.success_threshold : spec_.failure_threshold;
  if (run_ >= needed) verdict_ = success ? ProbeResult::kSuccess : ProbeResult::kFailure;
  // A liveness or startup failure restarts the container; count afresh after that.
  if (!success && verdict_ == ProbeResult::kFailure && type_ != ProbeType::kReadiness) run_ = 0;
  return verdict_;
}

}  // namespace rdmastack::sim
