#include "servers/agenthub/address_throttle.h"

#include <spdlog/spdlog.h>

#include "base/sha256.h"
#include "servers/agenthub/token_reviewer.h"

namespace rdmastack::agenthub {
namespace {

constexpr auto kWindow = std::chrono::minutes(1);

bool IdentityRefusal(const AdmissionDecision& d) {
  return d.code == StatusCode::kUnauthenticated || d.code == StatusCode::kPermissionDenied ||
         d.code == StatusCode::kInvalidArgument;
}

AdmissionDecision Exhausted(const char* reason, std::string message) {
  AdmissionDecision d;
  d.code = StatusCode::kResourceExhausted;
  d.reason = reason;
  d.message = std::move(message);
  return d;
}

}  // namespace

std::string PeerAddress(std::string_view peer) {
  const size_t colon = peer.find(':');
  if (colon == std::string_view::npos) return std::string(peer);
  const std::string_view scheme = peer.substr(0, colon);
  std::string_view rest = peer.substr(colon + 1);
  if (scheme == "ipv4") {
    const size_t port = rest.rfind(':');
    return std::string(port == std::string_view::npos ? rest : rest.substr(0, port));
  }
  if (scheme == "ipv6") {
    for (const auto& [open, close] :
         {std::pair<std::string_view, std::string_view>{"[", "]"}, {"%5B", "%5D"}}) {
      if (rest.substr(0, open.size()) != open) continue;
      const size_t end = rest.find(close);
      if (end != std::string_view::npos)
        return std::string(rest.substr(open.size(), end - open.size()));
    }
  }
  return std::string(peer);
}

HelloKey HelloKeyOf(std::string_view grpc_peer, const std::string& node_name,
                    const std::string& token) {
  HelloKey key;
  key.address = PeerAddress(grpc_peer);
  if (node_name.size() <= kMaxNodeNameBytes) key.node_name = node_name;
  if (!token.empty() && token.size() <= kMaxTokenBytes) {
    key.token_digest = Sha256(token);
    key.token_pod_uid = JwtPodUid(token);
  }
  return key;
}

bool AddressThrottle::WindowOver(const Box& box, Clock::TimePoint now) const {
  return now - box.window_start >= kWindow;
}

// Whether the box refuses now; a box whose minute is over starts afresh.
bool AddressThrottle::Full(Box& box, Clock::TimePoint now) const {
  if (box.failures > 0 && WindowOver(box, now)) box = Box{};
  return limits_.max_failures_per_minute > 0 && box.failures >= limits_.max_failures_per_minute;
}

void AddressThrottle::Charge(Box& box, const std::string& reason, Clock::TimePoint now) const {
  if (box.failures == 0 || WindowOver(box, now)) box = Box{.window_start = now};
  ++box.failures;
  box.last_failure = reason;
}

AddressThrottle::Admission AddressThrottle::Admit(const HelloKey& hello) {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = clock_.Now();
  if (auto known = AdmitKnownAgent(hello, now)) return *known;
  return AdmitByAddress(hello, now);
}

// nullopt: the Hello names no agent known for its node (or one whose own box is full and whose
// token is not the very one accepted), and is judged by its address.
std::optional<AddressThrottle::Admission> AddressThrottle::AdmitKnownAgent(const HelloKey& hello,
                                                                           Clock::TimePoint now) {
  auto it = known_.find(hello.node_name);
  if (it == known_.end()) return std::nullopt;
  KnownAgent& agent = it->second;
  const bool same_token = !hello.token_digest.empty() && hello.token_digest == agent.token_digest;
  const bool same_pod = !hello.token_pod_uid.empty() && hello.token_pod_uid == agent.pod_uid;
  if (!same_token && !same_pod) return std::nullopt;
  if (Full(agent.box, now) && !same_token) {
    if (!agent.box.logged) {
      agent.box.logged = true;
      spdlog::warn(
          "agenthub: {} Hellos naming node {}'s agent pod (uid {}) were refused within a minute "
          "(the last: {}); for the rest of the minute only its last accepted token passes its "
          "address's throttle",
          agent.box.failures, hello.node_name, agent.pod_uid, agent.box.last_failure);
    }
    return std::nullopt;
  }
  if (limits_.max_pending > 0 && agent.pending >= limits_.max_pending) {
    return Admission{
        Exhausted(kReasonTooManyPending,
                  std::to_string(agent.pending) + " Hellos of node " + hello.node_name +
                      "'s agent are being authenticated already; retry later"),
        Lane::kKnownAgent};
  }
  ++agent.pending;
  return Admission{std::nullopt, Lane::kKnownAgent};
}

AddressThrottle::Admission AddressThrottle::AdmitByAddress(const HelloKey& hello,
                                                           Clock::TimePoint now) {
  const std::string& address = hello.address;
  auto it = addresses_.find(address);
  if (it == addresses_.end()) {
    if (addresses_.size() >= limits_.max_addresses) {
      return {Exhausted(kReasonTooManyPending, "the hub is authenticating Hellos from " +
                                                   std::to_string(addresses_.size()) +
                                                   " addresses at once; retry later")};
    }
    it = addresses_.emplace(address, Address{}).first;
  }
  Address& a = it->second;
  if (Full(a.box, now)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::seconds>(a.box.window_start + kWindow - now)
            .count();
    if (!a.box.logged) {
      a.box.logged = true;
      spdlog::warn(
          "agenthub: {} Hellos from {} were refused within a minute (the last: {}); its Hellos are "
          "refused unreviewed for {} s (AddressThrottled), but for those of an agent accepted "
          "before",
          a.box.failures, address, a.box.last_failure, left);
    }
    return {Exhausted(kReasonAddressThrottled,
                      std::to_string(a.box.failures) + " Hellos from " + address +
                          " were refused within a minute (the last: " + a.box.last_failure +
                          "); Hellos from this address are refused for " + std::to_string(left) +
                          " s more; fix the agent's token or pod and let it retry")};
  }
  if (limits_.max_pending > 0 && a.pending >= limits_.max_pending) {
    return {Exhausted(kReasonTooManyPending,
                      std::to_string(a.pending) + " Hellos from " + address +
                          " are being authenticated already; one agent needs one; retry later")};
  }
  ++a.pending;
  return {};
}

void AddressThrottle::Remember(const HelloKey& hello, const AgentIdentity& agent) {
  auto it = known_.find(agent.node_name);
  if (it == known_.end()) {
    if (known_.size() >= limits_.max_known_agents) return;
    it = known_.emplace(agent.node_name, KnownAgent{}).first;
  }
  KnownAgent& k = it->second;
  // A new pod of the node's agent replaces the old one: the old pod's uid passes no more.
  k.pod_uid = agent.pod_uid;
  k.token_digest = hello.token_digest;
}

void AddressThrottle::Done(const HelloKey& hello, Lane lane, const AdmissionDecision& decision) {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = clock_.Now();
  const bool refused = IdentityRefusal(decision);
  if (lane == Lane::kKnownAgent) {
    if (auto it = known_.find(hello.node_name); it != known_.end()) {
      KnownAgent& agent = it->second;
      if (agent.pending > 0) --agent.pending;
      if (refused) Charge(agent.box, decision.reason, now);
    }
  }
  if (decision.accepted()) Remember(hello, decision.identity);
  auto it = addresses_.find(hello.address);
  if (lane == Lane::kAddress && it != addresses_.end() && it->second.pending > 0)
    --it->second.pending;
  if (refused) {
    // A known agent's refusals count against its address too: they are refusals from there.
    if (it == addresses_.end() && addresses_.size() < limits_.max_addresses)
      it = addresses_.emplace(hello.address, Address{}).first;
    if (it != addresses_.end()) Charge(it->second.box, decision.reason, now);
  }
  if (it != addresses_.end() && it->second.pending == 0 && it->second.box.failures == 0)
    addresses_.erase(it);
}

void AddressThrottle::Forget(const std::string& node_name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = known_.find(node_name);
  // A Hello of its agent still in authentication finds no record in Done, which is harmless.
  if (it != known_.end()) known_.erase(it);
}

void AddressThrottle::Sweep() {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = clock_.Now();
  for (auto it = addresses_.begin(); it != addresses_.end();) {
    const Address& a = it->second;
    if (a.pending == 0 && (a.box.failures == 0 || WindowOver(a.box, now))) {
      it = addresses_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t AddressThrottle::tracked() const {
  std::lock_guard<std::mutex> l(mu_);
  return addresses_.size();
}

size_t AddressThrottle::known_agents() const {
  std::lock_guard<std::mutex> l(mu_);
  return known_.size();
}

}  // namespace rdmastack::agenthub
