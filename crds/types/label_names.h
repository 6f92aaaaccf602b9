#pragma once
// Names of label keys that carry an object's namespace and name (node labels and annotations of
// pools and profiles).

#include <cstddef>
#include <string>
#include <string_view>

namespace rdmastack::crd {

// On everything the operator creates.
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByValue[] = "rdmastack-operator";
// The field manager of every write the operator makes: one name, so that server-side apply sees one
// owner of our fields whichever part of the operator wrote them.
inline constexpr char kFieldManager[] = "rdmastack-operator";

// "<ns>.<name>" as the name part of a node label key that has `reserved` more characters of its
// own (a prefix or suffix): cut and suffixed with a hash of ns/name when the whole would pass
// the 63-character limit, so that two objects never share a key.
std::string LabelNameStem(std::string_view ns, std::string_view name, size_t reserved);

}  // namespace rdmastack::crd
