#include "node/probe/port_counters.h"

namespace rdmastack::node {

const PortCounterSpec* FindPortCounter(std::string_view name) {
  for (const PortCounterSpec& spec : kPortCounters) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace rdmastack::node
