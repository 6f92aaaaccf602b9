#pragma once
// The Client over a Transport. NewRestClient() (client.h) is the usual entry; tests hand in a
// transport pointed at a local server.

#include <memory>

#include "operator/k8s/client.h"
#include "operator/k8s/transport.h"

namespace rdmastack::k8s {

ClientPtr NewRestClientOverTransport(std::unique_ptr<Transport> transport);

}  // namespace rdmastack::k8s
