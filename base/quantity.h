#pragma once
// Kubernetes resource quantities ("192Mi", "1.5Gi", "4k", "100m", "1e3") as integers. Pure
// functions; the CRDs carry sizes such as maxTransferSize and bufferSize in this form.

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace rdmastack {

// Parses a quantity and returns its value rounded up away from zero to a whole number, as
// resource.Quantity.Value() does ("1.5" -> 2, "100m" -> 1). Accepts an optional sign, a decimal
// number, and one suffix: binary Ki Mi Gi Ti Pi Ei, decimal n u m k M G T P E, or an exponent
// e<int>/E<int>. Errors (InvalidArgument / OutOfRange) name the input and what is wrong.
StatusOr<int64_t> ParseQuantity(std::string_view text);

// A size in bytes (maxTransferSize, --max-transfer-size): a quantity by the rules above that is
// not negative. "192Mi" is 192 * 2^20, "256M" 256 * 10^6; "256K" is refused (Kubernetes has no
// K suffix: k is 1000, Ki 1024).
StatusOr<int64_t> ParseByteQuantity(std::string_view text);

}  // namespace rdmastack
