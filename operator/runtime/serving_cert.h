#pragma once
// Where the metrics server's TLS identity comes from: a certificate directory (the layout
// controller-runtime's --metrics-cert-dir and cert-manager use), or a self-signed certificate
// generated in memory at start, as controller-runtime does when no directory is given.

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/runtime/http_server.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

// <dir>/tls.crt (chain, leaf first) and <dir>/tls.key. Errors name the file and what is wrong
// (unreadable, not PEM, key not matching the certificate).
StatusOr<TlsServingCredentials> LoadServingCredentials(const std::string& dir);

// A self-signed ECDSA P-256 certificate for `hosts` (DNS names or IP literals, placed in the
// subjectAltName), valid from an hour ago for `validity`. The key never leaves memory.
StatusOr<TlsServingCredentials> SelfSignedServingCredentials(
    const std::vector<std::string>& hosts,
    std::chrono::hours validity = std::chrono::hours(24 * 365));

// notAfter of the first certificate of a PEM bundle.
StatusOr<std::chrono::system_clock::time_point> CertificateNotAfter(const std::string& cert_pem);

// rdmastack_certificate_expiry_timestamp_seconds{certificate=<name>}, set from `cert_pem`'s
// notAfter (left alone when it does not parse). Called on every change of a serving identity.
void RecordCertificateExpiry(MetricsRegistry& metrics, const std::string& name,
                             const std::string& cert_pem);

// localhost, 127.0.0.1, ::1 and this machine's host name (the pod name in a cluster).
std::vector<std::string> DefaultSelfSignedHosts();

}  // namespace rdmastack::runtime
