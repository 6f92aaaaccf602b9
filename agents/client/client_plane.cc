#include "agents/client/client_plane.h"

#include <spdlog/spdlog.h>

#include "agents/client/endpoint_check.h"
#include "agents/client/endpoints.h"
#include "agents/client/render.h"
#include "node/probe/node_probe.h"

namespace rdmastack::client {
namespace {

std::string Join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The command's output on one log line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.size() > 500 ? text.substr(0, 500) + "..." : text;
}

std::string DescribePlan(const NodePlan& plan) {
  std::string out = plan.transport;
  if (!plan.registration.empty()) out += " via " + plan.registration;
  out += " on " + plan.rdma_device + " GID " + std::to_string(plan.gid_index);
  if (!plan.note.empty()) out += " (" + plan.note + ")";
  if (!plan.on_rails) return out;
  std::vector<std::string> gpus;
  for (const auto& g : plan.gpu_rails) gpus.push_back(rails::DescribeChoice(g));
  return out + "; per GPU on the pool's networks: " + Join(gpus);
}

}  // namespace

ClientPlane::ClientPlane(RunOptions options, PlaneDeps deps)
    : options_(std::move(options)),
      deps_(std::move(deps)),
      installer_(options_.install_dir, options_.library_budget) {}

node::NodeFacts ClientPlane::Probe() {
  auto prober = deps_.make_prober();
  node::ProbeOptions probe;
  probe.root = options_.root;
  probe.ips_file = options_.ips_file;
  probe.device_prober = prober.ok() ? prober->get() : nullptr;
  node::NodeFacts facts = node::ProbeNode(probe);
  if (!prober.ok()) {
    facts.issues.push_back({"probes", options_.probes_file, prober.status().message()});
  }
  return facts;
}

void ClientPlane::MaybeLoadPeerMem(node::NodeFacts* facts, NodePlan* plan) {
  const PeerMemLoad decision = DecidePeerMemLoad(*facts, plan->evaluation, options_.load_peermem);
  if (!decision.load) {
    // Said once per change, and only while GPU-direct is waiting for the module.
    const bool waiting =
        WouldUsePeerMem(*facts, plan->evaluation) && !facts->drivers.Loaded("nvidia_peermem");
    if (waiting && decision.why != last_peermem_note_) {
      spdlog::info("peermem: not loading nvidia_peermem: {}", decision.why);
    }
    last_peermem_note_ = waiting ? decision.why : "";
    return;
  }
  const Clock::TimePoint now = deps_.clock->Now();
  if (last_modprobe_failure_ && now - *last_modprobe_failure_ < kModprobeRetryDelay) return;
  spdlog::info("peermem: {}; running: {}", decision.why, Join(options_.modprobe_command, " "));
  auto run = deps_.run_command(options_.modprobe_command, kModprobeTimeout);
  if (!run.ok()) {
    spdlog::warn("peermem: {}; next try in {}s", run.status().message(),
                 kModprobeRetryDelay.count());
    last_modprobe_failure_ = now;
    return;
  }
  if (const std::string said = OneLine(run->out + " " + run->err); !said.empty()) {
    spdlog::info("peermem: modprobe said: {}", said);
  }
  *facts = Probe();
  *plan = PlanNode(*facts, options_.requirements, networks_);
  if (facts->drivers.Loaded("nvidia_peermem")) {
    peermem_loaded_by_client_ = true;
    last_modprobe_failure_.reset();
    spdlog::info("peermem: nvidia_peermem is loaded");
  } else {
    spdlog::warn(
        "peermem: the command succeeded but proc/modules does not list nvidia_peermem; "
        "next try in {}s",
        kModprobeRetryDelay.count());
    last_modprobe_failure_ = now;
  }
}

Status ClientPlane::Install(const NodePlan& plan, const PoolEndpoints& pool) {
  library_refused_ = false;
  library_digest_mismatch_ = false;
  // The library image is judged before anything is written: a refused one installs nothing.
  StatusOr<std::optional<LibraryPlan>> library = installer_.PlanLibraries(options_.library_dir);
  if (!library.ok()) {
    library_refused_ = library.status().code() == StatusCode::kFailedPrecondition;
    return library.status();
  }
  RDMASTACK_RETURN_IF_ERROR(installer_.Prepare());
  const ClientConfig config =
      MakeClientConfig(plan, pool, options_.profile, options_.host_install_dir);
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> written,
                             installer_.WriteFiles(RenderInstallFiles(config)));
  if (!written.empty()) {
    spdlog::info("config: wrote {} in {} ({}, {} endpoints, first {})", Join(written),
                 installer_.dir(), DescribePlan(plan), pool.endpoints.size(), pool.Urls().front());
  }
  // Before anything of the image reaches the host: its files must be the pinned bytes.
  if (Status pinned = CheckStagedLibraries(options_.library_dir, options_.library_sha256);
      !pinned.ok()) {
    library_digest_mismatch_ = true;
    return pinned;
  }
  if (!*library) return OkStatus();
  StatusOr<std::vector<std::string>> libs = installer_.InstallLibraries(**library);
  if (!libs.ok()) return libs.status();
  if (!libs->empty()) {
    spdlog::info("config: {} from {} into {}", Join(*libs), options_.library_dir, installer_.dir());
  }
  return OkStatus();
}

void ClientPlane::CheckPool(const PoolEndpoints& pool, const NodePlan& plan, ClientState* st) {
  EndpointCheckOptions check;
  check.region = pool.region;
  if (!options_.credentials_dir.empty()) {
    StatusOr<s3::Credentials> keys = ReadCredentialsDir(options_.credentials_dir);
    if (!keys.ok()) {
      st->reason = kReasonEndpointsUnreachable;
      st->message = "cannot read the S3 keys to check the pool with: " + keys.status().message();
      return;
    }
    check.credentials = *keys;
  }
  const std::vector<std::string> urls = pool.Urls();
  s3::HttpTransport* transport = deps_.http;
  if (pool.scheme == "https" && deps_.https) transport = deps_.https({.ca_pem = pool.ca_bundle});
  const EndpointCheckResult r =
      CheckEndpoints(*transport, *deps_.clock, urls, next_endpoint_ % urls.size(), check);
  next_endpoint_ = (next_endpoint_ + r.checked) % urls.size();
  st->reachable = static_cast<int>(r.reachable);
  const std::string checked = std::to_string(r.checked);
  const std::string of_pool =
      r.checked < urls.size() ? " (the pool has " + std::to_string(urls.size()) + ")" : "";
  if (r.reachable > 0) {
    st->ready = true;
    st->reason = kReasonReady;
    st->message = DescribePlan(plan) + "; " + std::to_string(r.reachable) + " of " + checked +
                  " endpoints checked answer" + of_pool + ", e.g. " + r.first_reachable;
    return;
  }
  st->reason = kReasonEndpointsUnreachable;
  st->message =
      "none of " + checked + " endpoints checked answers" + of_pool + "; " + r.first_failure;
}

ClientState ClientPlane::RunPass() {
  ClientState st;
  st.profile = options_.profile;
  st.node = options_.node;
  node::NodeFacts facts = Probe();
  // The pool's networks decide which NICs the plan lists (PlanNode); a file that does not parse
  // keeps the networks last read.
  StatusOr<PoolEndpoints> pool = ReadEndpointsFile(options_.endpoints_file);
  if (pool.ok()) networks_ = pool->networks;
  NodePlan plan = PlanNode(facts, options_.requirements, networks_);
  MaybeLoadPeerMem(&facts, &plan);
  st.peermem_loaded_by_client = peermem_loaded_by_client_;
  if (plan.capable) {
    st.transport = plan.transport;
    st.memory_registration = plan.registration;
    st.gid_index = plan.gid_index;
    st.rdma_device = plan.rdma_device;
  }

  if (pool.ok() && plan.capable) pool->endpoints = EndpointsOnRails(pool->endpoints, plan.rails);
  if (pool.ok()) st.endpoints = static_cast<int>(pool->endpoints.size());
  const bool have_endpoints = pool.ok() && !pool->endpoints.empty();
  Status installed = OkStatus();
  if (plan.capable && have_endpoints) installed = Install(plan, *pool);

  const char* kept = "; the last written configuration stays in place";
  if (!plan.capable) {
    st.reason = kReasonNodeNotCapable;
    st.message = plan.message;
  } else if (!pool.ok()) {
    st.reason = kReasonEndpointsFileInvalid;
    st.message = "endpoints file: " + pool.status().message() + kept;
  } else if (!have_endpoints) {
    st.reason = kReasonNoEndpoints;
    st.message = "the pool " + pool->pool + " publishes no endpoints" + kept;
  } else if (!installed.ok()) {
    st.reason = library_digest_mismatch_ ? kReasonLibraryDigestMismatch
                : library_refused_       ? kReasonLibraryRefused
                                         : kReasonInstallFailed;
    st.message = installed.message();
  } else {
    CheckPool(*pool, plan, &st);
  }
  st.updated = deps_.clock->WallNow();
  WriteState(st);
  if (!last_state_ || last_state_->ready != st.ready || last_state_->reason != st.reason) {
    spdlog::info("readiness: {} ({}): {}", st.ready ? "ready" : "not ready", st.reason, st.message);
  }
  last_state_ = st;
  return st;
}

void ClientPlane::WriteState(const ClientState& st) {
  Status s = WriteStateFile(options_.state_dir, st);
  const std::string error = s.ok() ? "" : s.message();
  if (error != last_state_write_error_ && !error.empty()) {
    spdlog::error("state: {}; the readiness probe will find it stale", error);
  }
  last_state_write_error_ = error;
}

}  // namespace rdmastack::client
