#pragma once
// TLS of a simulated node's kubelet endpoint: serves the node's certificate (made by
// scripts/cluster.sh from the cluster CA) and accepts a client only with a certificate that the
// cluster CA signed for client authentication. Which client (the API server's kubelet client
// certificate) is checked per request, by PeerCommonName.

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace rdmastack::sim {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// InvalidArgument naming the file when a certificate, key or CA does not load or the key does not
// match the certificate.
StatusOr<SslCtxPtr> NewKubeletTlsContext(const std::string& cert_file, const std::string& key_file,
                                         const std::string& client_ca_file);

// The subject CN of the verified client certificate; "" when there is none.
std::string PeerCommonName(SSL* ssl);

}  // namespace rdmastack::sim
