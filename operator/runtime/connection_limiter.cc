#include "operator/runtime/connection_limiter.h"

#include <algorithm>
#include <utility>

namespace rdmastack::runtime {

ConnectionLimiter::Slot::Slot(Slot&& other) noexcept
    : limiter_(std::exchange(other.limiter_, nullptr)), address_(std::move(other.address_)) {}

ConnectionLimiter::Slot& ConnectionLimiter::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    address_ = std::move(other.address_);
  }
  return *this;
}

ConnectionLimiter::Slot::~Slot() {
  Release();
}

void ConnectionLimiter::Slot::Release() {
  if (limiter_ != nullptr) std::exchange(limiter_, nullptr)->Release(address_);
}

ConnectionLimiter::ConnectionLimiter(ConnectionLimits limits) : limits_(limits) {}

std::optional<ConnectionLimiter::Slot> ConnectionLimiter::Admit(const std::string& address,
                                                                const char** refusal) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_address_.find(address);
  const size_t from_address = it == by_address_.end() ? 0 : it->second;
  if (limits_.max_connections_per_address > 0 &&
      from_address >= limits_.max_connections_per_address) {
    *refusal = kRefusedMaxConnectionsPerAddress;
    return std::nullopt;
  }
  if (open_ >= std::max<size_t>(1, limits_.max_connections)) {
    *refusal = kRefusedMaxConnections;
    return std::nullopt;
  }
  ++open_;
  if (it == by_address_.end()) {
    by_address_.emplace(address, 1);
  } else {
    ++it->second;
  }
  return Slot(this, address);
}

void ConnectionLimiter::Release(const std::string& address) {
  std::lock_guard<std::mutex> l(mu_);
  --open_;
  auto it = by_address_.find(address);
  if (it != by_address_.end() && --it->second == 0) by_address_.erase(it);
}

size_t ConnectionLimiter::open() const {
  std::lock_guard<std::mutex> l(mu_);
  return open_;
}

size_t ConnectionLimiter::open_from(const std::string& address) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_address_.find(address);
  return it == by_address_.end() ? 0 : it->second;
}

}  // namespace rdmastack::runtime
