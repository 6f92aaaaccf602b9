#include "operator/k8s/pem.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <string>

#include "operator/k8s/openssl_error.h"

namespace rdmastack::k8s {

OpenSslPtr<BIO> PemBio(std::string_view pem) {
  return OpenSslPtr<BIO>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

OpenSslPtr<X509> ParsePemCertificate(std::string_view pem) {
  return OpenSslPtr<X509>(PEM_read_bio_X509(PemBio(pem).get(), nullptr, nullptr, nullptr));
}

OpenSslPtr<EVP_PKEY> ParsePemPrivateKey(std::string_view pem) {
  return OpenSslPtr<EVP_PKEY>(
      PEM_read_bio_PrivateKey(PemBio(pem).get(), nullptr, nullptr, nullptr));
}

Status CheckPemKeyPair(std::string_view cert_pem, std::string_view key_pem,
                       std::string_view cert_name, std::string_view key_name) {
  const OpenSslPtr<X509> cert = ParsePemCertificate(cert_pem);
  if (!cert)
    return InvalidArgumentError(std::string(cert_name) +
                                " is not a PEM certificate: " + OpenSslError());
  const OpenSslPtr<EVP_PKEY> key = ParsePemPrivateKey(key_pem);
  if (!key)
    return InvalidArgumentError(std::string(key_name) +
                                " is not a PEM private key: " + OpenSslError());
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgumentError(std::string(key_name) + " does not belong to the certificate in " +
                                std::string(cert_name));
  }
  return OkStatus();
}

}  // namespace rdmastack::k8s
