#pragma once
// Label and field selectors as the API server reads them in a list (apimachinery's labels.Parse
// and fields.ParseSelector), for the fake client: what a list with a selector returns.

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::testing {

// Whether `labels` satisfy `selector`: comma-separated requirements `k`, `!k`, `k=v`, `k==v`,
// `k!=v`, `k in (a,b)`, `k notin (a,b)`; "" selects everything. InvalidArgument when it does not
// parse (the API server answers 400 then).
StatusOr<bool> MatchesLabelSelector(std::string_view selector,
                                    const std::map<std::string, std::string>& labels);

// Whether `object` satisfies `selector`: comma-separated `path=v`, `path==v`, `path!=v`, where
// `path` is a dotted field path (metadata.name, spec.nodeName); an absent field reads as "".
StatusOr<bool> MatchesFieldSelector(std::string_view selector, const JsonObject& object);

}  // namespace rdmastack::k8s::testing
