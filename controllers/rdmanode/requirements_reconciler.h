#pragma once
// Computes each Node's agent Requirements from the GatewayPools and ClientProfiles that select it
// (requirements.h) and publishes them to the agent hub when they change; forgets deleted Nodes.

#include <map>
#include <mutex>
#include <string>

#include "controllers/common/node_label_filter.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"
#include "servers/agenthub/agent_events.h"

namespace rdmastack::rdmanode {

class RequirementsReconciler final : public runtime::Reconciler {
 public:
  RequirementsReconciler(const runtime::Store& nodes, const runtime::Store& pools,
                         const runtime::Store& profiles,
                         controllers::NodeLabelCoverage& node_labels,
                         agenthub::RequirementsPublisher& publisher);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  const runtime::Store& nodes_;
  const runtime::Store& pools_;
  const runtime::Store& profiles_;
  controllers::NodeLabelCoverage& node_labels_;
  agenthub::RequirementsPublisher& publisher_;
  std::mutex mu_;
  std::map<std::string, std::string> published_;  // node -> serialised Requirements
};

// Keeps the latest Requirements per node: a RequirementsPublisher for when no hub consumes them
// (and for tests that read what was published).
class LatestRequirements final : public agenthub::RequirementsPublisher {
 public:
  void Publish(const std::string& node_name, const agent::v1::Requirements& requirements) override;
  void Forget(const std::string& node_name) override;
  std::optional<agent::v1::Requirements> Get(const std::string& node_name) const;
  int publishes() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, agent::v1::Requirements> latest_;
  int publishes_ = 0;
};

}  // namespace rdmastack::rdmanode
