#pragma once
// What one peer address may make the hub do before any of its agents is authenticated. Real
// agents run on the host network, one per node, so one address is one node: it needs one Hello
// in authentication at a time (two while a stream is being replaced) and is refused only when its
// token or pod is wrong. A peer that sends Hellos with made-up tokens otherwise costs a
// TokenReview, a log line and a Warning Event each, as fast as it can send them. So, per address:
// at most `max_pending` Hellos in authentication at once, and after `max_failures_per_minute`
// refused Hellos its further Hellos are refused at once for the rest of that minute: counted, not
// reviewed, logged once per minute, never recorded as Events. Thread-safe.

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "servers/agenthub/admission.h"

namespace rdmastack::agenthub {

struct AddressLimits {
  int max_pending = 4;               // 0: no limit
  int max_failures_per_minute = 10;  // 0: no limit
  size_t max_addresses = 100'000;    // addresses tracked at once (pending or with failures)
};

inline constexpr const char* kReasonTooManyPending = "TooManyPendingHellos";
inline constexpr const char* kReasonAddressThrottled = "AddressThrottled";

// "ipv4:10.0.0.1:5000" -> "10.0.0.1", "ipv6:[::1]:5000" (or %5B::1%5D) -> "::1"; anything else
// as it is.
std::string PeerAddress(std::string_view grpc_peer);

class AddressThrottle {
 public:
  AddressThrottle(AddressLimits limits, Clock& clock) : limits_(limits), clock_(clock) {}

  // nullopt: the Hello may be authenticated, and counts as pending until Done(). Otherwise the
  // refusal (RESOURCE_EXHAUSTED), to be answered without a review.
  std::optional<AdmissionDecision> Admit(const std::string& address);
  // The end of an admitted Hello's authentication: refusals of the agent's identity or Hello
  // count against the address; an API outage (UNAVAILABLE) does not.
  void Done(const std::string& address, const AdmissionDecision& decision);
  // Forgets addresses with nothing pending whose minute is over.
  void Sweep();
  size_t tracked() const;

 private:
  struct State {
    int pending = 0;
    int failures = 0;
    Clock::TimePoint window_start{};
    std::string last_failure;  // reason
    bool logged = false;       // throttling of this window logged
  };
  void CountFailure(State& s, const std::string& reason);
  bool WindowOver(const State& s, Clock::TimePoint now) const;

  const AddressLimits limits_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, State> addresses_;
};

}  // namespace rdmastack::agenthub
