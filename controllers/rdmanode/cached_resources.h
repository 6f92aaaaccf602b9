#pragma once
// The custom resources of an informer's cache as typed values.

#include <spdlog/spdlog.h>

#include <vector>

#include "crds/types/json.h"
#include "operator/runtime/store.h"

namespace rdmastack::rdmanode {

// Every object in `store` that parses; the schema admits only valid objects, so one that still
// fails (a newer version's field?) is logged and selects nothing.
template <crd::CustomResource T>
std::vector<T> ParseCached(const runtime::Store& store) {
  std::vector<T> out;
  for (const auto& o : store.List()) {
    auto parsed = crd::ParseResource<T>(o->value());
    if (parsed.ok()) {
      out.push_back(std::move(*parsed));
    } else {
      spdlog::warn("{} {}: {}", crd::KindOf<T>(), o->Key(), parsed.status().ToString());
    }
  }
  return out;
}

}  // namespace rdmastack::rdmanode
