#include "controllers/common/reconcile_skeleton.h"

#include <algorithm>

namespace rdmastack::controllers {

bool HasFinalizer(const k8s::JsonObject& object, std::string_view finalizer) {
  const std::vector<std::string> finalizers = object.Finalizers();
  return std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end();
}

}  // namespace rdmastack::controllers
