#pragma once
// The warning for a status that had to be fitted to its CRD's schema before it could be written
// (crds/schema/status_fit.h): each fit is a bug in the code that computed the status. The same
// problem comes back on every pass, so it is logged once per object until the kind of fix
// changes (or the status needs none for a while and then needs one again).

#include <map>
#include <mutex>
#include <string>

#include "crds/schema/schema_fit.h"

namespace rdmastack::controllers {

class StatusFitLog {
 public:
  // `log_name` starts the line ("gatewaypool").
  explicit StatusFitLog(std::string log_name) : log_name_(std::move(log_name)) {}

  // Logs the fixes `key`'s status took, unless the same kinds were logged for it last. True when
  // it logged.
  bool Report(const std::string& key, const crd::SchemaFixes& fixes);
  // The object is gone.
  void Forget(const std::string& key);

 private:
  const std::string log_name_;
  std::mutex mu_;
  std::map<std::string, std::string> logged_;  // object key -> FixSignature logged last
};

}  // namespace rdmastack::controllers
