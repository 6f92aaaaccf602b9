#pragma once
// Keeps a sink in step with one collection on the API server (client-go Reflector):
//   watch-list (or list) -> Replace(items, rv) -> watch from rv with bookmarks -> apply events.
// A watch that ends cleanly (server timeout) is re-opened from the last resourceVersion at once;
// one that breaks or cannot be opened for want of a connection (an API server restart) or for a
// 429 is re-opened from it after a backoff (800 ms doubling to 30 s, jittered, reset after 2 min).
// Any other failure, 410 Expired included, leads to a relist after that backoff. A list from a
// resourceVersion the server no longer has is retried at once as a consistent read ("").

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/backoff.h"
#include "operator/runtime/object_ptr.h"

namespace rdmastack::runtime {

// Rewrites an object as soon as it arrives, e.g. to drop fields nobody reads.
using Transform = std::function<k8s::JsonObject(k8s::JsonObject)>;

class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // The form the sink keeps an object in (the informer: a right-sized copy), made as each object
  // arrives, after the transform: a sync of thousands of objects then never holds them all as
  // parsed, each in its own 64 KiB parser pool, until the last one is in.
  virtual ObjectPtr Prepare(k8s::JsonObject object) = 0;
  // The full, current contents of the collection.
  virtual void Replace(std::vector<ObjectPtr> objects, const std::string& resource_version) = 0;
  // Added or modified.
  virtual void Upsert(ObjectPtr object) = 0;
  virtual void Remove(ObjectPtr object) = 0;
};

struct ReflectorOptions {
  k8s::ResourceType type;
  std::string ns;  // "" = all namespaces (or cluster-scoped)
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
  // How the collection's current state is fetched (at start and after a watch fails).
  enum class InitialSync {
    // One watch with sendInitialEvents (KEP-3157 "watch-list", on by default since Kubernetes
    // 1.34): objects arrive one by one from the watch cache and are transformed as they come, and
    // the same stream goes on with changes. Falls back to kWatchCacheList for good when the
    // server refuses it.
    kWatchList,
    // client-go's classic first list (resourceVersion "0"): the whole collection in one response
    // from the watch cache; the server ignores the page size.
    kWatchCacheList,
    // Pages of page_size through a consistent read from etcd.
    kPagedList,
  };
  InitialSync initial_sync = InitialSync::kWatchList;
  // Applied to every listed object (page by page) and every watched object.
  Transform transform;
  // Called on the reflector's thread as each fetch of the collection's state (list or watch-list)
  // begins, before its first request: a transform that depends on outside state (the Node
  // cache's label keys) takes the state the whole listing will be transformed with.
  std::function<void()> before_list;
  BackoffOptions backoff;
  // Server-side watch timeout is drawn from [min, 2*min] to spread reconnects.
  std::chrono::seconds min_watch_timeout{300};
  std::function<double()> uniform = RandomUniform();
};

class Reflector {
 public:
  Reflector(k8s::Client& client, Clock& clock, ReflectorOptions options, ReflectorSink& sink);

  // Runs until Stop(). Call from a dedicated thread.
  void Run();
  // Makes Run return soon (cancels an open watch). Callable from any thread.
  void Stop();
  // Ends the open watch (or the listing under way) and fetches the collection's state again at
  // once, without the backoff: for a transform that now keeps more than the cached objects hold.
  // Callable from any thread; requests made before the next fetch begins are served by that one.
  void RequestRelist();

  // One list-and-watch cycle: returns when the watch must be restarted from a list (with the
  // reason) or when stopped (Cancelled).
  Status ListAndWatch();

  std::string LastSyncResourceVersion() const;
  // How many times the collection's state was fetched (list or watch-list; for tests and logs).
  int list_count() const { return list_count_.load(); }
  // Whether the state comes through watch-list (asked for and not refused by the server).
  bool UsesWatchList() const;

 private:
  struct Listing {
    std::vector<ObjectPtr> objects;  // transformed and prepared
    std::string resource_version;
  };
  Status List();
  // The watch-list variant of ListAndWatch.
  Status WatchList();
  // Opens a watch and publishes it for Stop().
  StatusOr<k8s::WatchStreamPtr> OpenWatch(k8s::WatchOptions options);
  void CloseWatch();
  // Applies events until the stream ends: OK for a clean end, the failure otherwise.
  Status Consume(k8s::WatchStream& stream);
  // Every page from `resource_version`, transformed page by page.
  StatusOr<Listing> ListPages(std::string resource_version);
  // The transform, then the sink's Prepare.
  ObjectPtr Apply(k8s::JsonObject object) const;
  // Opens watches from the last RV until one fails; returns the failure.
  Status Watch();
  Status HandleEvent(k8s::WatchEvent&& event);
  // Sleeps out the next backoff delay (or until Stop()), logging `failure` and what comes `then`.
  void WaitOutBackoff(const Status& failure, std::string_view then);
  // How a watch ended, for the caller that would open the next one: OK (after the backoff, for a
  // failure it can resume from) to go on, or the failure that needs a relist.
  Status ResumeAfter(const Status& ended);
  // Whether a watch that failed so can go on from the last version instead of a relist.
  static bool WatchCanResume(const Status& failure);
  bool Stopped() const;
  bool RelistRequested() const;
  void SetResourceVersion(std::string rv);

  k8s::Client& client_;
  Clock& clock_;
  const ReflectorOptions options_;
  ReflectorSink& sink_;
  Backoff backoff_;
  std::atomic<int> list_count_{0};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool relist_requested_ = false;
  std::string last_rv_;
  bool last_rv_unavailable_ = false;
  bool watch_list_refused_ = false;
  k8s::WatchStream* active_watch_ = nullptr;
};

}  // namespace rdmastack::runtime
