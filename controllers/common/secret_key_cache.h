#pragma once
// The Secrets cache, key names only (SecretKeysOnly): one informer over every namespace, or, when
// the admin names the namespaces the operator serves (TenancyPolicy::namespaces), one per served
// namespace, because the chart then grants Secrets there only and a cluster-wide watch would be
// refused.

#include <string>
#include <vector>

#include "operator/runtime/informer.h"
#include "operator/runtime/manager.h"

namespace rdmastack::controllers {

class SecretKeyCache {
 public:
  // The manager's shared informers (the first caller's transform wins, so every caller gets the
  // same ones). `namespaces` empty: every namespace.
  static SecretKeyCache Open(runtime::Manager& manager, const std::vector<std::string>& namespaces);

  // The cached Secret "ns/name"; nullptr when absent or in a namespace not cached.
  runtime::ObjectPtr Get(const std::string& key) const;
  // To watch: a change in any of them is a change of a Secret.
  const std::vector<runtime::Informer*>& informers() const { return informers_; }

 private:
  std::vector<runtime::Informer*> informers_;  // options().ns "" covers every namespace
};

}  // namespace rdmastack::controllers
