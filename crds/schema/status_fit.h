#pragma once
// The status patch of a custom resource made valid for its CRD's status schema (schema_fit.h on
// crd_schemas.h): what every status write of the operator sends, so that a computed status the
// API server would refuse never freezes the status at an older state.

#include <string>

#include "base/status.h"
#include "crds/schema/schema_fit.h"
#include "crds/types/json.h"

namespace rdmastack::crd {

template <CustomResource T>
using StatusOf = typename decltype(T::status)::value_type;

template <CustomResource T>
struct FittedStatus {
  std::string patch;   // SerializeStatusPatch, fitted: the body to apply to /status
  StatusOf<T> status;  // the status as the API server will hold it
  SchemaFixes fixes;   // empty when `desired` fit as it was
};

// `desired` (metadata and status; a status is required) as its status patch, fitted.
template <CustomResource T>
StatusOr<FittedStatus<T>> FitStatusPatch(const T& desired);

}  // namespace rdmastack::crd
