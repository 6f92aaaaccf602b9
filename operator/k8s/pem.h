#pragma once
// PEM certificates and keys through OpenSSL, for everything that loads or checks a TLS pair (the
// metrics and webhook serving certificate, the agent hub's, the gateway's S3 certificate).

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string_view>

#include "base/status.h"

namespace rdmastack::k8s {

struct OpenSslFree {
  void operator()(BIO* p) const { BIO_free_all(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
};
template <typename T>
using OpenSslPtr = std::unique_ptr<T, OpenSslFree>;

// A read-only memory BIO over `pem` (which must outlive it).
OpenSslPtr<BIO> PemBio(std::string_view pem);
// The first certificate of a PEM chain; null when there is none.
OpenSslPtr<X509> ParsePemCertificate(std::string_view pem);
// An unencrypted PEM private key; null when there is none.
OpenSslPtr<EVP_PKEY> ParsePemPrivateKey(std::string_view pem);

// OK when `key_pem` is the private key of the first certificate in `cert_pem`. `cert_name` and
// `key_name` (file paths or Secret keys) name them in the error: "<key> does not belong to the
// certificate in <cert>", "<cert> is not a PEM certificate: ...".
Status CheckPemKeyPair(std::string_view cert_pem, std::string_view key_pem,
                       std::string_view cert_name, std::string_view key_name);

}  // namespace rdmastack::k8s
