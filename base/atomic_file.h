#pragma once
// Whole-file replacement that a concurrent reader never sees half done, through HostDir
// (host_dir.h): the content goes to a temporary file of a name unique to this writer in the same
// directory, is fsynced, and is renamed over the target; the directory is then fsynced. Used for
// files other processes read while we rewrite them: the gateway's cufile.json, the client data
// plane's configuration and state.

#include <string>

#include "base/status.h"

namespace rdmastack {

// `path` is absolute (a relative one is taken from the working directory); its directory is
// opened without following links (HostDir::Open) and must exist. PermissionDenied when the
// directory cannot be opened or written (read-only, missing), Unavailable when writing or renaming
// fails; the message names `path`. The file gets mode 0644.
Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace rdmastack
