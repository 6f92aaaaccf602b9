#pragma once
// The one test of a PCI address's text, for the agent that reads it from sysfs and for the
// operator that takes it from an agent's report.

#include <string_view>

namespace rdmastack {

// True for "dddd:bb:dd.f" in hexadecimal (domain:bus:device.function).
bool IsPciAddress(std::string_view text);

}  // namespace rdmastack
