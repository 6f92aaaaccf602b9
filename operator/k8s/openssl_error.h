#pragma once
// OpenSSL's error queue as text for Status messages.

#include <string>

namespace rdmastack::k8s {

// The oldest queued OpenSSL error ("unknown OpenSSL error" when the queue is empty); clears the
// queue so that a later message does not pick up this one.
std::string OpenSslError();

}  // namespace rdmastack::k8s
