#pragma once
// How a pool's or profile's pass ends: an Event for each condition that changed in a way a human
// should hear of, the status written when it changed (fitted to the CRD schema, then
// server-side apply of /status: status_writer.h), and only then the error of the pass's other
// writes, so that a failed write never holds back the status that says what is wrong.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controllers/common/status_writer.h"
#include "controllers/common/write_memo.h"
#include "crds/types/types.h"
#include "operator/k8s/client.h"
#include "operator/runtime/event_recorder.h"

namespace rdmastack::controllers {

// An Event for condition `type` when it changes (ChangedCondition) to `status`, unless its reason
// is `except_reason`. Reason and message are the condition's.
struct ConditionEvent {
  std::string_view type;
  crd::ConditionStatus status;
  runtime::EventType event;
  std::string_view action;
  std::string_view except_reason = {};
};

// Records the Events `rules` call for between `before` and `after`, in the order of `rules`.
void RecordConditionEvents(runtime::EventRecorder& events, const k8s::JsonObject& object,
                           const std::vector<crd::Condition>& before,
                           const std::vector<crd::Condition>& after,
                           const std::vector<ConditionEvent>& rules);

// "gatewaypool ns/p: status written (Ready=True GatewaysReady, nodes 3/4)".
void LogStatusWritten(std::string_view log_name, const std::string& key,
                      const std::vector<crd::Condition>& conditions, const std::string& summary);

template <typename Resource, typename StatusType>
class OwnerStatus {
 public:
  // What the status log line says after Ready ("nodes 3/4").
  using Summary = std::function<std::string(const StatusType&)>;

  // `log_name` starts the log line ("gatewaypool"); `rules` say which condition changes get an
  // Event.
  OwnerStatus(k8s::Client& client, runtime::EventRecorder& events, const k8s::ResourceType& type,
              std::string log_name, std::vector<ConditionEvent> rules, Summary summary)
      : client_(client),
        events_(events),
        type_(type),
        log_name_(std::move(log_name)),
        rules_(std::move(rules)),
        summary_(std::move(summary)),
        fit_log_(log_name_) {}

  // The end of a pass: Events, the status, then `synced` (the pass's other writes).
  Status Publish(const k8s::JsonObject& object, const Resource& resource, const StatusType& status,
                 Status synced) {
    static const std::vector<crd::Condition> kNone;
    RecordConditionEvents(events_, object, resource.status ? resource.status->conditions : kNone,
                          status.conditions, rules_);
    RDMASTACK_RETURN_IF_ERROR(Write(object, resource, status));
    return synced;
  }

  // The status alone, when it differs from the cached one and from what this process wrote last.
  Status Write(const k8s::JsonObject& object, const Resource& resource, const StatusType& status) {
    RDMASTACK_ASSIGN_OR_RETURN(bool written, ApplyStatusIfChanged(client_, type_, object, resource,
                                                                  status, memo_, fit_log_));
    if (written) LogStatusWritten(log_name_, object.Key(), status.conditions, summary_(status));
    return OkStatus();
  }

  // The object is gone: what was written for it no longer matters.
  void Forget(const std::string& key) {
    memo_.Forget(key);
    fit_log_.Forget(key);
  }

 private:
  k8s::Client& client_;
  runtime::EventRecorder& events_;
  const k8s::ResourceType& type_;
  const std::string log_name_;
  const std::vector<ConditionEvent> rules_;
  const Summary summary_;
  WriteMemo<StatusType> memo_;  // object key -> status
  StatusFitLog fit_log_;
};

}  // namespace rdmastack::controllers
