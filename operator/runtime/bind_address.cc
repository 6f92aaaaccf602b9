#include "operator/runtime/bind_address.h"

#include <charconv>

namespace rdmastack::runtime {

StatusOr<BindAddress> ParseBindAddress(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("bind address \"" + text + "\" needs a port, e.g. \":8080\"");
  }
  BindAddress out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  if (out.host.empty()) out.host = "0.0.0.0";
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535 || port.empty()) {
    return InvalidArgumentError("bind address \"" + text + "\": port must be 0..65535");
  }
  out.port = static_cast<uint16_t>(value);
  return out;
}

}  // namespace rdmastack::runtime
