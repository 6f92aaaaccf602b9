#pragma once
// The status a simulated node reports for a pod, built from what its containers are doing: phase,
// conditions (PodReadyToStartContainers, Initialized, ContainersReady, Ready) and container
// statuses in the API's shape. Pure: the pod worker gathers the facts, this decides the shape.

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::sim {

struct TerminatedView {
  int exit_code = 0;
  std::string reason;  // Completed, Error, StartError
  std::string message;
  std::string container_id;
  Clock::WallTime started_at{};
  Clock::WallTime finished_at{};
};

struct ContainerView {
  enum class State { kWaiting, kRunning, kTerminated };
  std::string name;
  std::string image;
  State state = State::kWaiting;
  std::string waiting_reason = "ContainerCreating";  // waiting
  std::string waiting_message;
  Clock::WallTime running_since{};  // running
  TerminatedView terminated;        // terminated
  std::optional<TerminatedView> last_termination;
  std::string container_id;  // of the current run
  bool ready = false;
  bool started = false;
  int restart_count = 0;
};

struct ConditionView {
  std::string type;
  bool status = false;
  Clock::WallTime since{};
  std::string reason;
  std::string message;
};

struct PodView {
  std::string phase;
  std::string host_ip;
  std::string pod_ip;
  std::optional<Clock::WallTime> start_time;
  std::vector<ConditionView> conditions;
  std::vector<ContainerView> init_containers;
  std::vector<ContainerView> containers;
};

// Kubernetes' phase rules for restartPolicy Always/OnFailure/Never.
std::string PodPhase(const std::string& restart_policy, bool initialized, bool init_failed,
                     const std::vector<ContainerView>& containers);

// {"status": {...}} for a strategic-merge patch of pods/status: conditions merge by type (so
// PodScheduled stays), container status lists are replaced whole.
k8s::JsonObject StatusPatch(const PodView& pod);

// "containers with unready status: [a b]"
std::string ContainerListMessage(const std::string& what, const std::vector<std::string>& names);

}  // namespace rdmastack::sim
