#pragma once
// Whole-file replacement that a concurrent reader never sees half done: the content goes to a
// temporary file in the same directory, which is then renamed over the target (rename(2) is
// atomic within one file system). Used for files other processes read while we rewrite them: the
// gateway's cufile.json, the client data plane's configuration and state.

#include <string>

#include "base/status.h"

namespace rdmastack {

// PermissionDenied when the temporary file cannot be created (a read-only or missing directory),
// Unavailable when writing or renaming fails; the message names `path`. The file gets mode 0644.
Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace rdmastack
