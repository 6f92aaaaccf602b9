#pragma once
// intstr.IntOrString: fields that take either a count or a string (a percentage such as "25%",
// a quantity such as "192Mi", or a keyword such as "Auto").

#include <cstdint>
#include <string>
#include <variant>

#include "base/status.h"

namespace rdmastack::crd {

struct IntOrString {
  std::variant<int64_t, std::string> value;

  static IntOrString Int(int64_t v) { return IntOrString{v}; }
  static IntOrString Str(std::string s) { return IntOrString{std::move(s)}; }
  bool is_int() const { return std::holds_alternative<int64_t>(value); }
  int64_t int_value() const { return is_int() ? std::get<int64_t>(value) : 0; }
  const std::string& str_value() const;
  // The value as written: "3", "25%", "192Mi".
  std::string ToString() const;

  friend bool operator==(const IntOrString&, const IntOrString&) = default;
};

// A count, or a percentage of total ("25%"), like intstr.GetScaledValueFromIntOrPercent:
// percentages round up when round_up is set, down otherwise.
StatusOr<int64_t> ScaledValueFromIntOrPercent(const IntOrString& v, int64_t total, bool round_up);

// A byte count given as an integer or as a quantity string ("192Mi").
StatusOr<int64_t> BytesFromIntOrQuantity(const IntOrString& v);

}  // namespace rdmastack::crd
