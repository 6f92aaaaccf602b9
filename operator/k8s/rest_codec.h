#pragma once
// Pure pieces of the REST client: query strings, request bodies and response decoding. Kept apart
// from the transport so they are unit-tested without a server.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "operator/k8s/client.h"

namespace rdmastack::k8s {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(std::string_view value);
// "" for no parameters, else "?k=v&k2=v2" (values encoded, order kept).
std::string BuildQuery(const QueryParams& params);

QueryParams ListQuery(const ListOptions& options);
QueryParams WatchQuery(const WatchOptions& options);
QueryParams WriteQuery(const WriteOptions& options);
// Fails for apply without a field manager (the server would refuse it).
StatusOr<QueryParams> PatchQuery(PatchType type, const PatchOptions& options);
// The DeleteOptions body (preconditions, propagationPolicy, gracePeriodSeconds, dryRun).
std::string DeleteBody(const DeleteOptions& options);

// A list response: items get apiVersion/kind from the list ("PodList" -> "Pod"). Takes the body
// by value: it is parsed in place.
StatusOr<ObjectList> DecodeObjectList(std::string body);
// One line of a watch stream: {"type": ..., "object": {...}}. Takes the line by value: it is parsed
// in place and becomes the buffer the event's object keeps its strings in (no copy of the line).
StatusOr<WatchEvent> DecodeWatchEvent(std::string line);

}  // namespace rdmastack::k8s
