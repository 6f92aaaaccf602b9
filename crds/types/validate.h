#pragma once
// Semantic validation of the custom resources, for what the CRD schema and its CEL rules cannot
// or do not check: label-key syntax, Secret-name syntax, pinned image references, the effective
// (defaulted) ports, rendered backend paths, an InPlace upgrade that could never start, and the
// internal consistency of RdmaNode reports. It also repeats the CEL rules the operator relies on,
// because objects stored before a CRD change, or ratcheted by the apiserver, skip them.
//
// Every problem is returned, each with its field path, so one pass tells a user everything.

#include <string>
#include <string_view>
#include <vector>

#include "crds/types/types.h"

namespace rdmastack::crd {

struct FieldProblem {
  std::string path;     // e.g. "spec.rdma.port"
  std::string message;  // what is wrong and what to do
  friend bool operator==(const FieldProblem&, const FieldProblem&) = default;
};

using FieldProblems = std::vector<FieldProblem>;

FieldProblems Validate(const GatewayPool& pool);
FieldProblems Validate(const ClientProfile& profile);
FieldProblems Validate(const RdmaNode& node);

// Validate(updated) plus the transition rules: library major moves one step at a time, backend
// is immutable, nodeSelector is frozen while nodes serve, and a SideBySide major move changes both
// effective ports.
FieldProblems ValidateUpdate(const GatewayPool& old_pool, const GatewayPool& updated);

// "spec.rdma.port: must differ ...; spec.s3.port: ..." — for logs, events and conditions.
std::string FormatProblems(const FieldProblems& problems);

// A DNS-1123 label (a namespace's name): lower-case alphanumerics and '-', alphanumeric at both
// ends, 63 characters at most.
bool IsDnsLabel(std::string_view s);

}  // namespace rdmastack::crd
