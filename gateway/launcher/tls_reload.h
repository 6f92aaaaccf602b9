#pragma once
// HTTPS on the S3 port with certificates that rotate. versitygw serves --cert/--key (VGW_CERT,
// VGW_KEY) and reloads them on SIGHUP, but nothing in the pod would send it one: a Secret volume
// changes under a running process silently. So with TLS the launcher does not replace itself with
// the gateway; it stays as its parent, forwards the kubelet's signals, exits with the gateway's
// status, and sends SIGHUP when the certificate or key files change (and the new pair is usable,
// so a half-written rotation never makes the gateway drop its working pair).

#include <chrono>
#include <string>

#include "base/status.h"
#include "gateway/launcher/launcher.h"

namespace rdmastack::gateway {

struct TlsFiles {
  std::string cert;  // PEM chain, leaf first
  std::string key;   // PEM private key of the leaf
};

// The pair parses and the key belongs to the certificate. Yields both files' contents (to notice
// a change) and the leaf's subject and expiry for the log.
struct TlsPairInfo {
  std::string cert_pem;
  std::string key_pem;
  std::string summary;  // "subject CN=..., serial 0x..., expires 2027-01-01T00:00:00Z"
};
StatusOr<TlsPairInfo> CheckTlsFiles(const TlsFiles& files);

// Runs the gateway as a child and returns its exit code (128 + signal when a signal ended it).
// Checks the files every `interval`.
int SuperviseWithTlsReload(const ExecPlan& plan, const Environment& env, const TlsFiles& files,
                           std::chrono::milliseconds interval);

}  // namespace rdmastack::gateway
