#pragma once
// Where the operator's compatibility data comes from: a ConfigMap named in the operator flags
// (key compatibility.yaml) when set, else a file, else the copy of gateway/compatibility.yaml
// built into the binary. A ConfigMap that is missing or does not parse refuses every pool
// (LibraryCompatible=False, CompatibilityDataInvalid) rather than falling back silently.

#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "lib/compat/compatibility.h"
#include "operator/runtime/store.h"

namespace rdmastack::gatewaypool {

inline constexpr char kCompatibilityConfigMapKey[] = "compatibility.yaml";

// The repository's gateway/compatibility.yaml as it was at build time.
std::string_view BuiltInCompatibilityYaml();

class CompatibilitySource {
 public:
  // `configmaps` is the informer store holding the ConfigMap `configmap_key` ("ns/name"); null
  // when no ConfigMap is configured.
  static StatusOr<std::unique_ptr<CompatibilitySource>> Create(const std::string& file,
                                                               const runtime::Store* configmaps,
                                                               std::string configmap_key);

  // The matrix to decide with now, or why there is none (the message names the source).
  StatusOr<std::shared_ptr<const compat::CompatibilityMatrix>> Current() const;

 private:
  CompatibilitySource() = default;
  std::shared_ptr<const compat::CompatibilityMatrix> fixed_;
  const runtime::Store* configmaps_ = nullptr;
  std::string configmap_key_;
  // The last ConfigMap content parsed, so that an unchanged ConfigMap is parsed once.
  mutable std::mutex mu_;
  mutable std::string parsed_version_;
  mutable StatusOr<std::shared_ptr<const compat::CompatibilityMatrix>> parsed_ =
      NotFoundError("not loaded");
};

}  // namespace rdmastack::gatewaypool
