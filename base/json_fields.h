#pragma once
// Key-value writes for RapidJSON SAX writers (Writer, PrettyWriter), for code that streams JSON
// documents of its own (reports, plugin output) rather than building a k8s::JsonObject.

#include <rapidjson/rapidjson.h>

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace rdmastack::json
