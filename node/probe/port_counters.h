#pragma once
// The port counters the agent reports, out of the many a device keeps below
// sys/class/infiniband/<dev>/ports/<n>/: the few an operator reads first (traffic and transmit
// waits, link health, receive-buffer drops, retransmissions). Few on purpose: the operator exports
// each one as a series per node and port (docs/operations.md "Metrics"), so every row here is
// thousands of series in a large cluster.

#include <array>
#include <cstdint>
#include <string_view>

namespace rdmastack::node {

struct PortCounterSpec {
  std::string_view name;       // the file's name, as the kernel names it
  std::string_view directory;  // "counters" (the IB port counters) | "hw_counters" (the driver's)
  // What one unit of the kernel's count is worth in bytes: port_xmit_data and port_rcv_data count
  // octets divided by 4 (Documentation/ABI/stable/sysfs-class-infiniband); 1 for event counts.
  uint64_t scale;
};

inline constexpr std::array<PortCounterSpec, 10> kPortCounters{{
    {"port_xmit_data", "counters", 4},
    {"port_rcv_data", "counters", 4},
    {"port_xmit_wait", "counters", 1},
    {"symbol_error", "counters", 1},
    {"link_error_recovery", "counters", 1},
    {"link_downed", "counters", 1},
    {"port_rcv_errors", "counters", 1},
    {"out_of_buffer", "hw_counters", 1},
    {"local_ack_timeout_err", "hw_counters", 1},
    {"packet_seq_err", "hw_counters", 1},
}};

// The row of `name`, or null for a counter the agent does not read.
const PortCounterSpec* FindPortCounter(std::string_view name);

}  // namespace rdmastack::node
