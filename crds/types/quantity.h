#pragma once
// Kubernetes resource quantities ("192Mi", "1.5Gi", "4k", "100m", "1e3") as integers. Pure
// functions; the CRDs carry sizes such as maxTransferSize and bufferSize in this form.

#include <cstdint>
#include <string_view>

#include "operator/base/status.h"

namespace rdmastack::crd {

// Parses a quantity and returns its value rounded up away from zero to a whole number, as
// resource.Quantity.Value() does ("1.5" -> 2, "100m" -> 1). Accepts an optional sign, a decimal
// number, and one suffix: binary Ki Mi Gi Ti Pi Ei, decimal n u m k M G T P E, or an exponent
// e<int>/E<int>. Errors (InvalidArgument / OutOfRange) name the input and what is wrong.
StatusOr<int64_t> ParseQuantity(std::string_view text);

}  // namespace rdmastack::crd
