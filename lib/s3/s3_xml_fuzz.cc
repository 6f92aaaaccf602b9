// Fuzzes what the operator reads out of a gateway's S3 answers (XmlElementTexts): whatever the
// bytes, it never crashes, and returns views into the body, never more text than it holds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/s3/s3_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  for (std::string_view tag : {"Name", "Code", "Message", "Key", "Bucket", "AccessKeyId"}) {
    size_t total = 0;
    for (std::string_view text : rdmastack::s3::XmlElementTexts(body, tag)) {
      // Views into the answer itself: nothing is copied, nothing points outside it.
      if (!text.empty() &&
          (text.data() < body.data() || text.data() + text.size() > body.data() + body.size()))
        std::abort();
      total += text.size();
    }
    if (total > body.size()) std::abort();
  }
  return 0;
}
