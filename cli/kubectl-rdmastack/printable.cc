#include "cli/kubectl-rdmastack/printable.h"

#include <cstdint>
#include <cstdio>

namespace rdmastack::plugin {
namespace {

// The length of the valid UTF-8 sequence at text[i] and its code point, or 0 when the byte there
// does not start one (stray continuation, overlong form, surrogate, beyond U+10FFFF, cut short).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  size_t length;
  uint32_t cp;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  *code_point = cp;
  return length;
}

// Code points that reorder or break the text around them without being controls.
bool IsLayoutChanging(uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C || cp == 0x2028 || cp == 0x2029;
}

void AppendHex(std::string& out, const char* format, uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), format, static_cast<unsigned>(value));
  out += buf;
}

// `text` rewritten code point by code point: `escape` appends the replacement of a code point
// and returns true, or returns false to keep its bytes; `invalid` appends that of a byte that is
// not UTF-8.
template <typename Escape, typename Invalid>
std::string Rewrite(std::string_view text, Escape escape, Invalid invalid) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t length = DecodeUtf8(text, i, &cp);
    if (length == 0) {
      invalid(out, static_cast<uint8_t>(text[i]));
      ++i;
      continue;
    }
    if (!escape(out, cp)) out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string Printable(std::string_view text, Newlines newlines) {
  return Rewrite(
      text,
      [newlines](std::string& out, uint32_t cp) {
        if (cp == '\n') {
          out += newlines == Newlines::kKeep ? "\n" : "\\n";
        } else if (cp == '\t') {
          out += "\\t";
        } else if (cp == '\r') {
          out += "\\r";
        } else if (cp < 0x20 || cp == 0x7F) {
          AppendHex(out, "\\x%02x", cp);
        } else if ((cp >= 0x80 && cp <= 0x9F) || IsLayoutChanging(cp)) {
          AppendHex(out, "\\u%04x", cp);
        } else {
          return false;
        }
        return true;
      },
      [](std::string& out, uint8_t byte) { AppendHex(out, "\\x%02x", byte); });
}

std::string PrintableJson(std::string_view json) {
  return Rewrite(
      json,
      [](std::string& out, uint32_t cp) {
        const bool json_whitespace = cp == '\n' || cp == '\t' || cp == '\r';
        if ((cp < 0x20 && !json_whitespace) || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
            IsLayoutChanging(cp)) {
          AppendHex(out, "\\u%04x", cp);
          return true;
        }
        return false;
      },
      [](std::string& out, uint8_t) { out += "\\ufffd"; });
}

}  // namespace rdmastack::plugin
