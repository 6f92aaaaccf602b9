#pragma once
// Every JSON parse in the product goes through here, for two reasons RapidJSON 1.1 leaves to us:
//
// - Numbers. Its default number parse is not correctly rounded, while its writer prints the
//   shortest text that a correct parse reads back: parse -> write -> parse drifts by an ulp at a
//   time, so a merge that should change nothing rewrote an object on every pass (the bucket-policy
//   fuzzer found it). Its full-precision parse has undefined behaviour on a zero significand with a
//   large exponent ("0e62"), and either parse takes 1.8e308 as infinity, which the writer then
//   cannot print at all. Here the reader hands each number over as text and ReadJsonNumber
//   converts it exactly (std::from_chars); a number beyond a double's range is a parse error.
// - Depth. The parser recurses; nesting deeper than kMaxJsonDepth is refused before it can
//   exhaust the stack (here, or later in a recursive copy or write).
//
// tests/json_parse_source_test.cc fails when product code parses JSON any other way.

#include <rapidjson/document.h>
#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/status.h"

namespace rdmastack {

// Deepest nesting accepted (Kubernetes objects stay far below); deeper input is an error.
inline constexpr int kMaxJsonDepth = 512;

// A JSON number as RapidJSON's own handler calls would carry it: an integer in the narrowest of
// its types that holds it (as RapidJSON chooses), any other number as the nearest double.
using JsonNumber = std::variant<int32_t, uint32_t, int64_t, uint64_t, double>;

// `text` is a number as the JSON grammar has it (the reader checked). nullopt: beyond a double's
// range. A value too small for a double is 0, as in every JSON parser.
std::optional<JsonNumber> ReadJsonNumber(std::string_view text);

// "invalid JSON at byte N: <what RapidJSON says>", for an error status that says where.
std::string DescribeParseError(const rapidjson::ParseResult& result);

namespace internal {

// Passes every SAX event on to `Handler`, except a number, which comes as text and goes on as
// the handler's Int/Uint/Int64/Uint64/Double call with its exact value.
template <typename Handler, typename Stream>
class ExactNumbers {
 public:
  ExactNumbers(Handler& handler, Stream& stream) : handler_(handler), stream_(stream) {}
  bool Null() { return handler_.Null(); }
  bool Bool(bool b) { return handler_.Bool(b); }
  bool Int(int i) { return handler_.Int(i); }
  bool Uint(unsigned i) { return handler_.Uint(i); }
  bool Int64(int64_t i) { return handler_.Int64(i); }
  bool Uint64(uint64_t i) { return handler_.Uint64(i); }
  bool Double(double d) { return handler_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    std::optional<JsonNumber> number = ReadJsonNumber(std::string_view(s, n));
    if (!number) {
      too_big_at_ = stream_.Tell() - n;
      return false;
    }
    return std::visit(
        [&](auto v) {
          using T = decltype(v);
          if constexpr (std::is_same_v<T, int32_t>) return handler_.Int(v);
          if constexpr (std::is_same_v<T, uint32_t>) return handler_.Uint(v);
          if constexpr (std::is_same_v<T, int64_t>) return handler_.Int64(v);
          if constexpr (std::is_same_v<T, uint64_t>) return handler_.Uint64(v);
          if constexpr (std::is_same_v<T, double>) return handler_.Double(v);
        },
        *number);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return handler_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return handler_.Key(s, n, copy); }
  bool StartObject() { return handler_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) { return handler_.EndObject(members); }
  bool StartArray() { return handler_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return handler_.EndArray(elements); }
  std::optional<size_t> too_big_at() const { return too_big_at_; }

 private:
  Handler& handler_;
  Stream& stream_;
  std::optional<size_t> too_big_at_;
};

}  // namespace internal

// The one SAX parse: RapidJSON's reader with `kFlags`, numbers read exactly. A number beyond a
// double's range is kParseErrorNumberTooBig at its first byte.
template <unsigned kFlags, typename Stream, typename Handler>
rapidjson::ParseResult ParseJsonEvents(Stream& stream, Handler& handler) {
  internal::ExactNumbers<Handler, Stream> exact(handler, stream);
  rapidjson::Reader reader;
  rapidjson::ParseResult result =
      reader.Parse<kFlags | rapidjson::kParseNumbersAsStringsFlag>(stream, exact);
  if (exact.too_big_at()) return {rapidjson::kParseErrorNumberTooBig, *exact.too_big_at()};
  return result;
}

// Forwards SAX events to a document and refuses nesting deeper than kMaxJsonDepth. With
// Strings::kCopy every string is copied into the document's allocator: a source value's strings
// may point into its own buffers (in-situ parsing), which RapidJSON would otherwise share.
class JsonDocumentBuilder {
 public:
  enum class Strings { kAsGiven, kCopy };
  explicit JsonDocumentBuilder(rapidjson::Document& doc, Strings strings = Strings::kAsGiven)
      : doc_(doc), copy_(strings == Strings::kCopy) {}
  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned i) { return doc_.Uint(i); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t i) { return doc_.Uint64(i); }
  bool Double(double d) { return doc_.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.String(s, n, copy || copy_);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.Key(s, n, copy || copy_);
  }
  bool StartObject() { return Enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return Enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }
  bool too_deep() const { return too_deep_; }

 private:
  bool Enter() {
    too_deep_ = ++depth_ > kMaxJsonDepth;
    return !too_deep_;
  }
  rapidjson::Document& doc_;
  const bool copy_;
  int depth_ = 0;
  bool too_deep_ = false;
};

// Parses `stream` into `doc`: depth-limited, numbers exact, the whole input one JSON value.
// Errors: "JSON nested deeper than 512 levels", or DescribeParseError's words.
template <unsigned kFlags, typename Stream>
Status ParseJsonInto(rapidjson::Document& doc, Stream& stream) {
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generate = [&](rapidjson::Document& target) {
    JsonDocumentBuilder builder(target);
    result = ParseJsonEvents<kFlags>(stream, builder);
    too_deep = builder.too_deep();
    return !result.IsError();
  };
  doc.Populate(generate);
  if (too_deep) {
    return InvalidArgumentError("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                " levels");
  }
  if (result.IsError()) return InvalidArgumentError(DescribeParseError(result));
  return OkStatus();
}

// ParseJsonInto for text in memory (copied out of it: `text` need not outlive `doc`).
Status ParseJsonDocument(rapidjson::Document& doc, std::string_view text);

}  // namespace rdmastack
