#pragma once
// What one peer address may make the hub do before any of its agents is authenticated, and what
// lets a node's own agent through anyway.
//
// Real agents run on the host network, one per node, so one address is one node: it needs one
// Hello in authentication at a time (two while a stream is being replaced) and is refused only
// when its token or pod is wrong. A peer that sends Hellos with made-up tokens otherwise costs a
// TokenReview, a log line and a Warning Event each, as fast as it can send them. So, per address:
// at most `max_pending` Hellos in authentication at once, and after `max_failures_per_minute`
// refused Hellos its further Hellos are refused at once for the rest of that minute: counted, not
// reviewed, logged once per minute, never recorded as Events.
//
// But the address is shared by everything on the node's host network (a tenant's gateway, a
// library init container), so a penalty charged to the address alone would let a tenant lock its
// node's agent out by failing Hellos from it. The hub therefore also remembers, per node, the
// agent it last accepted: its pod's uid and its token's digest, until another pod is accepted for
// the node or the node is forgotten. A Hello that claims that node and carries that token, or a
// token whose claims name that pod (the same pod's refreshed token), names a "known agent": it
// passes the address's penalty box and pending limit, and its refusals are charged to the known
// agent's own box as well as to the address. After `max_failures_per_minute` such refusals
// within a minute (someone who knows the pod's uid forging claims), only the very token last
// accepted passes for the rest of that minute. A Hello that names no known agent proves nothing
// before its review and is judged by its address alone. Thread-safe.

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
  int max_pending = 4;                // 0: no limit
  int max_failures_per_minute = 10;   // 0: no limit
  size_t max_addresses = 100'000;     // addresses tracked at once (pending or with failures)
  size_t max_known_agents = 100'000;  // nodes whose last accepted agent is remembered
};

inline constexpr const char* kReasonTooManyPending = "TooManyPendingHellos";
inline constexpr const char* kReasonAddressThrottled = "AddressThrottled";

// "ipv4:10.0.0.1:5000" -> "10.0.0.1", "ipv6:[::1]:5000" (or %5B::1%5D) -> "::1"; anything else
// as it is.
std::string PeerAddress(std::string_view grpc_peer);

// What a Hello offers before it is reviewed: where it comes from, the node it claims, and what its
// token says (the pod its claims name, and its digest).
struct HelloKey {
  std::string address;
  std::string node_name;      // "" when over its bound (CheckHelloShape refuses it)
  std::string token_pod_uid;  // the token's unverified pod claim (JwtPodUid); "" when none
  std::string token_digest;   // SHA-256 of the token; "" when none or over its bound
};
// Reads only what is within the Hello's bounds (admission.h), so a Hello of a megabyte costs no
// digest or parse.
HelloKey HelloKeyOf(std::string_view grpc_peer, const std::string& node_name,
                    const std::string& token);

class AddressThrottle {
 public:
  AddressThrottle(AddressLimits limits, Clock& clock) : limits_(limits), clock_(clock) {}

  // Which limits an admitted Hello counts against (pass it back to Done).
  enum class Lane { kAddress, kKnownAgent };
  struct Admission {
    // Set: the refusal (RESOURCE_EXHAUSTED), to be answered without a review.
    std::optional<AdmissionDecision> refusal;
    Lane lane = Lane::kAddress;
  };
  // An admitted Hello may be authenticated, and counts as pending until Done().
  Admission Admit(const HelloKey& hello);
  // The end of an admitted Hello's authentication: an accepted agent becomes its node's known
  // agent; refusals of the agent's identity or Hello count against the address (and, in the known
  // agent's lane, against that agent); an API outage (UNAVAILABLE) counts against nothing.
  void Done(const HelloKey& hello, Lane lane, const AdmissionDecision& decision);
  // The node is gone: its agent is known no more.
  void Forget(const std::string& node_name);
  // Forgets addresses with nothing pending whose minute is over.
  void Sweep();
  size_t tracked() const;
  size_t known_agents() const;

 private:
  // Refusals within a minute.
  struct Box {
    int failures = 0;
    Clock::TimePoint window_start{};
    std::string last_failure;  // reason
    bool logged = false;       // the throttling of this window was logged
  };
  struct Address {
    int pending = 0;
    Box box;
  };
  struct KnownAgent {
    std::string pod_uid;
    std::string token_digest;
    int pending = 0;
    Box box;
  };
  std::optional<Admission> AdmitKnownAgent(const HelloKey& hello, Clock::TimePoint now);
  Admission AdmitByAddress(const HelloKey& hello, Clock::TimePoint now);
  void Remember(const HelloKey& hello, const AgentIdentity& agent);
  bool Full(Box& box, Clock::TimePoint now) const;
  void Charge(Box& box, const std::string& reason, Clock::TimePoint now) const;
  bool WindowOver(const Box& box, Clock::TimePoint now) const;

  const AddressLimits limits_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Address> addresses_;
  std::map<std::string, KnownAgent> known_;  // by node name
};

}  // namespace rdmastack::agenthub
