#pragma once
// The one test of a PCI address's (and a PCIe root's) text, for the agent that reads it from
// sysfs and for the operator that takes it from an agent's report.

#include <string_view>

namespace rdmastack {

// True for "dddd:bb:dd.f" in hexadecimal (domain:bus:device.function).
bool IsPciAddress(std::string_view text);

// True for a host bridge's sysfs name, which Kubernetes' DRA attribute
// resource.kubernetes.io/pcieRoot carries: "pci" + a domain of 4 to 8 hex digits (VMD domains
// have 5) + ":" + a 2-digit bus, lower case as sysfs writes it ("pci0000:17").
bool IsPcieRoot(std::string_view text);

}  // namespace rdmastack
