#pragma once
// A read-only k8s::Client over another whose every answer is made printable before any view sees
// it: each string value and member name of each object it returns passes through Printable (with
// newlines escaped). The text renderers lay out values in lines and columns, so a value must be
// escaped before layout (a newline in a condition message would otherwise print as a line of its
// own that the renderer never wrote); doing it here, on the way in, covers every field of every
// kind the plugin reads, including fields added later. `-o json` reads through the plain client
// (the JSON writer escapes, PrintableJson covers the rest). Writes are refused: the plugin never
// writes.

#include <functional>

#include "operator/k8s/forwarding_client.h"

namespace rdmastack::plugin {

class PrintableClient final : public k8s::ForwardingClient {
 public:
  explicit PrintableClient(k8s::Client& inner) : ForwardingClient(inner) {}

  StatusOr<k8s::JsonObject> Get(const k8s::ResourceType& type, std::string_view ns,
                                std::string_view name, const k8s::GetOptions& options) override;
  StatusOr<k8s::ObjectList> List(const k8s::ResourceType& type, std::string_view ns,
                                 const k8s::ListOptions& options) override;

 private:
  // Gets and lists pass; watches and every write are refused.
  Status Around(const k8s::ApiCall& call, const std::function<Status()>& call_inner) override;
};

// Every string value and member name in `object`, at any depth, made printable.
void MakePrintable(k8s::JsonObject& object);

}  // namespace rdmastack::plugin
