#pragma once
// Generic RapidJSON reading and writing of the CRD types, driven by json_fields.h. Internal to
// crds/types (json.cc and tests).

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/json_chars.h"
#include "crds/types/json_fields.h"

namespace rdmastack::crd::codec {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Every problem found while reading, each prefixed with its field path ("spec.s3.port: ...").
struct Problems {
  std::vector<std::string> items;
  void Add(const std::string& path, const std::string& what) {
    items.push_back(path + ": " + what);
  }
};

inline std::string Join(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

template <typename T>
void Read(const rapidjson::Value& v, const std::string& path, T& out, Problems& problems);

template <typename T>
void ReadObject(const rapidjson::Value& v, const std::string& path, T& out, Problems& problems) {
  if (!v.IsObject()) {
    problems.Add(path, "expected an object");
    return;
  }
  std::apply(
      [&](const auto&... field) {
        auto read_one = [&](const auto& f) {
          if (!f.written) return;
          auto it = v.FindMember(rapidjson::StringRef(JsonChars(f.name), f.name.size()));
          if (it == v.MemberEnd() || it->value.IsNull()) return;  // absent: keep the default
          Read(it->value, Join(path, f.name), out.*(f.member), problems);
        };
        (read_one(field), ...);
        (void)read_one;  // a kind without fields (HostDeviceMode) expands to no call
      },
      fields::FieldsOf<T>());
}

template <typename T>
void Read(const rapidjson::Value& v, const std::string& path, T& out, Problems& problems) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.IsString()) return problems.Add(path, "expected a string");
    out.assign(v.GetString(), v.GetStringLength());
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.IsBool()) return problems.Add(path, "expected true or false");
    out = v.GetBool();
  } else if constexpr (std::is_same_v<T, int32_t>) {
    if (!v.IsInt()) return problems.Add(path, "expected a 32-bit integer");
    out = v.GetInt();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!v.IsInt64()) return problems.Add(path, "expected a 64-bit integer");
    out = v.GetInt64();
  } else if constexpr (NamedEnum<T>) {
    std::optional<T> e;
    if (v.IsString()) e = EnumFromString<T>(std::string_view(v.GetString(), v.GetStringLength()));
    if (!e) {
      std::string allowed;
      for (const auto& entry : EnumNames(T{})) {
        allowed += (allowed.empty() ? "\"" : ", \"") + std::string(entry.name) + "\"";
      }
      return problems.Add(path, "expected one of " + allowed);
    }
    out = *e;
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    if (v.IsInt64()) {
      out = IntOrString::Int(v.GetInt64());
    } else if (v.IsString()) {
      out = IntOrString::Str(std::string(v.GetString(), v.GetStringLength()));
    } else {
      problems.Add(path, "expected an integer or a string");
    }
  } else if constexpr (IsOptional<T>::value) {
    typename T::value_type inner{};
    Read(v, path, inner, problems);
    out = std::move(inner);
  } else if constexpr (IsVector<T>::value) {
    if (!v.IsArray()) return problems.Add(path, "expected a list");
    out.clear();
    out.reserve(v.Size());
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      typename T::value_type item{};
      Read(v[i], path + "[" + std::to_string(i) + "]", item, problems);
      out.push_back(std::move(item));
    }
  } else if constexpr (std::is_same_v<T, StringMap>) {
    if (!v.IsObject()) return problems.Add(path, "expected a map of strings");
    out.clear();
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      std::string key(it->name.GetString(), it->name.GetStringLength());
      if (!it->value.IsString()) {
        problems.Add(path + "[" + key + "]", "expected a string");
        continue;
      }
      out.emplace(std::move(key), std::string(it->value.GetString(), it->value.GetStringLength()));
    }
  } else {
    static_assert(fields::Described<T>, "add a JsonFields table for this type");
    ReadObject(v, path, out, problems);
  }
}

// Absent optionals and empty lists/maps are left out of the output.
template <typename T>
bool Omitted(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return !v.has_value();
  } else if constexpr (IsVector<T>::value || std::is_same_v<T, StringMap>) {
    return v.empty();
  } else {
    return false;
  }
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

template <typename T>
void Write(const T& v, JsonWriter& w);

template <typename T>
void WriteFields(const T& v, JsonWriter& w) {
  std::apply(
      [&](const auto&... field) {
        auto write_one = [&](const auto& f) {
          const auto& member = v.*(f.member);
          if (!f.written || Omitted(member)) return;
          w.Key(JsonChars(f.name), static_cast<rapidjson::SizeType>(f.name.size()));
          Write(member, w);
        };
        (write_one(field), ...);
        (void)write_one;
      },
      fields::FieldsOf<T>());
}

template <typename T>
void Write(const T& v, JsonWriter& w) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.String(JsonChars(v), static_cast<rapidjson::SizeType>(v.size()));
  } else if constexpr (std::is_same_v<T, bool>) {
    w.Bool(v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    w.Int(v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    w.Int64(v);
  } else if constexpr (NamedEnum<T>) {
    std::string_view name = ToString(v);
    w.String(JsonChars(name), static_cast<rapidjson::SizeType>(name.size()));
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    if (v.is_int()) {
      w.Int64(v.int_value());
    } else {
      Write(v.str_value(), w);
    }
  } else if constexpr (IsOptional<T>::value) {
    Write(*v, w);
  } else if constexpr (IsVector<T>::value) {
    w.StartArray();
    for (const auto& item : v) Write(item, w);
    w.EndArray();
  } else if constexpr (std::is_same_v<T, StringMap>) {
    w.StartObject();
    for (const auto& [key, value] : v) {
      Write(key, w);
      Write(value, w);
    }
    w.EndObject();
  } else {
    w.StartObject();
    WriteFields(v, w);
    w.EndObject();
  }
}

}  // namespace rdmastack::crd::codec
