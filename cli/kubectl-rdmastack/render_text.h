#pragma once
// The human renderings of the three views, in kubectl's manner: `get`-style tables (upper-case
// headers, aligned columns, no colour) and `describe`-style blocks for long messages, every line
// kept within kLineWidth columns where the data allows (a long name stays whole). Pure.

#include <string>

#include "cli/kubectl-rdmastack/status_view.h"
#include "cli/kubectl-rdmastack/upgrade_view.h"
#include "cli/kubectl-rdmastack/why_view.h"

namespace rdmastack::plugin {

inline constexpr size_t kLineWidth = 118;

std::string RenderStatusText(const StatusView& view);
std::string RenderWhyText(const WhyView& view);
std::string RenderUpgradeText(const UpgradeView& view);

}  // namespace rdmastack::plugin
