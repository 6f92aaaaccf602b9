#include "operator/k8s/openssl_error.h"

#include <openssl/err.h>

namespace rdmastack::k8s {

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

}  // namespace rdmastack::k8s
