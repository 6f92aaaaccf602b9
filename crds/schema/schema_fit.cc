#include "crds/schema/schema_fit.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "base/rfc3339.h"
#include "base/utf8.h"

namespace rdmastack::crd {
namespace {

using Allocator = rapidjson::MemoryPoolAllocator<>;

std::string Json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string Quoted(const std::string& s) {
  return s.size() > 40 ? "\"" + std::string(CutUtf8(s, 40, TextUnit::kCodePoints)) + "\"…"
                       : "\"" + s + "\"";
}

std::string FormatBound(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e18) return std::to_string(static_cast<int64_t>(d));
  return std::to_string(d);
}

class Fitter {
 public:
  Fitter(Allocator& allocator, SchemaFixes& fixes) : allocator_(allocator), fixes_(fixes) {}

  // False when `v` cannot be made valid: the caller removes it (and says so).
  bool Fit(const SchemaNode& s, rapidjson::Value& v, const std::string& path) {
    if (v.IsNull()) {
      if (s.nullable) return true;
      return Invalid(path, "nullable false", "null");
    }
    if (s.int_or_string) {
      if (v.IsString()) return FitString(s, v, path);
      if (v.IsInt64()) return FitNumber(s, v, path);
      return Invalid(path, "x-kubernetes-int-or-string", "neither an integer nor a string");
    }
    if (s.type.empty()) return true;
    if (s.type == "object") {
      if (!v.IsObject()) return Invalid(path, "type object", "not an object");
      return FitObject(s, v, path);
    }
    if (s.type == "array") {
      if (!v.IsArray()) return Invalid(path, "type array", "not an array");
      return FitArray(s, v, path);
    }
    if (s.type == "string") {
      if (!v.IsString()) return Invalid(path, "type string", "not a string");
      return FitString(s, v, path);
    }
    if (s.type == "integer") {
      if (!v.IsInt64()) return Invalid(path, "type integer", "not a 64-bit integer");
      return FitNumber(s, v, path);
    }
    if (s.type == "number") {
      if (!v.IsNumber()) return Invalid(path, "type number", "not a number");
      return FitNumber(s, v, path);
    }
    if (s.type == "boolean") {
      if (!v.IsBool()) return Invalid(path, "type boolean", "not a boolean");
      return true;
    }
    return true;  // a type the API server's structural schemas do not have
  }

 private:
  void Fix(const std::string& path, std::string rule, std::string action) {
    fixes_.push_back({path, std::move(rule), std::move(action)});
  }
  bool Invalid(const std::string& path, std::string rule, const std::string& what) {
    Fix(path, std::move(rule), what + ": cannot be made valid");
    return false;
  }

  bool FitString(const SchemaNode& s, rapidjson::Value& v, const std::string& path) {
    std::string text(v.GetString(), v.GetStringLength());
    const std::string before = text;
    if (!IsValidUtf8(text)) {
      text = ValidUtf8(text);
      Fix(path, "UTF-8", "bytes outside UTF-8 replaced by U+FFFD");
    }
    const size_t length = TextLength(text, TextUnit::kCodePoints);
    if (s.max_length && length > *s.max_length) {
      const size_t max = static_cast<size_t>(*s.max_length);
      // A marker would break a pattern or an enum: those are cut bare (and checked below).
      const bool bare = s.pattern_regex != nullptr || !s.enum_values.empty();
      const std::string clipped = bare ? std::string(CutUtf8(text, max, TextUnit::kCodePoints))
                                       : ClipUtf8(text, max, TextUnit::kCodePoints);
      Fix(path, "maxLength " + std::to_string(max),
          "clipped from " + std::to_string(length) + " characters" +
              (bare ? "" : " (the end says how many bytes were cut)"));
      text = clipped;
    }
    if (s.min_length && TextLength(text, TextUnit::kCodePoints) < *s.min_length)
      return Invalid(path, "minLength " + std::to_string(*s.min_length), Quoted(text));
    if (!s.enum_values.empty() &&
        std::find(s.enum_values.begin(), s.enum_values.end(), text) == s.enum_values.end())
      return Invalid(path, "enum", Quoted(text));
    if (s.pattern_regex != nullptr && !std::regex_search(text, *s.pattern_regex))
      return Invalid(path, "pattern " + s.pattern, Quoted(text));
    if (s.format == "date-time" && !ParseRfc3339(text).ok())
      return Invalid(path, "format date-time", Quoted(text));
    if (text != before)
      v.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator_);
    return true;
  }

  bool FitNumber(const SchemaNode& s, rapidjson::Value& v, const std::string& path) {
    const bool integer = v.IsInt64();
    double low = s.minimum.value_or(-std::numeric_limits<double>::infinity());
    double high = s.maximum.value_or(std::numeric_limits<double>::infinity());
    std::string low_rule = s.minimum ? "minimum " + FormatBound(*s.minimum) : "";
    std::string high_rule = s.maximum ? "maximum " + FormatBound(*s.maximum) : "";
    if (s.format == "int32") {
      if (low < std::numeric_limits<int32_t>::min()) {
        low = std::numeric_limits<int32_t>::min();
        low_rule = "format int32";
      }
      if (high > std::numeric_limits<int32_t>::max()) {
        high = std::numeric_limits<int32_t>::max();
        high_rule = "format int32";
      }
    }
    const double value = integer ? static_cast<double>(v.GetInt64()) : v.GetDouble();
    if (value >= low && value <= high) return true;
    const double bound = value < low ? low : high;
    Fix(path, value < low ? low_rule : high_rule,
        (integer ? std::to_string(v.GetInt64()) : std::to_string(value)) + " clamped to " +
            FormatBound(bound));
    if (integer) {
      v.SetInt64(static_cast<int64_t>(value < low ? std::ceil(bound) : std::floor(bound)));
    } else {
      v.SetDouble(bound);
    }
    return true;
  }

  bool FitObject(const SchemaNode& s, rapidjson::Value& v, const std::string& path) {
    std::vector<std::string> removed;
    for (auto& m : v.GetObject()) {
      const std::string name(m.name.GetString(), m.name.GetStringLength());
      const std::string child_path = path + "." + name;
      const SchemaNode* child = s.Property(name);
      if (child == nullptr) child = s.additional_properties.get();
      if (child == nullptr) continue;  // unknown: the API server prunes it, it refuses nothing
      if (Fit(*child, m.value, child_path)) continue;
      if (s.IsRequired(name)) return false;  // the field's own fix says why
      removed.push_back(name);
      Fix(child_path, "", "removed");
    }
    for (const auto& name : removed) v.RemoveMember(name.c_str());
    for (const auto& name : s.required) {
      if (!v.HasMember(name.c_str())) return Invalid(path + "." + name, "required", "missing");
    }
    return true;
  }

  bool FitArray(const SchemaNode& s, rapidjson::Value& v, const std::string& path) {
    // Positions are those of the computed list, so that every fix names the item as it was.
    rapidjson::Value kept(rapidjson::kArrayType);
    size_t index = 0;
    std::set<std::string> keys;
    for (auto& item : v.GetArray()) {
      const std::string item_path = path + "[" + std::to_string(index++) + "]";
      if (s.items && !Fit(*s.items, item, item_path)) {
        Fix(item_path, "", "removed");
        continue;
      }
      if (s.list_type == "map" || s.list_type == "set") {
        const std::string key = s.list_type == "set" ? Json(item) : MapKey(s, item);
        if (!keys.insert(key).second) {
          Fix(item_path, "x-kubernetes-list-type " + s.list_type,
              "repeats " + key + " of an earlier item: removed (the first is kept)");
          continue;
        }
      }
      kept.PushBack(item, allocator_);  // moves the item
    }
    if (s.max_items && kept.Size() > *s.max_items) {
      const size_t extra = kept.Size() - static_cast<size_t>(*s.max_items);
      Fix(path, "maxItems " + std::to_string(*s.max_items),
          std::to_string(extra) + " item" + (extra == 1 ? "" : "s") + " after the first " +
              std::to_string(*s.max_items) + " left out");
      while (kept.Size() > *s.max_items) kept.PopBack();
    }
    v = kept;  // moves
    if (s.min_items && v.Size() < *s.min_items) {
      return Invalid(path, "minItems " + std::to_string(*s.min_items),
                     std::to_string(v.Size()) + " items");
    }
    return true;
  }

  // The item's list-map key, e.g. {"node":"a"}; an absent key part is null.
  std::string MapKey(const SchemaNode& s, const rapidjson::Value& item) {
    std::string out = "{";
    for (const auto& k : s.list_map_keys) {
      out += (out.size() > 1 ? "," : "") + std::string("\"") + k + "\":";
      const rapidjson::Value* part = nullptr;
      if (item.IsObject()) {
        auto it = item.FindMember(k.c_str());
        if (it != item.MemberEnd()) part = &it->value;
      }
      out += part != nullptr ? Json(*part) : "null";
    }
    return out + "}";
  }

  Allocator& allocator_;
  SchemaFixes& fixes_;
};

// "status.failingNodes[3].message" -> "status.failingNodes[].message".
std::string WithoutPositions(const std::string& path) {
  std::string out;
  bool in_brackets = false;
  for (char c : path) {
    if (c == '[') in_brackets = true;
    if (c == ']') in_brackets = false;
    if (!in_brackets || c == '[') out.push_back(c);
  }
  return out;
}

}  // namespace

StatusOr<SchemaFixes> FitToSchema(
    const SchemaNode& schema, rapidjson::Value& value,
    rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>& allocator, const std::string& path) {
  SchemaFixes fixes;
  Fitter fitter(allocator, fixes);
  if (!fitter.Fit(schema, value, path)) {
    return InvalidArgumentError(path +
                                " cannot be made valid for its schema: " + DescribeFixes(fixes));
  }
  return fixes;
}

std::string DescribeFixes(const SchemaFixes& fixes) {
  std::string out;
  for (const auto& f : fixes) {
    out += (out.empty() ? "" : "; ") + f.path + (f.rule.empty() ? "" : " (" + f.rule + ")") + ": " +
           f.action;
  }
  return out;
}

std::string FixSignature(const SchemaFixes& fixes) {
  std::set<std::string> parts;
  for (const auto& f : fixes) parts.insert(WithoutPositions(f.path) + " " + f.rule);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace rdmastack::crd
