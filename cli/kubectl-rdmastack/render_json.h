#pragma once
// `--output json`: one JSON document per command, for scripts. Stable: every key is always
// present (empty string, 0, false, [] or null when there is nothing to say), keys keep their
// order, and nothing depends on the time it is printed (timestamps, not ages). `schemaVersion`
// changes only when a key changes meaning or goes away. docs/plugin.md lists the keys. Pure.

#include <string>

#include "cli/kubectl-rdmastack/status_view.h"
#include "cli/kubectl-rdmastack/upgrade_view.h"
#include "cli/kubectl-rdmastack/why_view.h"

namespace rdmastack::plugin {

inline constexpr int kJsonSchemaVersion = 1;

std::string RenderStatusJson(const StatusView& view);
std::string RenderWhyJson(const WhyView& view);
std::string RenderUpgradeJson(const UpgradeView& view);

}  // namespace rdmastack::plugin
