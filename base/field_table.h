#pragma once
// Field tables: the JSON name of every member of a plain struct, in output order, as one
// constexpr table per struct found by ADL:
//
//   constexpr auto JsonFields(const Port*) {
//     return std::tuple{F("number", &Port::number), F("linkLayer", &Port::link_layer)};
//   }
//
// A table is the one place a field is named: generic code reads and writes JSON from it (the CRD
// codec, base/json_fields.h) and tests walk it to compare one schema with another. Tier 0, so the
// CRD types (crds/types/json_fields.h) and the node facts (node/probe/facts_fields.h) describe
// themselves in the same form.

#include <cstddef>
#include <string_view>
#include <tuple>

namespace rdmastack::fields {

template <typename T, typename M>
struct Field {
  std::string_view name;
  M T::*member;
  // False for a member the table lists only so that every member is in it (tests walk tables),
  // which the table-driven JSON writer leaves out.
  bool written = true;
};

template <typename T, typename M>
constexpr Field<T, M> F(std::string_view name, M T::*member) {
  return {name, member};
}

// A member the JSON writer leaves out: internal to its producer, or written elsewhere by hand.
template <typename T, typename M>
constexpr Field<T, M> Unwritten(std::string_view name, M T::*member) {
  return {name, member, false};
}

template <typename T>
concept Described = requires {
  JsonFields(static_cast<const T*>(nullptr));
};

template <typename T>
constexpr auto FieldsOf() {
  return JsonFields(static_cast<const T*>(nullptr));
}

namespace internal {

// Converts to any member type, so `T{AnyMember{}, ...}` compiles for as many as T has members.
struct AnyMember {
  template <typename U>
  operator U() const;  // declared only: used in unevaluated contexts
};

template <typename T, typename... Given>
constexpr size_t AggregateMembers() {
  if constexpr (requires { T{Given{}..., AnyMember{}}; }) {
    return AggregateMembers<T, Given..., AnyMember>();
  } else {
    return sizeof...(Given);
  }
}

}  // namespace internal

// True when T's table names every member of T (an aggregate), so a member added to the struct
// and not to its table fails to compile where this is asserted, instead of being silently left
// out of every schema the table drives.
template <Described T>
constexpr bool ListsEveryMember() {
  return std::tuple_size_v<decltype(FieldsOf<T>())> == internal::AggregateMembers<T>();
}

}  // namespace rdmastack::fields
