#pragma once
// The checks: pure functions from NodeFacts (+ Requirements) to CheckResults, and the verdicts
// derived from them. No I/O here; probes fill NodeFacts, this file judges it.

#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::node {

Evaluation Evaluate(const NodeFacts& facts, const Requirements& requirements);

// Bytes of BAR1 kept free on top of a transfer. From the field report: on an RTX A6000 with a
// 256 MiB BAR1 (250 MiB free) GPU-direct worked up to 192 MiB and failed from 224 MiB.
inline constexpr int64_t kBar1ReserveBytes = 32LL << 20;
// When NVML is absent, BAR1 free is taken as total minus what the driver itself maps (NVML showed
// 6 MiB used on an idle A6000).
inline constexpr int64_t kBar1DriverBytes = 8LL << 20;
// GPUs with less BAR1 than this can pin only small buffers (spec §5.3, BAR1_SMALL).
inline constexpr int64_t kBar1SmallBytes = 1LL << 30;

}  // namespace rdmastack::node
