#include "controllers/gatewaypool/upgrade_plan.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "crds/types/reasons.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;

namespace {

const controllers::OwnedPod* PodOn(const UpgradeNode& n, const std::string& track) {
  auto it = n.pods.find(track);
  return it == n.pods.end() ? nullptr : &it->second;
}

bool Ready(const controllers::OwnedPod* p) {
  return p != nullptr && p->ready && !p->terminating;
}

bool Outdated(const controllers::OwnedPod* p, const std::string& hash) {
  return p != nullptr && !p->terminating && !hash.empty() && p->template_hash != hash;
}

// What the pod says about why it is not serving, for a rollback message.
std::string PodProblem(const controllers::OwnedPod* p, const std::string& track) {
  if (p == nullptr) return "no " + track + " gateway pod was scheduled on the node";
  std::string out = "pod " + p->name + " is not Ready";
  if (!p->waiting_reason.empty()) out += " (" + p->waiting_reason + ")";
  if (!p->message.empty()) out += ": " + p->message;
  if (p->restarts > 0) out += "; " + std::to_string(p->restarts) + " restarts";
  return out;
}

// Both gateways run and the node may be published on either: a roll back keeps it serving.
bool MovingSideBySide(const NodeUpgradeState& s) {
  return !s.in_place && (s.phase == UpgradePhase::kStartNew || s.phase == UpgradePhase::kValidate ||
                         s.phase == UpgradePhase::kSwitch || s.phase == UpgradePhase::kDrain);
}

// The state is for this rollout's target (a changed spec leaves states that are not).
bool ForTarget(const NodeUpgradeState& s, const UpgradeInputs& in) {
  if (s.to != in.target) return false;
  return !(s.in_place && s.from == s.to && s.template_hash != in.target_hash);
}

// The track a stateless node serves on: its one labelled track; with more than one, a track other
// than the target (the target has not been validated on it).
std::string ServingTrack(const std::set<std::string>& tracks, const std::string& target) {
  for (const auto& t : tracks) {
    if (t != target) return t;
  }
  return tracks.empty() ? "" : *tracks.begin();
}

// The nodes a pass may start moving, and what the moves under way already take of the budgets.
struct Tally {
  std::vector<size_t> candidates;  // eligible nodes not on the target yet, in node order
  int64_t in_flight = 0;           // moves under way, failed ones holding their slot included
  int64_t unavailable = 0;         // nodes without a serving gateway
  int64_t failed_holding = 0;      // failed moves holding their slot
};

// The node's phase change in this pass, for the events: "Validate -> Switch".
void NoteTransition(const UpgradeNode& n, NodeDecision& d) {
  const std::string before = n.state ? std::string(PhaseName(n.state->phase)) : "Pending";
  const std::string after = d.state ? std::string(PhaseName(d.state->phase)) : "Pending";
  if (before == after || d.maintenance.applies) return;
  d.transition = before + " -> " + after;
  d.warning = after == "RollBack" || after == "Failed";
}

// Some node still waits for, or is in, a move that has not ended.
bool AnyMoving(const crd::UpgradePhaseCounts& c) {
  const auto moving = c.pending + c.start_new + c.validate + c.switch_ + c.drain + c.stop_old +
                      c.roll_back + c.failed;
  return moving > 0;
}

class Planner {
 public:
  explicit Planner(const UpgradeInputs& in) : in_(in) {}

  UpgradePlan Run();

 private:
  NodeUpgradeState Enter(NodeUpgradeState s, UpgradePhase phase) const {
    s.phase = phase;
    s.since = in_.now;
    return s;
  }
  NodeUpgradeState RollBack(NodeUpgradeState s, std::string reason, std::string message,
                            bool keep_failed) const {
    s.drain_new = s.phase == UpgradePhase::kSwitch || s.phase == UpgradePhase::kDrain;
    s = Enter(std::move(s), UpgradePhase::kRollBack);
    s.reason = std::move(reason);
    s.message = std::move(message);
    s.keep_failed = keep_failed;
    return s;
  }
  // Rolling back: the new track's label stays while clients still see the node there, and
  // through the drain of a new gateway clients were sent to.
  bool KeepsNewTrack(const UpgradeNode& n, const NodeUpgradeState& s) const {
    return n.published.count(s.to) != 0 || (s.drain_new && !Drain().Over(CountSince(n, s)));
  }
  DrainClock Drain() const { return {in_.now, in_.spec.drain_seconds, in_.api_answering_since}; }
  // `s`'s since and started as this reader counts them: the persisted stamps no earlier than when
  // it first saw them (UpgradeNode::count_since); a stamp set in this pass counts as it is.
  static int64_t CountSince(const UpgradeNode& n, const NodeUpgradeState& s) {
    return n.state && n.state->since == s.since ? std::max(s.since, n.count_since) : s.since;
  }
  static int64_t CountStarted(const UpgradeNode& n, const NodeUpgradeState& s) {
    return n.state && n.state->started == s.started ? std::max(s.started, n.count_started)
                                                    : s.started;
  }
  bool TimedOut(const UpgradeNode& n, const NodeUpgradeState& s) const {
    return in_.now - CountStarted(n, s) >= in_.validation_timeout_s;
  }
  // Why a node's new gateway did not pass in time: the operator's check when the pod was Ready,
  // else the pod's own state.
  std::pair<std::string, std::string> TimeoutWhy(const UpgradeNode& n,
                                                 const controllers::OwnedPod* next,
                                                 const std::string& track) const {
    const std::string within =
        " within validationTimeout " + std::to_string(in_.validation_timeout_s) + "s";
    if (Ready(next) && n.validation && !n.validation->ok)
      return {n.validation->reason, n.validation->message + within};
    return {reasons::kNewGatewayNotReady, PodProblem(next, track) + within};
  }
  void WakeAt(int64_t at) {
    const int64_t after = std::max<int64_t>(1, at - in_.now);
    if (plan_.wake_after_s == 0 || after < plan_.wake_after_s) plan_.wake_after_s = after;
  }
  // A node that finished an earlier move is like one that never moved once its gateway is
  // outdated again (the template changed).
  bool FinishedAndOutdated(const UpgradeNode& n) const {
    const bool finished = n.state && n.state->phase == UpgradePhase::kDone &&
                          ForTarget(*n.state, in_) && n.tracks == std::set{in_.target};
    return finished && Outdated(PodOn(n, in_.target), in_.target_hash);
  }
  // autoRollback: a failure of this rollout halts it (until the node's state is cleared or the
  // spec changes).
  bool FailureHalts() const {
    if (!in_.spec.auto_rollback) return false;
    return std::any_of(in_.nodes.begin(), in_.nodes.end(), [&](const UpgradeNode& n) {
      if (!n.state || !ForTarget(*n.state, in_)) return false;
      return n.state->phase == UpgradePhase::kFailed ||
             (n.state->phase == UpgradePhase::kRollBack && n.state->keep_failed);
    });
  }
  // The most nodes maxUnavailable lets be without a serving gateway at once (at least one).
  int64_t MaxUnavailable() const {
    const int64_t total = static_cast<int64_t>(in_.nodes.size());
    auto max_unavailable =
        crd::ScaledValueFromIntOrPercent(in_.spec.max_unavailable, total, /*round_up=*/false);
    return std::max<int64_t>(max_unavailable.ok() ? *max_unavailable : 1, 1);
  }
  bool MayStartMoves() const { return !plan_.paused && !halt_; }

  // Each node as it stands, before this pass decides anything.
  void Seed();
  // Moves under way take their next step; the other nodes queue for a start.
  Tally StepNodes();
  void StepNode(size_t i, Tally& t);
  void HoldForMaintenance(const UpgradeNode& n, NodeDecision& d);
  void Queue(size_t i, Tally& t);
  void CountUnderWay(const UpgradeNode& n, const NodeDecision& d, Tally& t) const;
  // New moves, within the budgets the moves under way leave.
  void StartMoves(const Tally& t);
  void StartMove(NodeDecision& d, const std::string& from, bool in_place);
  void NoteHeldByFailed(const Tally& t);
  // Transitions and the summary.
  void Summarize(const std::vector<size_t>& candidates);
  void SummarizeNode(const UpgradeNode& n, const NodeDecision& d, bool candidate);

  // One node's next step in a move already under way.
  void Step(const UpgradeNode& n, NodeDecision& d);
  void StepSideBySide(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void StepNewGateway(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void StepSwitch(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void StepDrainOld(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void StepRollBack(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void StepInPlace(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  // A state left by another target (the spec changed during the rollout).
  void Abandon(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d);
  void Count(const NodeDecision& d);

  const UpgradeInputs& in_;
  UpgradePlan plan_;
  bool halt_ = false;
};

void Planner::Abandon(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  if (MovingSideBySide(s)) {
    // Back to where the node came from; the new target gets its own move afterwards.
    d.state = RollBack(std::move(s), reasons::kTargetChanged,
                       "the spec moved to " + in_.target + " during the move", false);
    d.tracks = n.tracks;
    return;
  }
  if (s.phase == UpgradePhase::kRollBack) {
    StepSideBySide(n, std::move(s), d);
    return;
  }
  // StopOld, Done, Failed and InPlace steps: the node now runs what its labels say; forget it.
  d.state.reset();
  d.tracks = n.tracks;
}

void Planner::StepSideBySide(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  if (halt_ && MovingSideBySide(s)) {
    d.tracks = {s.from, s.to};
    d.state = RollBack(std::move(s), reasons::kRolloutHalted,
                       "another node failed and autoRollback is set", false);
    return;
  }
  switch (s.phase) {
    case UpgradePhase::kStartNew:
    case UpgradePhase::kValidate: StepNewGateway(n, std::move(s), d); return;
    case UpgradePhase::kSwitch: StepSwitch(n, std::move(s), d); return;
    case UpgradePhase::kDrain: StepDrainOld(n, std::move(s), d); return;
    case UpgradePhase::kStopOld:
      d.tracks = {s.to};
      d.state =
          PodOn(n, s.from) == nullptr ? Enter(std::move(s), UpgradePhase::kDone) : std::move(s);
      return;
    case UpgradePhase::kDone:
      d.tracks = {s.to};
      d.state = std::move(s);
      return;
    case UpgradePhase::kRollBack: StepRollBack(n, std::move(s), d); return;
    case UpgradePhase::kFailed:
      d.tracks = {s.from};
      d.state = std::move(s);
      return;
  }
}

// StartNew and Validate: the new gateway beside the old one, until it passes or times out.
void Planner::StepNewGateway(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  const controllers::OwnedPod* next = PodOn(n, s.to);
  d.tracks = {s.from, s.to};
  // A pod found Ready and checked in the same pass goes straight to Switch.
  if (s.phase == UpgradePhase::kStartNew && Ready(next) && !(n.validation && n.validation->ok)) {
    d.state = Enter(std::move(s), UpgradePhase::kValidate);
    return;
  }
  if (Ready(next) && n.validation && n.validation->ok) {
    d.state = Enter(std::move(s), UpgradePhase::kSwitch);
    return;
  }
  if (TimedOut(n, s)) {
    auto [reason, message] = TimeoutWhy(n, next, s.to);
    d.state = RollBack(std::move(s), std::move(reason), std::move(message), true);
    return;
  }
  // The S3 check is retried every few seconds while the pod is Ready.
  WakeAt(std::min(CountStarted(n, s) + in_.validation_timeout_s,
                  s.phase == UpgradePhase::kValidate ? in_.now + 2 : INT64_MAX));
  d.state = std::move(s);
}

// Drain starts once clients can see the move; without a drain time the old one stops now.
void Planner::StepSwitch(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  d.tracks = {s.from, s.to};
  if (!n.published.count(s.to)) {
    d.state = std::move(s);
    return;
  }
  if (in_.spec.drain_seconds <= 0) {
    d.tracks = {s.to};
    d.state = Enter(std::move(s), UpgradePhase::kStopOld);
    return;
  }
  WakeAt(Drain().EndOf(in_.now));
  d.state = Enter(std::move(s), UpgradePhase::kDrain);
}

void Planner::StepDrainOld(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  d.tracks = {s.from, s.to};
  if (Drain().Over(CountSince(n, s))) {
    d.tracks = {s.to};
    d.state = Enter(std::move(s), UpgradePhase::kStopOld);
    return;
  }
  WakeAt(Drain().EndOf(CountSince(n, s)));
  d.state = std::move(s);
}

// The new track's label goes once no client is pointed at it; then wait for its pod to go.
void Planner::StepRollBack(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  const controllers::OwnedPod* next = PodOn(n, s.to);
  d.tracks =
      KeepsNewTrack(n, s) ? std::set<std::string>{s.from, s.to} : std::set<std::string>{s.from};
  if (s.drain_new && d.tracks.size() == 2) WakeAt(Drain().EndOf(CountSince(n, s)));
  if (d.tracks.size() != 1 || next != nullptr) {
    d.state = std::move(s);
    return;
  }
  if (s.keep_failed) {
    d.state = Enter(std::move(s), UpgradePhase::kFailed);
  } else {
    d.state.reset();
  }
}

void Planner::StepInPlace(const UpgradeNode& n, NodeUpgradeState s, NodeDecision& d) {
  const controllers::OwnedPod* next = PodOn(n, s.to);
  const bool same_track = s.from == s.to;
  switch (s.phase) {
    case UpgradePhase::kDrain:
      d.tracks = {s.from};
      if (!Drain().Over(CountSince(n, s))) {
        WakeAt(Drain().EndOf(CountSince(n, s)));
        d.state = std::move(s);
        return;
      }
      d.tracks = {s.to};
      if (same_track && next != nullptr) d.delete_pod = next->name;
      d.state = Enter(std::move(s), UpgradePhase::kStopOld);
      return;
    case UpgradePhase::kStopOld:
      d.tracks = {s.to};
      if (same_track) {
        if (Outdated(next, s.template_hash)) {
          d.delete_pod = next->name;  // again, if the first delete was lost
        } else if (next != nullptr && !next->terminating) {
          d.state = Enter(std::move(s), UpgradePhase::kValidate);
          return;
        }
      } else if (PodOn(n, s.from) == nullptr) {
        d.state = Enter(std::move(s), UpgradePhase::kValidate);
        return;
      }
      d.state = std::move(s);
      return;
    case UpgradePhase::kValidate:
      d.tracks = {s.to};
      if (Ready(next) && n.validation && n.validation->ok) {
        d.state = Enter(std::move(s), UpgradePhase::kDone);
        return;
      }
      if (TimedOut(n, s)) {
        s = Enter(std::move(s), UpgradePhase::kFailed);
        std::tie(s.reason, s.message) = TimeoutWhy(n, next, s.to);
        s.keep_failed = true;
        d.state = std::move(s);
        return;
      }
      WakeAt(std::min(CountStarted(n, s) + in_.validation_timeout_s,
                      Ready(next) ? in_.now + 2 : INT64_MAX));
      d.state = std::move(s);
      return;
    default:  // Done, Failed
      d.tracks = {s.to};
      d.state = std::move(s);
      return;
  }
}

void Planner::Step(const UpgradeNode& n, NodeDecision& d) {
  NodeUpgradeState s = *n.state;
  if (!ForTarget(s, in_)) {
    Abandon(n, std::move(s), d);
  } else if (s.in_place) {
    StepInPlace(n, std::move(s), d);
  } else {
    StepSideBySide(n, std::move(s), d);
  }
  // Rolling back: the new track's label goes at once unless clients still see the node there.
  if (d.state && d.state->phase == UpgradePhase::kRollBack && !KeepsNewTrack(n, *d.state))
    d.tracks = {d.state->from};
}

void Planner::Count(const NodeDecision& d) {
  if (!d.state) return;
  crd::UpgradePhaseCounts& c = plan_.phases;
  switch (d.state->phase) {
    case UpgradePhase::kStartNew: ++c.start_new; break;
    case UpgradePhase::kValidate: ++c.validate; break;
    case UpgradePhase::kSwitch: ++c.switch_; break;
    case UpgradePhase::kDrain: ++c.drain; break;
    case UpgradePhase::kStopOld: ++c.stop_old; break;
    case UpgradePhase::kDone: ++c.done; break;
    case UpgradePhase::kRollBack: ++c.roll_back; break;
    case UpgradePhase::kFailed: ++c.failed; break;
  }
}

UpgradePlan Planner::Run() {
  Seed();
  if (!in_.may_start || in_.target.empty()) return plan_;  // a refused spec changes nothing
  halt_ = FailureHalts();
  plan_.halted = halt_;
  // Moves under way first, then starts within the budget.
  const Tally tally = StepNodes();
  StartMoves(tally);
  NoteHeldByFailed(tally);
  Summarize(tally.candidates);
  return plan_;
}

void Planner::Seed() {
  plan_.in_place = in_.spec.strategy == crd::UpgradeStrategy::kInPlace;
  plan_.paused = in_.spec.paused;
  plan_.nodes.resize(in_.nodes.size());
  for (size_t i = 0; i < in_.nodes.size(); ++i) {
    plan_.nodes[i].node = in_.nodes[i].name;
    plan_.nodes[i].tracks = in_.nodes[i].tracks;
    plan_.nodes[i].state = in_.nodes[i].state;
  }
}

Tally Planner::StepNodes() {
  Tally t;
  for (size_t i = 0; i < in_.nodes.size(); ++i) StepNode(i, t);
  return t;
}

void Planner::StepNode(size_t i, Tally& t) {
  const UpgradeNode& n = in_.nodes[i];
  NodeDecision& d = plan_.nodes[i];
  d.maintenance = n.maintenance;
  if (n.maintenance.applies) {
    HoldForMaintenance(n, d);
    ++t.unavailable;
    return;
  }
  if (n.state && !FinishedAndOutdated(n)) {
    Step(n, d);
    CountUnderWay(n, d, t);
    return;
  }
  if (n.tracks.empty()) {
    if (n.eligible) d.tracks = {in_.target};  // a new node: nothing to keep serving
    return;
  }
  Queue(i, t);
}

// Out of the rollout until it returns; a failure stays on record (and keeps halting).
void Planner::HoldForMaintenance(const UpgradeNode& n, NodeDecision& d) {
  d.tracks = n.maintenance.tracks;
  if (!(n.state && n.state->phase == UpgradePhase::kFailed)) d.state.reset();
  if (n.maintenance.wake_at > 0) WakeAt(n.maintenance.wake_at);
}

// A node with tracks and no move under way: a candidate when it is not on the target yet.
void Planner::Queue(size_t i, Tally& t) {
  const UpgradeNode& n = in_.nodes[i];
  NodeDecision& d = plan_.nodes[i];
  const std::string serving = ServingTrack(n.tracks, in_.target);
  const bool moves = serving != in_.target || n.tracks.size() > 1 ||
                     Outdated(PodOn(n, in_.target), in_.target_hash);
  if (moves && n.eligible) t.candidates.push_back(i);
  if (moves && !n.eligible) ++plan_.phases.pending;  // waits for its checks to pass
  // A failed check takes the target's gateway away; a gateway of an older track stays.
  if (!n.eligible) d.tracks.erase(in_.target);
  if (!Ready(PodOn(n, serving))) ++t.unavailable;
}

void Planner::CountUnderWay(const UpgradeNode& n, const NodeDecision& d, Tally& t) const {
  if (!d.state) return;
  if (InFlight(*d.state)) {
    ++t.in_flight;
    if (d.state->in_place && d.state->phase != UpgradePhase::kDone) ++t.unavailable;
    return;
  }
  if (d.state->phase != UpgradePhase::kFailed || !ForTarget(*d.state, in_)) return;
  // A failed node keeps its slot until someone clears it: without this, autoRollback false
  // fails one node after another (InPlace: each left without a gateway) on a bad build.
  ++t.in_flight;
  ++t.failed_holding;
  const std::string& serving = d.state->in_place ? d.state->to : d.state->from;
  if (!Ready(PodOn(n, serving))) ++t.unavailable;
}

void Planner::StartMoves(const Tally& t) {
  int64_t budget = std::max<int32_t>(in_.spec.max_parallel, 1) - t.in_flight;
  const int64_t unavailable_budget = MaxUnavailable() - t.unavailable;
  if (!in_.port_conflict.empty() && !plan_.in_place) plan_.blocked = in_.port_conflict;
  int64_t in_place_started = 0;
  for (size_t i : t.candidates) {
    if (!MayStartMoves() || budget <= 0) break;
    const std::string from = ServingTrack(in_.nodes[i].tracks, in_.target);
    const bool in_place = plan_.in_place || from == in_.target;
    if (!in_place && !plan_.blocked.empty()) continue;
    if (in_place && in_place_started >= unavailable_budget) continue;
    StartMove(plan_.nodes[i], from, in_place);
    if (in_place) ++in_place_started;
    --budget;
  }
}

// InPlace drains the node's old gateway first; side by side starts the new one beside it.
void Planner::StartMove(NodeDecision& d, const std::string& from, bool in_place) {
  NodeUpgradeState s;
  s.from = from;
  s.to = in_.target;
  s.in_place = in_place;
  s.template_hash = in_place ? in_.target_hash : "";
  s.started = s.since = in_.now;
  if (in_place) {
    s.phase = UpgradePhase::kDrain;
    d.tracks = {from};
    WakeAt(Drain().EndOf(in_.now));
  } else {
    s.phase = UpgradePhase::kStartNew;
    d.tracks = {from, in_.target};
    WakeAt(in_.now + in_.validation_timeout_s);
  }
  d.state = std::move(s);
}

// Nothing could start and only failures hold the budgets: say so, or the rollout looks stuck.
void Planner::NoteHeldByFailed(const Tally& t) {
  const bool none_started = std::all_of(t.candidates.begin(), t.candidates.end(), [&](size_t i) {
    return plan_.nodes[i].state == in_.nodes[i].state;
  });
  if (MayStartMoves() && t.failed_holding > 0 && t.failed_holding == t.in_flight && none_started)
    plan_.held_by_failed = static_cast<int64_t>(t.candidates.size());
}

void Planner::Summarize(const std::vector<size_t>& candidates) {
  for (size_t i = 0; i < in_.nodes.size(); ++i) {
    NoteTransition(in_.nodes[i], plan_.nodes[i]);
    const bool candidate = std::find(candidates.begin(), candidates.end(), i) != candidates.end();
    SummarizeNode(in_.nodes[i], plan_.nodes[i], candidate);
  }
  plan_.active = AnyMoving(plan_.phases);
  if (!plan_.active) plan_.moving_total = 0;
}

void Planner::SummarizeNode(const UpgradeNode& n, const NodeDecision& d, bool candidate) {
  const bool started = candidate && d.state != n.state;
  const bool pending = candidate && !started;
  const bool on_target = !pending && d.state && ForTarget(*d.state, in_);
  if (pending) ++plan_.phases.pending;
  if (on_target) Count(d);
  if (on_target && (plan_.started == 0 || d.state->started < plan_.started))
    plan_.started = d.state->started;
  if (pending || on_target) {
    ++plan_.moving_total;
    if (d.state && !d.state->in_place) plan_.from.insert(d.state->from);
    if (d.state && d.state->in_place) plan_.in_place = true;
    if (pending) plan_.from.insert(ServingTrack(n.tracks, in_.target));
  } else if (d.state) {
    ++plan_.phases.roll_back;  // leaving a state of another target
    ++plan_.moving_total;
  }
  if (d.state && d.state->phase == UpgradePhase::kFailed)
    plan_.failed.push_back({d.node, d.state->reason, d.state->message, std::nullopt});
}

}  // namespace

bool NeedsValidation(const UpgradeNode& node, const UpgradeInputs& in) {
  if (!node.state || !ForTarget(*node.state, in)) return false;
  const UpgradePhase phase = node.state->phase;
  const bool waits = phase == UpgradePhase::kValidate ||
                     (phase == UpgradePhase::kStartNew && !node.state->in_place);
  if (!waits) return false;
  auto it = node.pods.find(in.target);
  return it != node.pods.end() && Ready(&it->second);
}

UpgradePlan PlanUpgrade(const UpgradeInputs& in) {
  return Planner(in).Run();
}

bool WaitsOnPublish(const UpgradeInputs& in, const UpgradePlan& plan) {
  for (size_t i = 0; i < plan.nodes.size() && i < in.nodes.size(); ++i) {
    const NodeDecision& d = plan.nodes[i];
    if (!d.maintenance.applies && d.state && !d.state->in_place &&
        d.state->phase == UpgradePhase::kSwitch && !in.nodes[i].published.count(d.state->to))
      return true;
  }
  return false;
}

UpgradeInputs AfterWrites(const UpgradeInputs& in, const UpgradePlan& plan,
                          const std::map<std::string, std::set<std::string>>& now_published) {
  UpgradeInputs out = in;
  for (size_t i = 0; i < out.nodes.size() && i < plan.nodes.size(); ++i) {
    UpgradeNode& n = out.nodes[i];
    const NodeDecision& d = plan.nodes[i];
    n.tracks = d.tracks;
    n.state = d.state;
    if (auto it = now_published.find(n.name); it != now_published.end())
      n.published.insert(it->second.begin(), it->second.end());
  }
  return out;
}

EndpointRole NodeRole(const NodeDecision& decision, const std::string& track,
                      const std::string& target) {
  if (decision.maintenance.applies) {
    const MaintenanceStep& m = decision.maintenance;
    return m.phase == MaintenancePhase::kDraining && m.tracks.count(track) &&
                   m.state->draining.count(track)
               ? EndpointRole::kDraining
               : EndpointRole::kAbsent;
  }
  if (decision.state) return RoleOf(*decision.state, track);
  if (!decision.tracks.count(track)) return EndpointRole::kAbsent;
  return ServingTrack(decision.tracks, target) == track ? EndpointRole::kActive
                                                        : EndpointRole::kAbsent;
}

}  // namespace rdmastack::gatewaypool
