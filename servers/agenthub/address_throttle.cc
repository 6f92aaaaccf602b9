#include "servers/agenthub/address_throttle.h"

#include <spdlog/spdlog.h>

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

bool AddressThrottle::WindowOver(const State& s, Clock::TimePoint now) const {
  return now - s.window_start >= kWindow;
}

std::optional<AdmissionDecision> AddressThrottle::Admit(const std::string& address) {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = clock_.Now();
  auto it = addresses_.find(address);
  if (it == addresses_.end()) {
    if (addresses_.size() >= limits_.max_addresses) {
      return Exhausted(kReasonTooManyPending, "the hub is authenticating Hellos from " +
                                                  std::to_string(addresses_.size()) +
                                                  " addresses at once; retry later");
    }
    it = addresses_.emplace(address, State{}).first;
  }
  State& s = it->second;
  if (s.failures > 0 && WindowOver(s, now)) {
    s.failures = 0;
    s.logged = false;
  }
  if (limits_.max_failures_per_minute > 0 && s.failures >= limits_.max_failures_per_minute) {
    const auto left =
        std::chrono::duration_cast<std::chrono::seconds>(s.window_start + kWindow - now).count();
    if (!s.logged) {
      s.logged = true;
      spdlog::warn(
          "agenthub: {} Hellos from {} were refused within a minute (the last: {}); its Hellos are "
          "refused unreviewed for {} s (AddressThrottled)",
          s.failures, address, s.last_failure, left);
    }
    return Exhausted(kReasonAddressThrottled,
                     std::to_string(s.failures) + " Hellos from " + address +
                         " were refused within a minute (the last: " + s.last_failure +
                         "); Hellos from this address are refused for " + std::to_string(left) +
                         " s more; fix the agent's token or pod and let it retry");
  }
  if (limits_.max_pending > 0 && s.pending >= limits_.max_pending) {
    return Exhausted(kReasonTooManyPending,
                     std::to_string(s.pending) + " Hellos from " + address +
                         " are being authenticated already; one agent needs one; retry later");
  }
  ++s.pending;
  return std::nullopt;
}

void AddressThrottle::CountFailure(State& s, const std::string& reason) {
  const auto now = clock_.Now();
  if (s.failures == 0 || WindowOver(s, now)) {
    s.failures = 0;
    s.logged = false;
    s.window_start = now;
  }
  ++s.failures;
  s.last_failure = reason;
}

void AddressThrottle::Done(const std::string& address, const AdmissionDecision& decision) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = addresses_.find(address);
  if (it == addresses_.end()) return;
  State& s = it->second;
  if (s.pending > 0) --s.pending;
  if (IdentityRefusal(decision)) CountFailure(s, decision.reason);
  if (s.pending == 0 && s.failures == 0) addresses_.erase(it);
}

void AddressThrottle::Sweep() {
  std::lock_guard<std::mutex> l(mu_);
  const auto now = clock_.Now();
  for (auto it = addresses_.begin(); it != addresses_.end();) {
    const State& s = it->second;
    if (s.pending == 0 && (s.failures == 0 || WindowOver(s, now))) {
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

}  // namespace rdmastack::agenthub
