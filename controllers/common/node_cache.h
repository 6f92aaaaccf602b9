#pragma once
// The operator's one Node informer, with the label filter that follows the live selectors
// (node_label_filter.h): made once (by NodeControllers) and handed to every controller that reads
// Nodes, because the informer for a type is shared and the first caller's transform wins.

#include <memory>

#include "controllers/common/node_label_filter.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/manager.h"

namespace rdmastack::controllers {

class NodeCache {
 public:
  // Registers the Node informer (and the GatewayPool and ClientProfile informers whose selectors
  // it follows) with `manager`'s cache; they start with the manager.
  NodeCache(runtime::Manager& manager, Clock& clock);
  NodeCache(const NodeCache&) = delete;
  NodeCache& operator=(const NodeCache&) = delete;

  runtime::Informer& informer() { return *nodes_; }
  NodeLabelCoverage& coverage() { return *filter_; }
  const NodeLabelFilter& filter() const { return *filter_; }

 private:
  runtime::Informer* pools_ = nullptr;
  runtime::Informer* profiles_ = nullptr;
  runtime::Informer* nodes_ = nullptr;
  std::unique_ptr<NodeLabelFilter> filter_;
};

}  // namespace rdmastack::controllers
