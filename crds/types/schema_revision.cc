#include "crds/types/schema_revision.h"

#include <charconv>

namespace rdmastack::crd {

Status CheckInstalledCrds(std::span<const InstalledCrd> installed) {
  std::string problems;
  for (const CrdRevision& built : BuiltCrdRevisions()) {
    const InstalledCrd* have = nullptr;
    for (const InstalledCrd& i : installed) {
      if (i.name == built.name) have = &i;
    }
    std::string problem;
    if (have == nullptr || !have->found) {
      problem = std::string(built.name) + " is not installed";
    } else {
      int revision = 0;
      const std::string text = have->revision.value_or("");
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), revision);
      if (ec != std::errc() || end != text.data() + text.size()) revision = 0;
      if (revision < built.revision) {
        problem = std::string(built.name) + " is at schema revision " +
                  (have->revision ? "'" + text + "'" : std::string("none")) +
                  ", older than this operator's " + std::to_string(built.revision);
      }
    }
    if (!problem.empty()) problems += (problems.empty() ? "" : "; ") + problem;
  }
  if (problems.empty()) return OkStatus();
  return FailedPreconditionError(
      problems +
      ". Helm does not upgrade CRDs: apply this release's (kubectl apply --server-side -f "
      "charts/rdmastack/crds/); the operator leads once they are current");
}

}  // namespace rdmastack::crd
