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
class FittedStatus;

// `desired` (metadata and status; a status is required) as its status patch, fitted.
template <CustomResource T>
StatusOr<FittedStatus<T>> FitStatusPatch(const T& desired);

// Only FitStatusPatch makes one, so a writer that takes a FittedStatus cannot send a status that
// was not fitted.
template <CustomResource T>
class FittedStatus {
 public:
  // SerializeStatusPatch, fitted: the body to apply to /status.
  const std::string& patch() const { return patch_; }
  // The status as the API server will hold it.
  const StatusOf<T>& status() const { return status_; }
  // Empty when the status fit as it was.
  const SchemaFixes& fixes() const { return fixes_; }

 private:
  friend StatusOr<FittedStatus> FitStatusPatch<T>(const T& desired);
  FittedStatus() = default;

  std::string patch_;
  StatusOf<T> status_;
  SchemaFixes fixes_;
};

}  // namespace rdmastack::crd
