#pragma once
// The errors the API server answers, worded as it words them and carried as the REST client
// carries them (api_error.h), so that IsNotFound, IsConflict and the rest hold for a fake's
// answers as for a real server's.

#include <string>
#include <string_view>

#include "base/status.h"
#include "operator/k8s/resource.h"

namespace rdmastack::k8s::testing {

// 404: pods "x" not found.
Status NotFoundFor(const ResourceType& type, std::string_view name);
// 409: pods "x" already exists.
Status AlreadyExistsFor(const ResourceType& type, std::string_view name);
// 409: Operation cannot be fulfilled on pods "x": <why>.
Status ConflictFor(const ResourceType& type, std::string_view name, std::string_view why);
// The `why` of a write whose resourceVersion is not the stored one.
inline constexpr char kObjectModified[] =
    "the object has been modified; please apply your changes to the latest version and try again";
// 422: Pod "x" is invalid: <why>.
Status InvalidFor(const ResourceType& type, std::string_view name, std::string_view why);
// 400, with the server's message.
Status BadRequest(std::string_view message);

}  // namespace rdmastack::k8s::testing
