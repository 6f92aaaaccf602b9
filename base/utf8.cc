#include "base/utf8.h"

namespace rdmastack {
namespace {

// Bytes of the unit `s` starts with: a valid sequence, or one byte outside any.
size_t UnitBytes(std::string_view s) {
  const size_t n = Utf8SequenceLength(s);
  return n == 0 ? 1 : n;
}

size_t UnitLength(size_t bytes, TextUnit unit) {
  return unit == TextUnit::kBytes ? bytes : 1;
}

// Bytes of the longest start of `s` that is at most `max` long.
size_t PrefixBytes(std::string_view s, size_t max, TextUnit unit) {
  size_t pos = 0, length = 0;
  while (pos < s.size()) {
    const size_t bytes = UnitBytes(s.substr(pos));
    if (length + UnitLength(bytes, unit) > max) break;
    length += UnitLength(bytes, unit);
    pos += bytes;
  }
  return pos;
}

// Where the longest end of `s` that is at most `max` long starts.
size_t SuffixStart(std::string_view s, size_t max, TextUnit unit) {
  size_t length = TextLength(s, unit), pos = 0;
  while (length > max && pos < s.size()) {
    const size_t bytes = UnitBytes(s.substr(pos));
    length -= UnitLength(bytes, unit);
    pos += bytes;
  }
  return pos;
}

std::string CutMarker(size_t cut_bytes) {
  return std::string(kEllipsis) + " (" + std::to_string(cut_bytes) + " bytes cut)";
}

// Shared by both clips: `keep(room)` gives the bytes kept for `room` left beside the marker, and
// `join(kept_bytes, marker)` builds the result. The marker's length depends on the count it
// carries, so the room is found from the longest count (all of `s`), then once more from the count
// that gave: a count that can only shrink keeps the marker within `max`.
template <typename Keep, typename Join>
std::string Clip(std::string_view s, size_t max, TextUnit unit, Keep keep, Join join) {
  if (TextLength(s, unit) <= max) return std::string(s);
  size_t cut = s.size();
  for (int pass = 0; pass < 2; ++pass) {
    const size_t marker = TextLength(CutMarker(cut), unit);
    if (marker >= max) break;
    cut = s.size() - keep(max - marker);
  }
  if (TextLength(CutMarker(cut), unit) < max) return join(s.size() - cut, CutMarker(cut));
  const size_t ellipsis = TextLength(kEllipsis, unit);
  if (ellipsis <= max) return join(keep(max - ellipsis), std::string(kEllipsis));
  return join(keep(max), "");
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s) {
  if (s.empty()) return 0;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  // The second byte's range depends on the lead (RFC 3629's table); the others are 80..BF.
  size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead == 0xE0) {
    n = 3, low = 0xA0;
  } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
    n = 3;
  } else if (lead == 0xED) {
    n = 3, high = 0x9F;  // no surrogates
  } else if (lead == 0xF0) {
    n = 4, low = 0x90;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    n = 4;
  } else if (lead == 0xF4) {
    n = 4, high = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  return n;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    const size_t n = Utf8SequenceLength(s.substr(pos));
    if (n == 0) return false;
    pos += n;
  }
  return true;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    const size_t n = Utf8SequenceLength(s.substr(pos));
    if (n == 0) {
      out.append(kReplacementCharacter);
      ++pos;
    } else {
      out.append(s.substr(pos, n));
      pos += n;
    }
  }
  return out;
}

size_t TextLength(std::string_view s, TextUnit unit) {
  if (unit == TextUnit::kBytes) return s.size();
  size_t count = 0;
  for (size_t pos = 0; pos < s.size(); pos += UnitBytes(s.substr(pos))) ++count;
  return count;
}

std::string_view CutUtf8(std::string_view s, size_t max, TextUnit unit) {
  return s.substr(0, PrefixBytes(s, max, unit));
}

std::string ClipUtf8(std::string_view s, size_t max, TextUnit unit) {
  return Clip(
      s, max, unit, [&](size_t room) { return PrefixBytes(s, room, unit); },
      [&](size_t kept, const std::string& marker) {
        return std::string(s.substr(0, kept)) + marker;
      });
}

std::string ClipUtf8Front(std::string_view s, size_t max, TextUnit unit) {
  if (TextLength(s, unit) <= max) return std::string(s);
  // The space after the marker counts too.
  const size_t space = 1;
  return Clip(
      s, max > space ? max - space : 0, unit,
      [&](size_t room) { return s.size() - SuffixStart(s, room, unit); },
      [&](size_t kept, const std::string& marker) {
        return marker + (marker.empty() ? "" : " ") + std::string(s.substr(s.size() - kept));
      });
}

}  // namespace rdmastack
