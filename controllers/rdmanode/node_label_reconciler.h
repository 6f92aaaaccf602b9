#pragma once
// Keeps the rdmastack.io/ capability labels of each Node in step with its RdmaNode status
// (node_labels.h). Patches only the labels that differ, and only when some do.

#include "base/clock.h"
#include "controllers/common/write_memo.h"
#include "operator/k8s/client.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::rdmanode {

class NodeLabelReconciler final : public runtime::Reconciler {
 public:
  NodeLabelReconciler(k8s::Client& client, const runtime::Store& nodes,
                      const runtime::Store& rdmanodes, Clock& clock, Clock::Duration grace);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  k8s::Client& client_;
  const runtime::Store& nodes_;
  const runtime::Store& rdmanodes_;
  Clock& clock_;
  const Clock::Duration grace_;
  controllers::WriteMemo<std::string> written_;  // the last patch body per node
};

}  // namespace rdmastack::rdmanode
