#include "crds/types/label_names.h"

#include "base/sha256.h"

namespace rdmastack::crd {

std::string LabelNameStem(std::string_view ns, std::string_view name, size_t reserved) {
  constexpr size_t kLabelNameMax = 63;
  std::string stem = std::string(ns) + "." + std::string(name);
  if (stem.size() + reserved <= kLabelNameMax) return stem;
  const std::string hash = Sha256Hex(std::string(ns) + "/" + std::string(name));
  const size_t keep = kLabelNameMax - reserved - 11;
  std::string cut = stem.substr(0, keep);
  while (!cut.empty() && (cut.back() == '.' || cut.back() == '-' || cut.back() == '_'))
    cut.pop_back();
  return cut + "-" + hash.substr(0, 10);
}

}  // namespace rdmastack::crd
