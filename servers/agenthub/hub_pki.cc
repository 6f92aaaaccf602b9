#include "servers/agenthub/hub_pki.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>

#include "operator/k8s/openssl_error.h"
#include "operator/k8s/pem.h"

namespace rdmastack::agenthub {
namespace {

template <typename T>
using Owned = k8s::OpenSslPtr<T>;

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

StatusOr<std::string> ToPem(X509* cert, EVP_PKEY* key) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  const int ok = cert != nullptr ? PEM_write_bio_X509(bio.get(), cert)
                                 : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0,
                                                            nullptr, nullptr);
  if (ok != 1) return InternalError("PEM encoding: " + k8s::OpenSslError());
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

Clock::WallTime FromAsn1Time(const ASN1_TIME* t) {
  struct tm tm = {};
  ASN1_TIME_to_tm(t, &tm);
  return Clock::WallTime(std::chrono::seconds(timegm(&tm)));
}

// The parts both kinds of certificate share: version, serial, validity, subject, issuer, key.
Status FillCertificate(X509* cert, EVP_PKEY* key, const std::string& cn, X509* issuer,
                       Clock::WallTime not_before, Clock::WallTime not_after) {
  Owned<BIGNUM> serial(BN_new());
  const auto secs = [](Clock::WallTime t) {
    return static_cast<time_t>(
        std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  };
  X509_NAME* name = X509_get_subject_name(cert);
  const bool ok =
      serial && X509_set_version(cert, X509_VERSION_3) == 1 &&
      BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) != nullptr &&
      ASN1_TIME_set(X509_getm_notBefore(cert), secs(not_before)) != nullptr &&
      ASN1_TIME_set(X509_getm_notAfter(cert), secs(not_after)) != nullptr &&
      X509_set_pubkey(cert, key) == 1 &&
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) == 1 &&
      X509_set_issuer_name(cert, issuer != nullptr ? X509_get_subject_name(issuer) : name) == 1;
  return ok ? OkStatus() : InternalError("building the certificate: " + k8s::OpenSslError());
}

Status AddExtensions(X509* cert, X509* issuer,
                     const std::vector<std::pair<int, std::string>>& extensions) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
      return InvalidArgumentError(std::string("certificate extension ") + OBJ_nid2sn(nid) + "=" +
                                  value + ": " + k8s::OpenSslError());
    }
  }
  return OkStatus();
}

StatusOr<KeyAndCertificate> Finish(X509* cert, EVP_PKEY* signer, EVP_PKEY* key) {
  if (X509_sign(cert, signer, EVP_sha256()) == 0) {
    return InternalError("signing the certificate: " + k8s::OpenSslError());
  }
  KeyAndCertificate out;
  RDMASTACK_ASSIGN_OR_RETURN(out.cert_pem, ToPem(cert, nullptr));
  RDMASTACK_ASSIGN_OR_RETURN(out.key_pem, ToPem(nullptr, key));
  return out;
}

}  // namespace

StatusOr<KeyAndCertificate> MakeCertificateAuthority(const std::string& common_name,
                                                     Clock::WallTime now,
                                                     std::chrono::seconds validity) {
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  Owned<X509> cert(X509_new());
  if (!key || !cert) return InternalError("key generation: " + k8s::OpenSslError());
  RDMASTACK_RETURN_IF_ERROR(FillCertificate(cert.get(), key.get(), common_name, nullptr,
                                            now - std::chrono::hours(1), now + validity));
  RDMASTACK_RETURN_IF_ERROR(AddExtensions(cert.get(), nullptr,
                                          {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                           {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                           {NID_subject_key_identifier, "hash"}}));
  return Finish(cert.get(), key.get(), key.get());
}

StatusOr<KeyAndCertificate> IssueServingCertificate(const KeyAndCertificate& ca,
                                                    const std::vector<std::string>& hosts,
                                                    Clock::WallTime now,
                                                    std::chrono::seconds validity) {
  if (hosts.empty()) return InvalidArgumentError("a serving certificate needs at least one name");
  Owned<X509> ca_cert = k8s::ParsePemCertificate(ca.cert_pem);
  Owned<EVP_PKEY> ca_key = k8s::ParsePemPrivateKey(ca.key_pem);
  if (!ca_cert || !ca_key) return InvalidArgumentError("the CA is not PEM: " + k8s::OpenSslError());
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  Owned<X509> cert(X509_new());
  if (!key || !cert) return InternalError("key generation: " + k8s::OpenSslError());
  // Slack for agents whose clocks run behind: a minute, or a tenth of a short validity (tests use
  // seconds) so that renewal at a fraction of the lifetime stays meaningful.
  const std::chrono::seconds backdate =
      std::min<std::chrono::seconds>(std::chrono::minutes(1), validity / 10);
  RDMASTACK_RETURN_IF_ERROR(FillCertificate(cert.get(), key.get(), hosts.front(), ca_cert.get(),
                                            now - backdate, now + validity));
  std::string san;
  for (const auto& host : hosts) {
    san += (san.empty() ? "" : ",") + std::string(IsIpLiteral(host) ? "IP:" : "DNS:") + host;
  }
  RDMASTACK_RETURN_IF_ERROR(AddExtensions(cert.get(), ca_cert.get(),
                                          {{NID_basic_constraints, "critical,CA:FALSE"},
                                           {NID_key_usage, "critical,digitalSignature"},
                                           {NID_ext_key_usage, "serverAuth"},
                                           {NID_subject_key_identifier, "hash"},
                                           {NID_authority_key_identifier, "keyid"},
                                           {NID_subject_alt_name, san}}));
  return Finish(cert.get(), ca_key.get(), key.get());
}

StatusOr<CertificateFacts> InspectCertificate(const std::string& cert_pem) {
  Owned<X509> cert = k8s::ParsePemCertificate(cert_pem);
  if (!cert) return InvalidArgumentError("not a PEM certificate: " + k8s::OpenSslError());
  CertificateFacts facts;
  facts.not_before = FromAsn1Time(X509_get0_notBefore(cert.get()));
  facts.not_after = FromAsn1Time(X509_get0_notAfter(cert.get()));
  Owned<GENERAL_NAMES> names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    if (name->type == GEN_DNS) {
      const ASN1_STRING* s = name->d.dNSName;
      facts.hosts.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                               ASN1_STRING_length(s));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      const int family = ASN1_STRING_length(ip) == 4 ? AF_INET : AF_INET6;
      if (inet_ntop(family, ASN1_STRING_get0_data(ip), text, sizeof(text)) != nullptr) {
        facts.hosts.emplace_back(text);
      }
    }
  }
  return facts;
}

Status CheckKeyAndCertificate(const KeyAndCertificate& pair) {
  return k8s::CheckPemKeyPair(pair.cert_pem, pair.key_pem, "tls.crt", "tls.key");
}

bool SignedBy(const std::string& cert_pem, const std::string& ca_pem) {
  Owned<X509> cert = k8s::ParsePemCertificate(cert_pem);
  Owned<X509> ca = k8s::ParsePemCertificate(ca_pem);
  Owned<EVP_PKEY> ca_public(ca ? X509_get_pubkey(ca.get()) : nullptr);
  const bool ok = cert && ca_public && X509_verify(cert.get(), ca_public.get()) == 1;
  ERR_clear_error();
  return ok;
}

bool NeedsRenewal(const CertificateFacts& cert, const std::vector<std::string>& hosts,
                  Clock::WallTime now, double renew_fraction) {
  std::vector<std::string> have = cert.hosts, want = hosts;
  std::sort(have.begin(), have.end());
  std::sort(want.begin(), want.end());
  if (have != want) return true;
  const auto lifetime = cert.not_after - cert.not_before;
  const auto renew_at = cert.not_before + std::chrono::duration_cast<Clock::WallTime::duration>(
                                              lifetime * renew_fraction);
  return now >= renew_at;
}

}  // namespace rdmastack::agenthub
