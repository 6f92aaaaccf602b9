#include "crds/schema/status_fit.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_parse.h"
#include "crds/schema/crd_schemas.h"

namespace rdmastack::crd {

template <CustomResource T>
StatusOr<FittedStatus<T>> FitStatusPatch(const T& desired) {
  const std::string kind(KindOf<T>());
  if (!desired.status) return InvalidArgumentError(kind + " status patch without a status");
  FittedStatus<T> out;
  out.patch_ = SerializeStatusPatch(desired);
  out.status_ = *desired.status;
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, out.patch_).ok() || !doc.IsObject() || !doc.HasMember("status"))
    return InternalError(kind + " status patch does not read back: " + out.patch_.substr(0, 200));
  RDMASTACK_ASSIGN_OR_RETURN(
      out.fixes_, FitToSchema(StatusSchemaOf(kind), doc["status"], doc.GetAllocator(), "status"));
  if (out.fixes_.empty()) return out;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  out.patch_.assign(buffer.GetString(), buffer.GetSize());
  // Read back the way the informer's copy will be read, so that comparing it with the next
  // computed (and fitted) status finds them equal.
  RDMASTACK_ASSIGN_OR_RETURN(T fitted, ParseResource<T>(static_cast<const rapidjson::Value&>(doc)));
  if (!fitted.status) return InternalError(kind + " fitted status does not read back");
  out.status_ = std::move(*fitted.status);
  return out;
}

template StatusOr<FittedStatus<GatewayPool>> FitStatusPatch(const GatewayPool&);
template StatusOr<FittedStatus<ClientProfile>> FitStatusPatch(const ClientProfile&);
template StatusOr<FittedStatus<RdmaNode>> FitStatusPatch(const RdmaNode&);

}  // namespace rdmastack::crd
