#pragma once
// Source-tree scans for the tests that hold a class of call to one primitive (host_write_test:
// writes through base/host_dir.h; json_parse_source_test: JSON parses through base/json_parse.h).

#include <regex>
#include <string>
#include <vector>

namespace rdmastack::testing {

// The code of a source without comments, string literals and #include lines (messages and
// comments mention the very calls a scan looks for).
std::string CodeOnly(const std::string& text);

// "file:line: match" for each line of `code` (already CodeOnly) that `forbidden` matches.
std::vector<std::string> Findings(const std::string& file, const std::string& code,
                                  const std::regex& forbidden);

struct ScanResult {
  size_t scanned = 0;                 // product sources read
  std::vector<std::string> findings;  // Findings over all of them
};

// Every product source (.cc/.h, not a test, fuzzer or test helper) under `dirs` (relative to
// the source tree), except the files named in `allowed`.
ScanResult ScanProductSources(const std::vector<std::string>& dirs,
                              const std::vector<std::string>& allowed, const std::regex& forbidden);

}  // namespace rdmastack::testing
