#pragma once
// The plugin tests' cluster: hand-written List documents under tests/fixtures/ that follow the
// CRDs' schemas (fixture_schema_test.cc holds them to it). Two pools (demo/kvcache Ready;
// ml/archive halfway through 1.2.0.68 -> 2.0.0.109 with stg-node-4 failed and stg-node-2's link
// down), two ClientProfiles with ineligible nodes, ten RdmaNodes (gpu-node-3's agent stale) and
// the Nodes that carry archive's per-node upgrade state.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/kubectl-rdmastack/api_errors.h"
#include "cli/kubectl-rdmastack/options.h"
#include "cli/kubectl-rdmastack/snapshot.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::plugin::testing {

// 2026-09-24T10:20:00Z: "now" for every view built from the fixtures.
inline constexpr int64_t kNow = 1790245200;

// The List document tests/fixtures/<file> (e.g. "gatewaypools.json").
k8s::JsonObject LoadFixture(const std::string& file);
// Its items, each with apiVersion and kind set as a client's List returns them.
std::vector<k8s::JsonObject> LoadFixtureItems(const std::string& file);

// The pools, profiles, RdmaNodes and Nodes of the fixtures stored in `api`, each first passed to
// `edit` when given.
void LoadFixtureCluster(k8s::testing::FakeClient& api,
                        const std::function<void(k8s::JsonObject&)>& edit = {});

// The cluster a command says it talked to, and the options of one command line.
inline const ClusterInfo kCluster{"https://127.0.0.1:6443", "kubeconfig /k, context dev"};
Options CommandOptions(Command command, std::string argument = "", std::string ns = "",
                       OutputFormat output = OutputFormat::kTable);

// All three kinds decoded.
Snapshot FixtureSnapshot();

}  // namespace rdmastack::plugin::testing
