#pragma once
// How versitygw's posix backend keeps object metadata (ETag, content type, user metadata, tags):
// in user extended attributes of the object files (its default), in a sidecar directory of its
// own (`posix --sidecar DIR`), or not at all (`posix --nometa`). versitygw refuses to start on a
// root without user xattrs with one log line ("xattr check failed"); the launcher checks first, so
// the refusal names the file system and the two ways out.

#include <string>
#include <string_view>

#include "base/host_dir.h"
#include "base/status.h"

namespace rdmastack::gateway {

enum class MetadataMode { kXattr, kSidecar, kNone };

// "xattr", "sidecar" or "none" (any case: the CRD spells them Xattr, Sidecar, None).
StatusOr<MetadataMode> ParseMetadataMode(std::string_view text);

// Sets, reads back and removes a user attribute on a scratch file in `root` (an unnamed
// O_TMPFILE where the file system has it, else a hidden name removed at once). FailedPrecondition
// starting with "BackendNoUserXattr: " (compat::kReasonBackendNoUserXattr) when the file system
// does not keep user attributes; Unavailable when the scratch file cannot be made at all.
Status CheckUserXattr(const HostDir& root);

// The sidecar directory must be apart from the root: not the root, not inside it (it would be
// served as a bucket), not holding it, and its path must not begin with the root's at all
// (versitygw compares the two as text, so "<root>.meta" is refused as inside the root). Both are
// absolute, normalised paths.
Status CheckSidecarApart(const std::string& root, const std::string& sidecar);

}  // namespace rdmastack::gateway
