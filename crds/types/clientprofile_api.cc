#include "crds/types/clientprofile_api.h"

#include "crds/types/label_names.h"

namespace rdmastack::clientprofile {

std::string ClientNodeLabel(std::string_view ns, std::string_view profile) {
  constexpr size_t kNamePrefix = sizeof("client.") - 1;
  return std::string("rdmastack.io/client.") + crd::LabelNameStem(ns, profile, kNamePrefix);
}

}  // namespace rdmastack::clientprofile
