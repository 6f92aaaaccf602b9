#include "operator/runtime/serving_cert.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <functional>
#include <memory>

#include "operator/k8s/config.h"
#include "operator/k8s/openssl_error.h"
#include "operator/k8s/pem.h"

namespace rdmastack::runtime {
namespace {

using BioPtr = k8s::OpenSslPtr<BIO>;
using X509Ptr = k8s::OpenSslPtr<X509>;
using KeyPtr = k8s::OpenSslPtr<EVP_PKEY>;
using BnPtr = k8s::OpenSslPtr<BIGNUM>;
using ExtPtr = k8s::OpenSslPtr<X509_EXTENSION>;

StatusOr<std::string> Pem(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || write(bio.get()) != 1) return InternalError("PEM encoding: " + k8s::OpenSslError());
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string SubjectAltNames(const std::vector<std::string>& hosts) {
  std::string out;
  for (const auto& host : hosts) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(host, ec);
    if (!out.empty()) out += ",";
    out += (ec ? "DNS:" : "IP:") + host;
  }
  return out;
}

}  // namespace

StatusOr<TlsServingCredentials> LoadServingCredentials(const std::string& dir) {
  const std::string cert_path = dir + "/tls.crt";
  const std::string key_path = dir + "/tls.key";
  TlsServingCredentials creds;
  RDMASTACK_ASSIGN_OR_RETURN(creds.cert_pem, k8s::ReadFileToString(cert_path));
  RDMASTACK_ASSIGN_OR_RETURN(creds.key_pem, k8s::ReadFileToString(key_path));
  RDMASTACK_RETURN_IF_ERROR(
      k8s::CheckPemKeyPair(creds.cert_pem, creds.key_pem, cert_path, key_path));
  return creds;
}

StatusOr<TlsServingCredentials> SelfSignedServingCredentials(const std::vector<std::string>& hosts,
                                                             std::chrono::hours validity) {
  if (hosts.empty()) return InvalidArgumentError("a self-signed certificate needs a host name");
  KeyPtr key(EVP_EC_gen("P-256"));
  X509Ptr cert(X509_new());
  BnPtr serial(BN_new());
  if (!key || !cert || !serial) return InternalError("key generation: " + k8s::OpenSslError());
  const std::string cn = "rdmastack-operator-metrics";
  bool ok = X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
            BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
            BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) != nullptr &&
            // An hour of slack for clients whose clocks run behind.
            X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&
            X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                            std::chrono::duration_cast<std::chrono::seconds>(validity).count()) !=
                nullptr &&
            X509_set_pubkey(cert.get(), key.get()) == 1;
  X509_NAME* name = X509_get_subject_name(cert.get());
  ok = ok &&
       X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                  reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                  0) == 1 &&
       X509_set_issuer_name(cert.get(), name) == 1;
  if (!ok) return InternalError("building the certificate: " + k8s::OpenSslError());

  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::string san = SubjectAltNames(hosts);
  const std::pair<int, const char*> extensions[] = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_key_identifier, "hash"},
      {NID_subject_alt_name, san.c_str()},
  };
  for (const auto& [nid, value] : extensions) {
    ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
    if (!ext || X509_add_ext(cert.get(), ext.get(), -1) != 1) {
      return InvalidArgumentError(std::string("certificate extension ") + OBJ_nid2sn(nid) + "=" +
                                  value + ": " + k8s::OpenSslError());
    }
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return InternalError("signing the certificate: " + k8s::OpenSslError());
  }
  TlsServingCredentials creds;
  RDMASTACK_ASSIGN_OR_RETURN(creds.cert_pem,
                             Pem([&](BIO* bio) { return PEM_write_bio_X509(bio, cert.get()); }));
  RDMASTACK_ASSIGN_OR_RETURN(creds.key_pem, Pem([&](BIO* bio) {
                               return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0,
                                                               nullptr, nullptr);
                             }));
  return creds;
}

std::vector<std::string> DefaultSelfSignedHosts() {
  std::vector<std::string> hosts = {"localhost", "127.0.0.1", "::1"};
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0' && hosts[0] != name) {
    hosts.emplace_back(name);
  }
  return hosts;
}

StatusOr<std::chrono::system_clock::time_point> CertificateNotAfter(const std::string& cert_pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())), &BIO_free);
  if (!bio) return InternalError("cannot allocate a BIO");
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (!cert) return InvalidArgumentError("no PEM certificate");
  struct tm t = {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &t) != 1) {
    return InvalidArgumentError("the certificate's notAfter does not parse");
  }
  return std::chrono::system_clock::from_time_t(timegm(&t));
}

void RecordCertificateExpiry(MetricsRegistry& metrics, const std::string& name,
                             const std::string& cert_pem) {
  auto not_after = CertificateNotAfter(cert_pem);
  if (!not_after.ok()) return;
  metrics
      .GaugeFamily("rdmastack_certificate_expiry_timestamp_seconds",
                   "When a serving certificate this process holds expires (notAfter), in Unix "
                   "seconds: metrics, webhook, agenthub.",
                   {"certificate"})
      .With({name})
      .Set(std::chrono::duration<double>(not_after->time_since_epoch()).count());
}

}  // namespace rdmastack::runtime
