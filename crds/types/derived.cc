// Values the schema leaves unset and the operator derives (types.h, "derived values").
#include <charconv>
#include <string>

#include "crds/types/types.h"

namespace rdmastack::crd {
namespace {

constexpr int32_t kS3PortBase = 7070;     // 7071 for 1.x, 7072 for 2.x (the seed's port map)
constexpr int32_t kRdmaPortBase = 19099;  // 19100 for 1.x, 19101 for 2.x

StatusOr<int32_t> PortOrDefault(const std::optional<int32_t>& port, int32_t base,
                                const GatewayPoolSpec& spec) {
  if (port) return *port;
  RDMASTACK_ASSIGN_OR_RETURN(int major, LibraryMajor(spec.server_library.version));
  return base + major;
}

}  // namespace

StatusOr<int> LibraryMajor(std::string_view version) {
  // Exactly four dot-separated decimal parts; the first is the major.
  int parts = 0;
  int major = -1;
  std::string_view rest = version;
  while (true) {
    size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || value < 0) {
      break;
    }
    if (parts == 0) major = value;
    ++parts;
    if (dot == std::string_view::npos) {
      if (parts == 4) return major;
      break;
    }
    rest.remove_prefix(dot + 1);
  }
  return InvalidArgumentError("library version \"" + std::string(version) +
                              "\" is not a four-part version such as 1.2.0.68");
}

StatusOr<int32_t> EffectiveS3Port(const GatewayPoolSpec& spec) {
  return PortOrDefault(spec.s3.port, kS3PortBase, spec);
}

StatusOr<int32_t> EffectiveRdmaPort(const GatewayPoolSpec& spec) {
  return PortOrDefault(spec.rdma.port, kRdmaPortBase, spec);
}

}  // namespace rdmastack::crd
