#include "controllers/rdmanode/port_counter_metrics.h"

#include <algorithm>
#include <set>
#include <utility>

#include "node/probe/port_counters.h"

namespace rdmastack::rdmanode {

const std::array<PortCounterMetric, 10> kPortCounterMetrics{{
    {"port_xmit_data", "rdmastack_rdma_port_transmit_bytes_total",
     "Bytes the RDMA port sent (the kernel's port_xmit_data, which counts 4-octet units, times "
     "4)."},
    {"port_rcv_data", "rdmastack_rdma_port_receive_bytes_total",
     "Bytes the RDMA port received (port_rcv_data times 4)."},
    {"port_xmit_wait", "rdmastack_rdma_port_transmit_wait_ticks_total",
     "Ticks in which the RDMA port had data to send but no credit to send it (port_xmit_wait)."},
    {"symbol_error", "rdmastack_rdma_port_symbol_errors_total",
     "Minor link errors on the RDMA port's physical lanes (symbol_error)."},
    {"link_error_recovery", "rdmastack_rdma_port_link_error_recoveries_total",
     "Times the RDMA port's link retrained after errors (link_error_recovery)."},
    {"link_downed", "rdmastack_rdma_port_link_downed_total",
     "Times the RDMA port's link failed to recover and went down (link_downed)."},
    {"port_rcv_errors", "rdmastack_rdma_port_receive_errors_total",
     "Packets with errors the RDMA port received (port_rcv_errors)."},
    {"out_of_buffer", "rdmastack_rdma_port_out_of_buffer_drops_total",
     "Packets the RDMA port dropped for want of a posted receive buffer (out_of_buffer)."},
    {"local_ack_timeout_err", "rdmastack_rdma_port_local_ack_timeouts_total",
     "Retransmissions after the sender's ACK timer expired (local_ack_timeout_err)."},
    {"packet_seq_err", "rdmastack_rdma_port_packet_sequence_errors_total",
     "Sequence-error NAKs received, each followed by a retransmission (packet_seq_err)."},
}};

namespace {

// A device name fit for a label value: the kernel's names (mlx5_0, ibp25s0, mlx5_bond_0) are
// short and plain; anything else an agent sends is left out rather than rendered.
bool PlainName(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// The family's index for the agent's counter name; -1 for one the operator does not export.
int FamilyOf(const std::string& counter) {
  for (size_t i = 0; i < kPortCounterMetrics.size(); ++i) {
    if (kPortCounterMetrics[i].counter == counter) return static_cast<int>(i);
  }
  return -1;
}

// Adds one node's series, for at most kMaxPortsPerNode distinct ports.
void AddNode(const std::string& node, const agent::v1::PortCounters& counters,
             std::vector<runtime::SampledFamily>* families) {
  std::set<std::pair<std::string, int>> ports;
  for (const auto& set : counters.ports()) {
    if (!PlainName(set.device()) || set.port() < 1 || set.port() > 255) continue;
    if (!ports.emplace(set.device(), set.port()).second) continue;  // a repeated port
    if (ports.size() > kMaxPortsPerNode) return;
    const std::string number = std::to_string(set.port());
    std::set<int> seen;
    for (const auto& counter : set.counters()) {
      const int family = FamilyOf(counter.name());
      if (family < 0 || !seen.insert(family).second) continue;
      const node::PortCounterSpec* spec = node::FindPortCounter(counter.name());
      const double scale = spec != nullptr ? static_cast<double>(spec->scale) : 1.0;
      (*families)[family].series.push_back(
          {{{"node", node}, {"device", set.device()}, {"port", number}},
           static_cast<double>(counter.value()) * scale});
    }
  }
}

}  // namespace

std::vector<runtime::SampledFamily> PortCounterFamilies(const NodePortCounters& nodes) {
  std::vector<runtime::SampledFamily> families;
  for (const PortCounterMetric& m : kPortCounterMetrics) {
    families.push_back(
        {std::string(m.metric), std::string(m.help), {}, runtime::SampledType::kCounter});
  }
  for (const auto& [node, counters] : nodes) {
    if (counters != nullptr) AddNode(node, *counters, &families);
  }
  return families;
}

runtime::Sampler PortCounterSampler(const AgentStateStore& agents) {
  return [&agents] { return PortCounterFamilies(agents.PortCounters()); };
}

}  // namespace rdmastack::rdmanode
