#pragma once
// The I/O around admission.h: review the Hello's token (cached), read the Pod it is bound to,
// decide. Blocking; the hub runs it on its worker pool.

#include "agents/proto/agenthub.pb.h"
#include "controllers/agenthub/admission.h"
#include "controllers/agenthub/token_reviewer.h"
#include "operator/k8s/client.h"

namespace rdmastack::agenthub {

class AgentAuthenticator {
 public:
  AgentAuthenticator(TokenReviewer& reviewer, k8s::Client& reader, AgentPolicy policy)
      : reviewer_(reviewer), reader_(reader), policy_(std::move(policy)) {}

  AdmissionDecision Authenticate(const agent::v1::Hello& hello);
  const AgentPolicy& policy() const { return policy_; }

 private:
  TokenReviewer& reviewer_;
  k8s::Client& reader_;
  const AgentPolicy policy_;
};

}  // namespace rdmastack::agenthub
