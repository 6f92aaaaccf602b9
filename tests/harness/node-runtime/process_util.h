#pragma once
// Small process helpers the shim and the runtime share.

#include <string>

namespace rdmastack::sim {

// A wait status as a container exit code: the exit status, or 128 + N when signal N ended it.
int ExitCodeOf(int wait_status);
// Default dispositions and nothing blocked, whatever the caller's threads had blocked.
void ResetSignals();
// The whole content of a small file; "" when it cannot be read (a file not written yet reads as
// empty, which is what every caller waits on or tolerates).
std::string ReadSmallFile(const std::string& path);
// Writes `content` to `path` through a temporary file and rename (readers never see half).
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace rdmastack::sim
