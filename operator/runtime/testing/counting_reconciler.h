#pragma once
// A reconciler that only counts its calls, for tests of what drives reconciles.

#include <atomic>

#include "operator/runtime/reconciler.h"

namespace rdmastack::runtime::testing {

class CountingReconciler : public Reconciler {
 public:
  StatusOr<Result> Reconcile(const Request&) override {
    ++calls;
    return Result{};
  }
  std::atomic<int> calls{0};
};

}  // namespace rdmastack::runtime::testing
