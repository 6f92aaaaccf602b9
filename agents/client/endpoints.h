#pragma once
// The pool's S3 endpoints as the operator publishes them to the client data plane: a JSON file in
// a ConfigMap, which the kubelet replaces through an atomic `..data` symlink swap, so every read
// sees one whole version.
//
//   {"pool":"ns/name","region":"us-east-1","scheme":"http",
//    "endpoints":[{"node":"stg-node-0","address":"198.18.0.10","s3Port":7071,
//                  "libraryVersion":"1.2.0.68"}]}
// An https pool (s3.tlsSecret) adds "caBundle": the PEM CA the gateways' certificates chain to.
// A pool whose status names the networks its gateways serve on adds
//    "networks":[{"rail":"a","cidr":"10.10.0.0/16"}]   (rail absent without spec.rdma.rails)

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::client {

struct PoolEndpoint {
  std::string node;
  std::string address;
  int s3_port = 0;
  std::string library_version;
  std::string rail;  // a multi-rail pool's rail; "" otherwise
};

struct PoolEndpoints {
  std::string pool;  // ns/name
  std::string region = "us-east-1";
  std::string scheme = "http";  // http | https
  std::string ca_bundle;        // https: PEM; "" = the system trust store
  std::vector<PoolEndpoint> endpoints;
  // The networks the gateways serve on; empty when the operator published none.
  std::vector<rails::RailNetwork> networks;

  // "http://198.18.0.10:7071", in file order (IPv6 addresses in brackets).
  std::vector<std::string> Urls() const;
};

// The endpoints on `rails` (and those of no rail); all of them when `rails` is empty or none is
// on them, so a client whose NICs are on no named rail still reaches the pool.
std::vector<PoolEndpoint> EndpointsOnRails(const std::vector<PoolEndpoint>& endpoints,
                                           const std::set<std::string>& rails);

// InvalidArgument naming the first field that is wrong. Unknown keys are ignored, so the operator
// can add some without breaking older clients.
StatusOr<PoolEndpoints> ParseEndpointsJson(std::string_view text);
// NotFound when the file is missing; otherwise as ParseEndpointsJson, prefixed with the path.
StatusOr<PoolEndpoints> ReadEndpointsFile(const std::string& path);

}  // namespace rdmastack::client
