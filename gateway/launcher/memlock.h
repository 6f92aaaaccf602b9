#pragma once
// vgwrdma pins its whole buffer pool (count x size) with ibv_reg_mr at start. The kernel allows
// that only with CAP_IPC_LOCK or when RLIMIT_MEMLOCK covers it, and Kubernetes has no per-pod
// ulimit, so the launcher checks before the gateway fails half-way through registration.

#include <cstdint>
#include <optional>

#include "base/status.h"

namespace rdmastack::gateway {

struct MemlockFacts {
  bool has_ipc_lock = false;
  std::optional<uint64_t> soft_limit;  // nullopt = unlimited
  std::optional<uint64_t> hard_limit;  // nullopt = unlimited
};

// OK when CAP_IPC_LOCK is effective or the soft limit covers pool_bytes.
Status CheckMemlock(const MemlockFacts& facts, uint64_t pool_bytes);

// Raises the soft RLIMIT_MEMLOCK to the hard limit (inherited across exec), then reports
// the effective CAP_IPC_LOCK bit and the limits.
StatusOr<MemlockFacts> ReadMemlockFactsRaisingSoftLimit();

// "4 GiB", "512 MiB", "65536 bytes".
std::string HumanBytes(uint64_t bytes);

}  // namespace rdmastack::gateway
