#pragma once
// The gateway launcher's refusals that the operator reports under a reason of their own rather
// than as a crash loop: the launcher writes one line, "rdmastack-gateway: refused (<class>):
// <message>", which becomes the gateway container's termination message; the pool's failingNodes
// and its Degraded condition then carry the reason, and troubleshooting.md has a row for each.

#include <optional>
#include <string_view>

namespace rdmastack::compat {

// A root whose file system keeps no user extended attributes, with backend.posix.metadata Xattr.
inline constexpr std::string_view kBackendMetadataRefusalClass = "backend-metadata";
inline constexpr std::string_view kReasonBackendNoUserXattr = "BackendNoUserXattr";

// LibraryDigestMismatch or BackendNoUserXattr when `termination_message` holds the launcher's
// refusal of that class; nullopt for any other message.
std::optional<std::string_view> NamedRefusalReason(std::string_view termination_message);

// Whether `reason` is one of those (a failingNodes reason that names the pool's Degraded too).
bool IsNamedRefusalReason(std::string_view reason);

}  // namespace rdmastack::compat
