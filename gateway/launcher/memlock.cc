#include "gateway/launcher/memlock.h"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace rdmastack::gateway {
namespace {

std::optional<uint64_t> FromRlim(rlim_t v) {
  if (v == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(v);
}

}  // namespace

std::string HumanBytes(uint64_t bytes) {
  constexpr uint64_t kGiB = 1ull << 30, kMiB = 1ull << 20, kKiB = 1ull << 10;
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

Status CheckMemlock(const MemlockFacts& facts, uint64_t pool_bytes) {
  if (facts.has_ipc_lock) return OkStatus();
  if (!facts.soft_limit || *facts.soft_limit >= pool_bytes) return OkStatus();
  return ResourceExhaustedError(
      "the RDMA buffer pool needs " + HumanBytes(pool_bytes) +
      " of pinned memory but the process " + "has no CAP_IPC_LOCK and RLIMIT_MEMLOCK is " +
      HumanBytes(*facts.soft_limit) +
      (facts.hard_limit ? " (hard " + HumanBytes(*facts.hard_limit) + ")" : "") +
      "; add capability IPC_LOCK to the container securityContext, or lower "
      "--pool-buf-size/--pool-buf-count");
}

StatusOr<MemlockFacts> ReadMemlockFactsRaisingSoftLimit() {
  MemlockFacts facts;
  rlimit lim{};
  if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0) {
    return InternalError(std::string("getrlimit(RLIMIT_MEMLOCK): ") + std::strerror(errno));
  }
  if (lim.rlim_cur != lim.rlim_max) {
    rlimit raised{lim.rlim_max, lim.rlim_max};
    if (setrlimit(RLIMIT_MEMLOCK, &raised) == 0) lim = raised;
  }
  facts.soft_limit = FromRlim(lim.rlim_cur);
  facts.hard_limit = FromRlim(lim.rlim_max);

  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return InternalError(std::string("capget: ") + std::strerror(errno));
  }
  facts.has_ipc_lock =
      (data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective & CAP_TO_MASK(CAP_IPC_LOCK)) != 0;
  return facts;
}

}  // namespace rdmastack::gateway
