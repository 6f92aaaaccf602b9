#include "lib/compat/named_refusal.h"

#include <string>

#include "lib/compat/library_digest.h"

namespace rdmastack::compat {

namespace {

constexpr std::pair<std::string_view, std::string_view> kNamed[] = {
    {kLibraryDigestRefusalClass, kReasonLibraryDigestMismatch},
    {kBackendMetadataRefusalClass, kReasonBackendNoUserXattr},
};

}  // namespace

bool IsNamedRefusalReason(std::string_view reason) {
  for (const auto& [cls, named] : kNamed) {
    if (reason == named) return true;
  }
  return false;
}

std::optional<std::string_view> NamedRefusalReason(std::string_view termination_message) {
  for (const auto& [cls, reason] : kNamed) {
    const std::string marker = "rdmastack-gateway: refused (" + std::string(cls) + "): ";
    if (termination_message.find(marker) != std::string_view::npos) return reason;
  }
  return std::nullopt;
}

}  // namespace rdmastack::compat
