#pragma once
// Key-value writes for RapidJSON SAX writers (Writer, PrettyWriter), for code that streams JSON
// documents of its own (reports, plugin output) rather than building a k8s::JsonObject; and
// Write, which writes a struct described by a field table (base/field_table.h) from its table.

#include <rapidjson/rapidjson.h>

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "base/field_table.h"

namespace rdmastack::json {

template <typename Writer>
void Str(Writer& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

template <typename Writer>
void Int(Writer& w, const char* key, int64_t value) {
  w.Key(key);
  w.Int64(value);
}

template <typename Writer>
void Bool(Writer& w, const char* key, bool value) {
  w.Key(key);
  w.Bool(value);
}

template <typename Writer>
void Strings(Writer& w, const char* key, const std::vector<std::string>& values) {
  w.Key(key);
  w.StartArray();
  for (const std::string& v : values)
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  w.EndArray();
}

// An enum is written as the string its JsonName (found by ADL beside the enum) gives.
template <typename E>
concept JsonNamed = std::is_enum_v<E> && requires(E e) {
  { JsonName(e) } -> std::convertible_to<std::string_view>;
};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Every written field of a described struct, in table order, empty values included (the
// agent's report keeps a fixed shape); strings, booleans, integers, named enums, lists and
// described structs below it.
template <typename Writer, typename T>
void Write(Writer& w, const T& v);

template <typename Writer, fields::Described T>
void WriteFields(Writer& w, const T& v) {
  std::apply(
      [&](const auto&... field) {
        auto write_one = [&](const auto& f) {
          if (!f.written) return;
          w.Key(f.name.data(), static_cast<rapidjson::SizeType>(f.name.size()));
          Write(w, v.*(f.member));
        };
        (write_one(field), ...);
        (void)write_one;
      },
      fields::FieldsOf<T>());
}

template <typename Writer, typename T>
void Write(Writer& w, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  } else if constexpr (std::is_same_v<T, bool>) {
    w.Bool(v);
  } else if constexpr (std::is_unsigned_v<T>) {
    w.Uint64(v);  // a counter of 64 bits would turn negative as an Int64
  } else if constexpr (std::is_integral_v<T>) {
    w.Int64(v);
  } else if constexpr (JsonNamed<T>) {
    const std::string_view name = JsonName(v);
    w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  } else if constexpr (IsVector<T>::value) {
    w.StartArray();
    for (const auto& item : v) Write(w, item);
    w.EndArray();
  } else {
    static_assert(fields::Described<T>, "add a JsonFields table for this type");
    w.StartObject();
    WriteFields(w, v);
    w.EndObject();
  }
}

// "key": value, for a value Write writes.
template <typename Writer, typename T>
void Member(Writer& w, const char* key, const T& value) {
  w.Key(key);
  Write(w, value);
}

}  // namespace rdmastack::json
