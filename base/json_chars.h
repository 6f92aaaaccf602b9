#pragma once
// RapidJSON asserts on a null pointer even for a string of length 0, and an empty
// std::string_view (an absent field, a default argument) may hold one: the must-gather fuzzer
// crashed the plugin that way on a Secret without a namespace. Every string handed to RapidJSON
// as pointer and length goes through JsonChars.

#include <string_view>

namespace rdmastack {

inline const char* JsonChars(std::string_view s) {
  return s.data() != nullptr ? s.data() : "";
}

}  // namespace rdmastack
