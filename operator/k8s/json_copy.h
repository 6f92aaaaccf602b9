#pragma once
// The deep copy that json_object.cc and json_builder.cc both write values with, the SAX handler
// that builds documents (the parser's, and the informer cache's compact copy), and the words for a
// parse error that every decoder uses.

#include <rapidjson/document.h>
#include <rapidjson/error/error.h>

#include <string>

#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::internal {

// Like CopyFrom, but also copies strings that reference an in-situ parse buffer (RapidJSON 1.1
// shares those), so the copy never points into another document's memory.
rapidjson::Value DeepCopy(const rapidjson::Value& src, rapidjson::Document::AllocatorType& alloc);

// "invalid JSON at byte N: <RapidJSON's message>", for an error status that says where.
std::string DescribeParseError(const rapidjson::ParseResult& result);

// Forwards SAX events to a document and refuses nesting deeper than kMaxJsonDepth, so that hostile
// or broken input cannot exhaust the stack in the recursive parser (or later in DeepCopy/Accept).
// With Strings::kCopy every string is copied into the document's allocator: a source value's
// strings may point into its own buffers (in-situ parsing), which RapidJSON would otherwise share.
class DocumentBuilder {
 public:
  enum class Strings { kAsGiven, kCopy };
  explicit DocumentBuilder(rapidjson::Document& doc, Strings strings = Strings::kAsGiven)
      : doc_(doc), copy_(strings == Strings::kCopy) {}
  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned i) { return doc_.Uint(i); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t i) { return doc_.Uint64(i); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.RawNumber(s, n, copy || copy_);
  }
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

}  // namespace rdmastack::k8s::internal
