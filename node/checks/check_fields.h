#pragma once
// Field tables (base/field_table.h) of the checks' results, verdicts and requirements: each
// member's name in the agent's JSON report (docs/agent.md), in the report's order, as
// node/probe/facts_fields.h does for the facts.

#include <string_view>
#include <tuple>

#include "base/field_table.h"
#include "node/checks/check.h"

namespace rdmastack::node {

using fields::F;
using fields::Unwritten;

inline std::string_view JsonName(Role r) {
  return RoleName(r);
}
inline std::string_view JsonName(CheckStatus s) {
  return CheckStatusName(s);
}
inline std::string_view JsonName(Transport t) {
  return TransportName(t);
}
inline std::string_view JsonName(Registration r) {
  return RegistrationName(r);
}
inline std::string_view JsonName(PathType t) {
  return PathTypeName(t);
}

constexpr auto JsonFields(const CheckResult*) {
  using T = CheckResult;
  return std::tuple{F("id", &T::id), F("status", &T::status), F("reason", &T::reason),
                    F("message", &T::message), F("remedy", &T::remedy)};
}

constexpr auto JsonFields(const Verdict*) {
  using T = Verdict;
  return std::tuple{F("capability", &T::capability), F("capable", &T::capable),
                    F("reason", &T::reason), F("via", &T::via), F("message", &T::message)};
}

constexpr auto JsonFields(const Requirements*) {
  using T = Requirements;
  return std::tuple{Unwritten("role", &T::role),  // the report's top says it
                    F("transport", &T::transport),
                    F("memoryRegistration", &T::registration),
                    F("maxTransferBytes", &T::max_transfer_bytes),
                    F("maxGpuNicDistance", &T::max_gpu_nic_distance),
                    F("gidIndex", &T::gid_index),
                    F("rdmaIp", &T::rdma_ip)};
}

constexpr auto JsonFields(const Evaluation*) {
  using T = Evaluation;
  return std::tuple{F("requirements", &T::requirements), F("ready", &T::ready),
                    F("transport", &T::selected_transport), F("verdicts", &T::verdicts),
                    F("checks", &T::checks)};
}

static_assert(fields::ListsEveryMember<CheckResult>(),
              "a member of CheckResult has no row in its table");
static_assert(fields::ListsEveryMember<Verdict>(), "a member of Verdict has no row in its table");
static_assert(fields::ListsEveryMember<Requirements>(),
              "a member of Requirements has no row in its table");
static_assert(fields::ListsEveryMember<Evaluation>(),
              "a member of Evaluation has no row in its table");

}  // namespace rdmastack::node
