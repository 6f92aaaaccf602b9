#include "controllers/gatewaypool/compatibility_source.h"

namespace rdmastack::gatewaypool {

StatusOr<std::unique_ptr<CompatibilitySource>> CompatibilitySource::Create(
    const std::string& file, const runtime::Store* configmaps, std::string configmap_key) {
  std::unique_ptr<CompatibilitySource> s(new CompatibilitySource());
  if (configmaps != nullptr) {
    s->configmaps_ = configmaps;
    s->configmap_key_ = std::move(configmap_key);
    return s;
  }
  if (!file.empty()) {
    RDMASTACK_ASSIGN_OR_RETURN(compat::CompatibilityMatrix m, compat::LoadCompatibilityFile(file));
    s->fixed_ = std::make_shared<const compat::CompatibilityMatrix>(std::move(m));
    return s;
  }
  auto m = compat::ParseCompatibility(BuiltInCompatibilityYaml());
  if (!m.ok()) return m.status().WithContext("built-in compatibility data");
  s->fixed_ = std::make_shared<const compat::CompatibilityMatrix>(std::move(*m));
  return s;
}

StatusOr<std::shared_ptr<const compat::CompatibilityMatrix>> CompatibilitySource::Current() const {
  if (fixed_) return fixed_;
  const runtime::ObjectPtr cm = configmaps_->Get(configmap_key_);
  if (cm == nullptr) {
    return NotFoundError("ConfigMap " + configmap_key_ +
                         " (--compatibility-configmap) does not exist; create it with the key " +
                         kCompatibilityConfigMapKey);
  }
  std::lock_guard lock(mu_);
  const std::string version(cm->ResourceVersion());
  if (version != parsed_version_) {
    parsed_version_ = version;
    auto text = cm->GetString({"data", kCompatibilityConfigMapKey});
    if (!text) {
      parsed_ = NotFoundError("ConfigMap " + configmap_key_ + " has no key " +
                              kCompatibilityConfigMapKey);
    } else if (auto m = compat::ParseCompatibility(*text); !m.ok()) {
      parsed_ = m.status().WithContext("ConfigMap " + configmap_key_);
    } else {
      parsed_ = std::make_shared<const compat::CompatibilityMatrix>(std::move(*m));
    }
  }
  return parsed_;
}

}  // namespace rdmastack::gatewaypool
