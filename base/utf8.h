#pragma once
// UTF-8 text measured and shortened the way the Kubernetes API server reads it. Its JSON decoder
// replaces each byte that does not start a valid UTF-8 sequence with U+FFFD, and a schema's
// maxLength counts code points (Go's utf8.RuneCountInString), while a few fields (an Event's note)
// are limited in bytes. Text cut in the middle of a sequence therefore changes on the server, and
// text cut without a word loses the fact that something is missing: every cut here falls on a
// sequence boundary, and a clip says how much it left out.

#include <cstddef>
#include <string>
#include <string_view>

namespace rdmastack {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD
inline constexpr std::string_view kEllipsis = "\xE2\x80\xA6";              // U+2026

// The unit a length is counted in.
enum class TextUnit { kBytes, kCodePoints };

// Bytes of the valid UTF-8 sequence `s` starts with, or 0 when it starts with none (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF; an empty `s` also gives 0).
size_t Utf8SequenceLength(std::string_view s);

// Whether every byte of `s` belongs to a valid UTF-8 sequence.
bool IsValidUtf8(std::string_view s);

// `s` with each byte that does not start a valid sequence replaced by U+FFFD, as the API server
// stores it.
std::string ValidUtf8(std::string_view s);

// The length of `s` in `unit`; in code points each byte outside a valid sequence counts as one,
// as the API server counts it.
size_t TextLength(std::string_view s, TextUnit unit);

// The longest start of `s` that is at most `max` long in `unit`, ending on a sequence boundary.
std::string_view CutUtf8(std::string_view s, size_t max, TextUnit unit);

// `s` when it is at most `max` long in `unit`; otherwise its start, cut on a sequence boundary,
// followed by "… (N bytes cut)" (N: the bytes of `s` left out), all of it within `max`. When
// `max` leaves no room for that marker and some text, the marker is "…" alone; when not even that
// fits, the text is cut without one.
std::string ClipUtf8(std::string_view s, size_t max, TextUnit unit);

// The same, keeping the end of `s` (where a log says why it stopped): "… (N bytes cut) " and
// then the end, cut on a sequence boundary.
std::string ClipUtf8Front(std::string_view s, size_t max, TextUnit unit);

}  // namespace rdmastack
