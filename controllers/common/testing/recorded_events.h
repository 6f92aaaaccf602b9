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
  // Also kept as "<reason> <related key>: <note>" (related()).
  void RecordRelated(const k8s::JsonObject& regarding, const k8s::JsonObject& related,
                     runtime::EventType type, const std::string& reason, const std::string& action,
                     const std::string& note) override {
    Record(regarding, type, reason, action, note);
    std::lock_guard lock(mu_);
    related_.push_back(reason + " " + related.Key() + ": " + note);
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::vector<std::string> related() const {
    std::lock_guard lock(mu_);
    return related_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
  std::vector<std::string> related_;
};

}  // namespace rdmastack::controllers::testing
