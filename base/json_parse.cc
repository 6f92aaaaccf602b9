#include "base/json_parse.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <system_error>

namespace rdmastack {

namespace {

bool HasFractionOrExponent(std::string_view text) {
  return text.find_first_of(".eE") != std::string_view::npos;
}

// An integer's text in the narrowest type RapidJSON would give it; nullopt when it overflows 64
// bits (then, as in RapidJSON, it is a double).
std::optional<JsonNumber> ReadInteger(std::string_view text) {
  const char* end = text.data() + text.size();
  if (text.front() == '-') {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    if (v >= std::numeric_limits<int32_t>::min()) return JsonNumber(static_cast<int32_t>(v));
    return JsonNumber(v);
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if (v <= std::numeric_limits<uint32_t>::max()) return JsonNumber(static_cast<uint32_t>(v));
  return JsonNumber(v);
}

// The power of ten of the number's first nonzero digit ("0.05" -> -2, "12e3" -> 4): whether a
// number out of a double's range is too large or too small. The exponent saturates, so an
// exponent of any length decides right.
int64_t DecimalOrder(std::string_view text) {
  if (text.front() == '-') text.remove_prefix(1);
  int64_t exponent = 0;
  const size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view digits = text.substr(e + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
      digits.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec == std::errc::result_out_of_range) exponent = std::numeric_limits<int32_t>::max();
    exponent = std::min<int64_t>(exponent, std::numeric_limits<int32_t>::max());
    if (negative) exponent = -exponent;
    text = text.substr(0, e);
  }
  const size_t point = std::min(text.find('.'), text.size());
  const size_t first = text.find_first_of("123456789");
  if (first == std::string_view::npos) return std::numeric_limits<int32_t>::min();  // zero
  const int64_t order = first < point ? static_cast<int64_t>(point - first) - 1
                                      : -static_cast<int64_t>(first - point);
  return order + exponent;
}

}  // namespace

std::optional<JsonNumber> ReadJsonNumber(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (!HasFractionOrExponent(text)) {
    if (auto integer = ReadInteger(text)) return integer;
  }
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ptr != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    if (DecimalOrder(text) >= 0) return std::nullopt;     // beyond the largest double
    return JsonNumber(text.front() == '-' ? -0.0 : 0.0);  // below the smallest: zero
  }
  if (ec != std::errc()) return std::nullopt;
  return JsonNumber(d);
}

std::string DescribeParseError(const rapidjson::ParseResult& result) {
  return "invalid JSON at byte " + std::to_string(result.Offset()) + ": " +
         rapidjson::GetParseError_En(result.Code());
}

Status ParseJsonDocument(rapidjson::Document& doc, std::string_view text) {
  rapidjson::MemoryStream memory(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(memory);
  return ParseJsonInto<rapidjson::kParseDefaultFlags>(doc, stream);
}

}  // namespace rdmastack
