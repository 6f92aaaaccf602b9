#pragma once
// An EventRecorder that keeps what it is given, for tests: "Warning PoolConflict storage/b".

#include <mutex>
#include <string>
#include <vector>

#include "operator/runtime/event_recorder.h"

namespace rdmastack::controllers::testing {

class RecordedEvents final : public runtime::EventRecorder {
 public:
  void Record(const k8s::JsonObject& regarding, runtime::EventType type, const std::string& reason,
              const std::string&, const std::string&) override {
    std::lock_guard lock(mu_);
    events_.push_back(std::string(type == runtime::EventType::kWarning ? "Warning " : "Normal ") +
                      reason + " " + regarding.Key());
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

}  // namespace rdmastack::controllers::testing
