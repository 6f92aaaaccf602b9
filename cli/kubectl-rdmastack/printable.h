#pragma once
// The one rule for putting a string that came from the cluster (a node, a pod, a spec, an agent's
// report, an API server's message) on a person's terminal: nothing in it may act on the terminal
// or change how the rest of the output reads. Escaped: C0 controls (newline and tab included)
// and DEL as \n, \t, \r or \xNN; C1 controls (U+0080-U+009F), the bidirectional embeddings,
// overrides, isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) and the
// Unicode line and paragraph separators (U+2028, U+2029) as \uNNNN; each byte that is not part of
// valid UTF-8 (overlong forms and surrogates included) as \xNN. An ANSI escape sequence loses its
// ESC (or CSI) byte and prints as plain text. Everything else passes unchanged. Pure.

#include <string>
#include <string_view>

namespace rdmastack::plugin {

enum class Newlines { kEscape, kKeep };

// `text` made printable. kKeep lets '\n' through: only for a whole rendered document, whose line
// breaks are the renderer's own (every value in it was escaped with kEscape before layout).
std::string Printable(std::string_view text, Newlines newlines = Newlines::kEscape);

// A JSON document made printable without changing what it says: C0 controls other than JSON's
// whitespace (which a JSON writer never leaves raw inside a string), DEL, C1 controls, the bidi and
// separator code points above become \u escapes inside their strings, and bytes that are not
// valid UTF-8 become \ufffd (as Go's encoding/json writes them). Outside strings a JSON document
// holds only ASCII, so the pass never touches structure.
std::string PrintableJson(std::string_view json);

}  // namespace rdmastack::plugin
