#include "base/quantity.h"

#include <array>
#include <charconv>
#include <limits>
#include <string>

namespace rdmastack {
namespace {

using U128 = unsigned __int128;

constexpr int kMaxMantissaDigits = 19;  // below 10^19 the mantissa fits 64 bits
constexpr int kMaxDecimalScale = 38;    // 10^38 still fits 128 bits
constexpr U128 kInt64Max = static_cast<U128>(std::numeric_limits<int64_t>::max());

struct Suffix {
  std::string_view text;
  int decimal_exponent;
  int binary_exponent;
};

constexpr std::array<Suffix, 15> kSuffixes{{{"Ki", 0, 10},
                                            {"Mi", 0, 20},
                                            {"Gi", 0, 30},
                                            {"Ti", 0, 40},
                                            {"Pi", 0, 50},
                                            {"Ei", 0, 60},
                                            {"n", -9, 0},
                                            {"u", -6, 0},
                                            {"m", -3, 0},
                                            {"", 0, 0},
                                            {"k", 3, 0},
                                            {"M", 6, 0},
                                            {"G", 9, 0},
                                            {"T", 12, 0},
                                            {"P", 15, 0}}};

Status Invalid(std::string_view text, std::string_view why) {
  return InvalidArgumentError("quantity \"" + std::string(text) + "\": " + std::string(why));
}

Status TooLarge(std::string_view text) {
  return OutOfRangeError("quantity \"" + std::string(text) + "\" does not fit a 64-bit integer");
}

U128 Pow10(int n) {
  U128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Splits the suffix off; returns false when it is not one Kubernetes knows.
bool ParseSuffix(std::string_view suffix, int* decimal_exponent, int* binary_exponent) {
  for (const Suffix& s : kSuffixes) {
    if (s.text == suffix) {
      *decimal_exponent = s.decimal_exponent;
      *binary_exponent = s.binary_exponent;
      return true;
    }
  }
  *binary_exponent = 0;
  if (suffix == "E") {  // exa; an exponent marker needs digits after it
    *decimal_exponent = 18;
    return true;
  }
  if (suffix.empty() || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  std::string_view digits = suffix.substr(1);
  int sign = 1;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    sign = digits[0] == '-' ? -1 : 1;
    digits.remove_prefix(1);
  }
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return false;
  *decimal_exponent = sign * value;
  return true;
}

}  // namespace

StatusOr<int64_t> ParseQuantity(std::string_view text) {
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  // Mantissa: digits, optionally "." and more digits; leading zeros and trailing fraction zeros
  // carry no value and are dropped so that long but exact inputs still parse.
  U128 mantissa = 0;
  int significant = 0;
  int scale = 0;  // number of fraction digits kept
  bool any_digit = false;
  bool in_fraction = false;
  int pending_zeros = 0;  // fraction zeros not yet known to be significant
  size_t i = 0;
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '.') {
      if (in_fraction) return Invalid(text, "more than one decimal point");
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    int digit = c - '0';
    if (in_fraction && digit == 0) {
      ++pending_zeros;
      continue;
    }
    for (; pending_zeros > 0; --pending_zeros) {
      mantissa *= 10;
      ++scale;
      if (significant > 0) ++significant;
    }
    if (mantissa == 0 && digit == 0) continue;  // leading zero of the integer part
    mantissa = mantissa * 10 + static_cast<U128>(digit);
    ++significant;
    if (in_fraction) ++scale;
    if (significant > kMaxMantissaDigits) return Invalid(text, "too many significant digits");
  }
  if (!any_digit) return Invalid(text, "expected a number such as 192Mi or 1.5Gi");
  int decimal_exponent = 0;
  int binary_exponent = 0;
  std::string_view suffix = rest.substr(i);
  if (!ParseSuffix(suffix, &decimal_exponent, &binary_exponent)) {
    return Invalid(text, "unknown suffix \"" + std::string(suffix) +
                             "\" (use Ki Mi Gi Ti Pi Ei, k M G T P E, m u n, or e<exponent>)");
  }
  int64_t net_exponent = static_cast<int64_t>(decimal_exponent) - scale;
  U128 magnitude = mantissa;
  if (net_exponent >= 0) {
    for (int64_t k = 0; k < net_exponent && magnitude != 0; ++k) {
      magnitude *= 10;
      if (magnitude > kInt64Max) return TooLarge(text);
    }
    for (int k = 0; k < binary_exponent && magnitude != 0; ++k) {
      magnitude *= 2;
      if (magnitude > kInt64Max) return TooLarge(text);
    }
  } else {
    // value = mantissa * 2^b / 10^d, rounded up. The mantissa is below 2^64 and b <= 60, so the
    // product stays below 2^124.
    int64_t d = -net_exponent;
    if (d > kMaxDecimalScale) {
      magnitude = mantissa == 0 ? 0 : 1;  // a positive amount smaller than one rounds up to 1
    } else {
      U128 numerator = mantissa << binary_exponent;
      U128 divisor = Pow10(static_cast<int>(d));
      magnitude = numerator / divisor + (numerator % divisor != 0 ? 1 : 0);
      if (magnitude > kInt64Max) return TooLarge(text);
    }
  }
  if (magnitude > kInt64Max) return TooLarge(text);
  auto value = static_cast<int64_t>(magnitude);
  return negative ? -value : value;
}

StatusOr<int64_t> ParseByteQuantity(std::string_view text) {
  RDMASTACK_ASSIGN_OR_RETURN(int64_t bytes, ParseQuantity(text));
  if (bytes < 0)
    return InvalidArgumentError("a size in bytes must not be negative, got \"" + std::string(text) +
                                "\"");
  return bytes;
}

}  // namespace rdmastack
