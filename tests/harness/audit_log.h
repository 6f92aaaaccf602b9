#pragma once
// Reads the API server's audit log (scripts/cluster.sh writes every write request to it, Metadata
// level, JSON lines) so tests can say who wrote what and when, from the server's own record.

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace rdmastack::testing {

struct AuditedWrite {
  std::string verb;        // create, update, patch, delete
  std::string resource;    // leases, events, ...
  std::string namespace_;  // may be empty
  std::string name;
  std::string user_agent;
  std::string user;         // the authenticated user name
  std::string api_group;    // "" for the core group
  std::string subresource;  // "status", ...
  int code = 0;             // response status
  // Audit annotations, e.g. mutation.webhook.admission.k8s.io/round_0_index_0 for each mutating
  // webhook the API server called for this request.
  std::map<std::string, std::string> annotations;
  std::chrono::system_clock::time_point received;
};

// Every completed write in the log at RDMASTACK_AUDIT_LOG and its rotated files beside it (empty
// when it is not set).
std::vector<AuditedWrite> ReadAuditedWrites();
// Every completed request in that log, reads too (the policy logs reads of the chart's operator
// ServiceAccount only).
std::vector<AuditedWrite> ReadAuditedRequests();
// Every request the server received, once each, including those still running (an open watch).
std::vector<AuditedWrite> ReadAuditedRequestsReceived();

// How many `verb` requests on `resource` came with exactly this user agent.
int CountAudited(const std::vector<AuditedWrite>& all, const std::string& verb,
                 const std::string& resource, const std::string& user_agent);

// Those whose user agent contains `needle`. Review requests (TokenReview, SelfSubjectReview,
// SubjectAccessReview: "create" in the audit log, but nothing is stored) are left out: they ask the
// server a question and change no state.
std::vector<AuditedWrite> WritesByAgent(const std::vector<AuditedWrite>& all,
                                        const std::string& needle);

}  // namespace rdmastack::testing
