#include "tests/harness/node-runtime/kubelet_tls.h"

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "operator/k8s/openssl_error.h"

namespace rdmastack::sim {

StatusOr<SslCtxPtr> NewKubeletTlsContext(const std::string& cert_file, const std::string& key_file,
                                         const std::string& client_ca_file) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return InternalError("SSL_CTX_new: " + k8s::OpenSslError());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return InvalidArgumentError("kubelet serving certificate " + cert_file + ": " +
                                k8s::OpenSslError());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return InvalidArgumentError("kubelet serving key " + key_file + ": " + k8s::OpenSslError());
  }
  if (SSL_CTX_load_verify_locations(ctx.get(), client_ca_file.c_str(), nullptr) != 1) {
    return InvalidArgumentError("kubelet client CA " + client_ca_file + ": " + k8s::OpenSslError());
  }
  // Tell clients which CA to pick a certificate for (Go's client sends one only if it matches).
  if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_file.c_str())) {
    SSL_CTX_set_client_CA_list(ctx.get(), names);
  }
  // No certificate, or one the CA did not sign for client use: the handshake fails.
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  return ctx;
}

std::string PeerCommonName(SSL* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return "";
  std::string cn;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(peer);
    const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (at >= 0) {
      const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
      cn.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                static_cast<size_t>(ASN1_STRING_length(data)));
    }
  }
  X509_free(peer);
  return cn;
}

}  // namespace rdmastack::sim
