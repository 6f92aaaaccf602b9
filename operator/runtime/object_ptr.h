#pragma once
// An immutable object shared between the cache, the handlers and the controllers that read it.

#include <memory>

#include "operator/k8s/json_object.h"

namespace rdmastack::runtime {

using ObjectPtr = std::shared_ptr<const k8s::JsonObject>;

}  // namespace rdmastack::runtime
