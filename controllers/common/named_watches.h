#pragma once
// Objects of one kind watched one name at a time: the first Get of "ns/name" starts a watch of
// that object alone (fieldSelector metadata.name=NAME in NS) in the manager's informer cache, and
// every later Get reads its store. The operator reads a Secret only by a name a spec gives (a
// pool's credentials or TLS Secret, a profile's credentials) or that it made itself (a profile's
// <profile>-s3-user), so its Secret caches hold those and no other Secret of the namespace: not
// the helm release Secrets, ServiceAccount tokens or any tenant's unrelated keys.
//
// Bounds: watches are kept for the life of the process (a spec that names a Secret again finds
// it); at most `max_watches` of them, after which a Get of a new name reads the object with a GET
// each time (no watch, so no event follows its changes) and the operator logs it once. Names in a
// namespace the operator does not serve are never watched or read.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "controllers/common/namespaced_cache.h"
#include "operator/k8s/client.h"
#include "operator/runtime/controller.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/manager.h"

namespace rdmastack::controllers {

class NamedWatches final : public NamedObjects {
 public:
  struct Options {
    runtime::InformerOptions base;    // type and transform; ns and field selector are set here
    std::vector<std::string> served;  // empty: every namespace
    size_t max_watches = 2048;
    Clock::Duration sync_timeout = std::chrono::seconds(10);
  };
  NamedWatches(runtime::InformerCache& cache, k8s::Client& reader, Clock& clock, Options options);

  runtime::ObjectPtr Get(const std::string& key) override;
  void Watch(runtime::Controller& controller, runtime::MapFunc map,
             runtime::WatchOptions options) override;
  size_t watches() const;

 private:
  struct Registration {
    runtime::Controller* controller;
    runtime::MapFunc map;
    runtime::WatchOptions options;
  };
  bool Served(const std::string& ns) const;
  // The watch of `key`, started (with every registered Watch) if new; nullptr past the bound.
  runtime::Informer* WatchOf(const std::string& ns, const std::string& name,
                             const std::string& key);
  runtime::ObjectPtr Read(const std::string& ns, const std::string& name) const;

  runtime::InformerCache& cache_;
  k8s::Client& reader_;
  Clock& clock_;
  const Options options_;
  mutable std::mutex mu_;
  std::map<std::string, runtime::Informer*> watches_;  // "ns/name"
  std::vector<Registration> registrations_;
  bool warned_full_ = false;
};

// The Secrets a controller reads, watched one name at a time in the manager's cache (key names
// only: SecretKeysOnly), in `served` namespaces (empty: every namespace).
NamespacedCache SecretsByName(runtime::Manager& manager, const std::vector<std::string>& served);

}  // namespace rdmastack::controllers
