#pragma once
// A read-only k8s::Client over another whose every answer is made printable before any view sees
// it: each string value and member name of each object it returns passes through Printable (with
// newlines escaped). The text renderers lay out values in lines and columns, so a value must be
// escaped before layout (a newline in a condition message would otherwise print as a line of its
// own that the renderer never wrote); doing it here, on the way in, covers every field of every
// kind the plugin reads, including fields added later. `-o json` reads through the plain client
// (the JSON writer escapes, PrintableJson covers the rest). Writes are refused: the plugin never
// writes.

#include "operator/k8s/client.h"

namespace rdmastack::plugin {

class PrintableClient final : public k8s::Client {
 public:
  explicit PrintableClient(k8s::Client& inner) : inner_(inner) {}

  StatusOr<k8s::JsonObject> Get(const k8s::ResourceType& type, std::string_view ns,
                                std::string_view name, const k8s::GetOptions& options) override;
  StatusOr<k8s::ObjectList> List(const k8s::ResourceType& type, std::string_view ns,
                                 const k8s::ListOptions& options) override;
  StatusOr<k8s::WatchStreamPtr> Watch(const k8s::ResourceType& type, std::string_view ns,
                                      const k8s::WatchOptions& options) override;
  StatusOr<k8s::JsonObject> Create(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                   const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> Update(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                   const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> UpdateStatus(const k8s::ResourceType& type,
                                         const k8s::JsonObject& object,
                                         const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> Patch(const k8s::ResourceType& type, std::string_view ns,
                                  std::string_view name, k8s::PatchType patch_type,
                                  std::string_view body, const k8s::PatchOptions& options) override;
  StatusOr<k8s::JsonObject> PatchStatus(const k8s::ResourceType& type, std::string_view ns,
                                        std::string_view name, k8s::PatchType patch_type,
                                        std::string_view body,
                                        const k8s::PatchOptions& options) override;
  StatusOr<k8s::JsonObject> Delete(const k8s::ResourceType& type, std::string_view ns,
                                   std::string_view name,
                                   const k8s::DeleteOptions& options) override;
  StatusOr<k8s::JsonObject> CreateSubresource(const k8s::ResourceType& type, std::string_view ns,
                                              std::string_view name, std::string_view subresource,
                                              const k8s::JsonObject& body) override;

 private:
  k8s::Client& inner_;
};

// Every string value and member name in `object`, at any depth, made printable.
void MakePrintable(k8s::JsonObject& object);

}  // namespace rdmastack::plugin
