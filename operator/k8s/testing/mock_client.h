#pragma once
// Test doubles for k8s::Client: a GMock mock and a scripted watch stream.

#include <gmock/gmock.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>

#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"

namespace rdmastack::k8s::testing {

class MockClient : public k8s::Client {
 public:
  MOCK_METHOD(StatusOr<k8s::JsonObject>, Get,
              (const k8s::ResourceType&, std::string_view, std::string_view,
               const k8s::GetOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::ObjectList>, List,
              (const k8s::ResourceType&, std::string_view, const k8s::ListOptions&), (override));
  MOCK_METHOD(StatusOr<k8s::WatchStreamPtr>, Watch,
              (const k8s::ResourceType&, std::string_view, const k8s::WatchOptions&), (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, Create,
              (const k8s::ResourceType&, const k8s::JsonObject&, const k8s::WriteOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, Update,
              (const k8s::ResourceType&, const k8s::JsonObject&, const k8s::WriteOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, UpdateStatus,
              (const k8s::ResourceType&, const k8s::JsonObject&, const k8s::WriteOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, Patch,
              (const k8s::ResourceType&, std::string_view, std::string_view, k8s::PatchType,
               std::string_view, const k8s::PatchOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, PatchStatus,
              (const k8s::ResourceType&, std::string_view, std::string_view, k8s::PatchType,
               std::string_view, const k8s::PatchOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, Delete,
              (const k8s::ResourceType&, std::string_view, std::string_view,
               const k8s::DeleteOptions&),
              (override));
  MOCK_METHOD(StatusOr<k8s::JsonObject>, CreateSubresource,
              (const k8s::ResourceType&, std::string_view, std::string_view, std::string_view,
               const k8s::JsonObject&),
              (override));
};

// A watch stream fed by the test. Next() blocks until an event is pushed, End() is called
// (clean end), Fail() is called, or the stream is cancelled.
class FakeWatchStream : public k8s::WatchStream {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<StatusOr<std::optional<k8s::WatchEvent>>> items;
    bool cancelled = false;
  };

  explicit FakeWatchStream(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

  StatusOr<std::optional<k8s::WatchEvent>> Next() override {
    std::unique_lock<std::mutex> l(shared_->mu);
    shared_->cv.wait(l, [&] { return shared_->cancelled || !shared_->items.empty(); });
    if (shared_->cancelled) return CancelledError("watch cancelled");
    auto item = std::move(shared_->items.front());
    shared_->items.pop_front();
    return item;
  }
  void Cancel() override {
    std::lock_guard<std::mutex> l(shared_->mu);
    shared_->cancelled = true;
    shared_->cv.notify_all();
  }

 private:
  std::shared_ptr<Shared> shared_;
};

// The test's handle on the streams it hands out.
class WatchFeed {
 public:
  WatchFeed() : shared_(std::make_shared<FakeWatchStream::Shared>()) {}
  k8s::WatchStreamPtr NewStream() {
    {
      std::lock_guard<std::mutex> l(shared_->mu);
      shared_->cancelled = false;
    }
    return std::make_unique<FakeWatchStream>(shared_);
  }
  void Push(k8s::WatchEventType type, k8s::JsonObject object) {
    Enqueue(std::optional<k8s::WatchEvent>(k8s::WatchEvent{type, std::move(object)}));
  }
  void End() { Enqueue(std::optional<k8s::WatchEvent>()); }
  void Fail(Status s) { Enqueue(std::move(s)); }

 private:
  void Enqueue(StatusOr<std::optional<k8s::WatchEvent>> item) {
    std::lock_guard<std::mutex> l(shared_->mu);
    shared_->items.push_back(std::move(item));
    shared_->cv.notify_all();
  }
  std::shared_ptr<FakeWatchStream::Shared> shared_;
};

// {"apiVersion":"v1","kind":"ConfigMap","metadata":{...}} with the given identity.
inline k8s::JsonObject MakeObject(const std::string& ns, const std::string& name,
                                  const std::string& rv, int64_t generation = 1) {
  k8s::JsonObject o;
  o.SetApiVersion("v1");
  o.SetKind("ConfigMap");
  if (!ns.empty()) o.SetNamespace(ns);
  o.SetName(name);
  o.SetResourceVersion(rv);
  (void)o.SetInt({"metadata", "generation"}, generation);
  (void)o.SetString({"metadata", "uid"}, "uid-" + name);
  return o;
}

// Appends an ownerReferences entry.
inline void AddOwnerReference(k8s::JsonObject& object, const k8s::OwnerReference& ref) {
  k8s::JsonObject r;
  (void)r.SetString({"apiVersion"}, ref.api_version);
  (void)r.SetString({"kind"}, ref.kind);
  (void)r.SetString({"name"}, ref.name);
  (void)r.SetString({"uid"}, ref.uid);
  (void)r.SetBool({"controller"}, ref.controller);
  (void)object.Append({"metadata", "ownerReferences"}, r);
}

inline k8s::ObjectList MakeList(std::vector<k8s::JsonObject> items, const std::string& rv) {
  k8s::ObjectList list;
  list.api_version = "v1";
  list.kind = "ConfigMapList";
  list.resource_version = rv;
  list.items = std::move(items);
  return list;
}

inline Status ApiStatus(int code, const std::string& reason, const std::string& message) {
  return k8s::ApiErrorFromResponse(
             code, R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")" +
                       message + R"(","reason":")" + reason + R"(","code":)" +
                       std::to_string(code) + "}")
      .ToStatus();
}

}  // namespace rdmastack::k8s::testing
