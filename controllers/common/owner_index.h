#pragma once
// The index every owned-object cache carries, so that an owner's pass reads its own objects and
// not every pool's and profile's (a scan of the whole cache grew each pass with the number of
// owners: issue 53). An object is filed under its controller's UID and under each owner label it
// carries (the look-alikes of owned_objects.h), both within its namespace.

#include <string>
#include <string_view>

#include "operator/k8s/json_object.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers {

inline constexpr char kOwnerIndex[] = "rdmastack-owner";

// The UID the object's controller ownerReference names; "" when it has none.
std::string ControllerUid(const k8s::JsonObject& object);

// The owner index: OwnerUidValue(ns, controller UID) and, for each of the pool, profile and
// workload labels the object carries, OwnerLabelValue(ns, key, value).
runtime::IndexFunc IndexByOwner();
// Whether `key` is a label IndexByOwner files objects under.
bool IsIndexedOwnerLabel(std::string_view key);
std::string OwnerUidValue(std::string_view ns, std::string_view uid);
std::string OwnerLabelValue(std::string_view ns, std::string_view key, std::string_view value);

}  // namespace rdmastack::controllers
