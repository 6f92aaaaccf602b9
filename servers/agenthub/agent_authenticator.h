#pragma once
// The I/O around admission.h: review the Hello's token (cached), read the Pod it is bound to and
// the agent DaemonSet's uid (kept; read again when a pod names another), decide. Blocking; the
// hub runs it on its worker pool, several at once.

#include <mutex>
#include <string>

#include "agents/proto/agenthub.pb.h"
#include "operator/k8s/client.h"
#include "servers/agenthub/admission.h"
#include "servers/agenthub/token_reviewer.h"

namespace rdmastack::agenthub {

class AgentAuthenticator {
 public:
  AgentAuthenticator(TokenReviewer& reviewer, k8s::Client& reader, AgentPolicy policy)
      : reviewer_(reviewer), reader_(reader), policy_(std::move(policy)) {}

  AdmissionDecision Authenticate(const agent::v1::Hello& hello);
  const AgentPolicy& policy() const { return policy_; }

 private:
  // The DaemonSet's uid; `owner_uid` is what the pod names: when it differs from the uid kept,
  // the DaemonSet may have been made again, so it is read anew.
  StatusOr<DaemonSetUid> AgentDaemonSetUid(const std::string& owner_uid);

  TokenReviewer& reviewer_;
  k8s::Client& reader_;
  const AgentPolicy policy_;
  std::mutex mu_;
  std::string daemonset_uid_;  // "" until read
};

}  // namespace rdmastack::agenthub
