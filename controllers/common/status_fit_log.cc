#include "controllers/common/status_fit_log.h"

#include <spdlog/spdlog.h>

#include "base/utf8.h"

namespace rdmastack::controllers {
namespace {

// A status with many fixes (a whole list of long messages) still makes one readable line.
constexpr size_t kMaxLoggedFixes = 4096;

}  // namespace

bool StatusFitLog::Report(const std::string& key, const crd::SchemaFixes& fixes) {
  std::lock_guard lock(mu_);
  if (fixes.empty()) {
    logged_.erase(key);
    return false;
  }
  std::string signature = crd::FixSignature(fixes);
  auto [it, inserted] = logged_.try_emplace(key, signature);
  if (!inserted && it->second == signature) return false;
  it->second = std::move(signature);
  spdlog::warn(
      "{} {}: status does not fit the CRD schema, written fitted (an operator bug; please report "
      "this line): {}",
      log_name_, key, ClipUtf8(crd::DescribeFixes(fixes), kMaxLoggedFixes, TextUnit::kBytes));
  return true;
}

void StatusFitLog::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  logged_.erase(key);
}

}  // namespace rdmastack::controllers
