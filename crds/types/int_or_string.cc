#include "crds/types/int_or_string.h"

#include <charconv>
#include <limits>

#include "base/quantity.h"

namespace rdmastack::crd {

const std::string& IntOrString::str_value() const {
  static const std::string kEmpty;
  return is_int() ? kEmpty : std::get<std::string>(value);
}

std::string IntOrString::ToString() const {
  return is_int() ? std::to_string(int_value()) : str_value();
}

StatusOr<int64_t> ScaledValueFromIntOrPercent(const IntOrString& v, int64_t total, bool round_up) {
  if (v.is_int()) return v.int_value();
  const std::string& s = v.str_value();
  if (s.size() < 2 || s.back() != '%') {
    return InvalidArgumentError("\"" + s + "\" is neither a count nor a percentage such as 25%");
  }
  int64_t percent = 0;
  const char* end = s.data() + s.size() - 1;
  auto [ptr, ec] = std::from_chars(s.data(), end, percent);
  if (ec != std::errc() || ptr != end || percent < 0) {
    return InvalidArgumentError("\"" + s + "\" is not a whole, non-negative percentage");
  }
  if (percent > 100) return InvalidArgumentError("\"" + s + "\" is more than 100%");
  if (total < 0 || total > std::numeric_limits<int64_t>::max() / 100) {
    return OutOfRangeError("total " + std::to_string(total) + " is out of range");
  }
  int64_t product = percent * total;
  return round_up ? (product + 99) / 100 : product / 100;
}

StatusOr<int64_t> BytesFromIntOrQuantity(const IntOrString& v) {
  if (v.is_int()) return v.int_value();
  return ParseQuantity(v.str_value());
}

}  // namespace rdmastack::crd
