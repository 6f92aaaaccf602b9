#pragma once
// The hub's certificates, made with OpenSSL: a CA (ECDSA P-256) and serving certificates it
// signs, plus the facts about a certificate that decide when to renew it. No I/O.

#include <chrono>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::agenthub {

struct KeyAndCertificate {
  std::string key_pem;
  std::string cert_pem;
};

// A self-signed CA certificate (CA:TRUE, keyCertSign) valid from an hour before `now`.
StatusOr<KeyAndCertificate> MakeCertificateAuthority(const std::string& common_name,
                                                     Clock::WallTime now,
                                                     std::chrono::seconds validity);

// A serving certificate for `hosts` (DNS names or IP literals; the first is also the CN) signed
// by `ca`, with a fresh key, valid from a minute before `now` (a tenth of `validity` when that
// is shorter).
StatusOr<KeyAndCertificate> IssueServingCertificate(const KeyAndCertificate& ca,
                                                    const std::vector<std::string>& hosts,
                                                    Clock::WallTime now,
                                                    std::chrono::seconds validity);

struct CertificateFacts {
  Clock::WallTime not_before;
  Clock::WallTime not_after;
  std::vector<std::string> hosts;  // subjectAltName DNS names and IPs, in certificate order
};

// The first certificate of a PEM bundle.
StatusOr<CertificateFacts> InspectCertificate(const std::string& cert_pem);

// OK when `pair.key_pem` is the private key of the first certificate in `pair.cert_pem`; the
// error names what is wrong.
Status CheckKeyAndCertificate(const KeyAndCertificate& pair);

// True when the first certificate of `cert_pem` carries a signature by the first of `ca_pem`.
bool SignedBy(const std::string& cert_pem, const std::string& ca_pem);

// Renew once `renew_fraction` of the validity has passed, or when the names differ from `hosts`
// (cert-manager renews at 2/3 of the lifetime by default).
bool NeedsRenewal(const CertificateFacts& cert, const std::vector<std::string>& hosts,
                  Clock::WallTime now, double renew_fraction);

}  // namespace rdmastack::agenthub
