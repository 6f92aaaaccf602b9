#pragma once
// JSON (de)serialisation of the rdmastack custom resources, on RapidJSON directly.
//
// Parsing collects every problem (wrong type, unknown enum value, wrong kind) with its field path
// into one InvalidArgument status; unknown fields are ignored, as the apiserver prunes them.
// Serialising writes apiVersion and kind first and leaves out absent optionals and empty
// lists/maps, so Serialize(Parse(x)) is stable.

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>

#include "base/status.h"
#include "crds/types/types.h"

namespace rdmastack::crd {

template <typename T>
concept CustomResource = std::is_same_v<T, GatewayPool> || std::is_same_v<T, ClientProfile> ||
    std::is_same_v<T, RdmaNode>;

template <CustomResource T>
std::string_view KindOf();
template <>
std::string_view KindOf<GatewayPool>();
template <>
std::string_view KindOf<ClientProfile>();
template <>
std::string_view KindOf<RdmaNode>();

template <CustomResource T>
StatusOr<T> ParseResource(std::string_view json);

template <CustomResource T>
StatusOr<T> ParseResource(const rapidjson::Value& object);

template <CustomResource T>
std::string SerializeResource(const T& resource);

// Only the status, as sent to the /status subresource with server-side apply.
std::string SerializeStatusPatch(const GatewayPool& pool);
std::string SerializeStatusPatch(const ClientProfile& profile);
std::string SerializeStatusPatch(const RdmaNode& node);

}  // namespace rdmastack::crd
