#include "tests/harness/memory_cgroup.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rdmastack::testing {
namespace {

Status Write(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.close();
  if (!out) return InternalError("cannot write '" + value + "' to " + path);
  return OkStatus();
}

StatusOr<std::string> Read(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value of `key` in a "key value" per line file (memory.events, memory.oom_control).
StatusOr<int64_t> Field(const std::string& path, const std::string& key) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text, Read(path));
  std::istringstream lines(text);
  std::string k;
  int64_t v = 0;
  while (lines >> k >> v) {
    if (k == key) return v;
  }
  return NotFoundError(path + " has no " + key);
}

}  // namespace

StatusOr<std::unique_ptr<MemoryCgroup>> MemoryCgroup::Create(const std::string& name,
                                                             int64_t limit_bytes) {
  namespace fs = std::filesystem;
  const bool v2 = fs::exists("/sys/fs/cgroup/cgroup.controllers");
  const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
  if (!fs::exists(root)) return UnavailableError("no memory cgroup hierarchy at " + root);
  const std::string path = root + "/" + name;
  std::error_code ec;
  fs::create_directory(path, ec);
  if (ec) return InternalError("mkdir " + path + ": " + ec.message());
  std::unique_ptr<MemoryCgroup> cgroup(new MemoryCgroup(path, v2, limit_bytes));
  const std::string limit = std::to_string(limit_bytes);
  if (v2) {
    RDMASTACK_RETURN_IF_ERROR(Write(path + "/memory.max", limit));
    // A container has no swap to spill to.
    (void)Write(path + "/memory.swap.max", "0");
  } else {
    RDMASTACK_RETURN_IF_ERROR(Write(path + "/memory.limit_in_bytes", limit));
    (void)Write(path + "/memory.memsw.limit_in_bytes", limit);
    (void)Write(path + "/memory.move_charge_at_immigrate", "3");
  }
  return cgroup;
}

MemoryCgroup::~MemoryCgroup() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

Status MemoryCgroup::Add(pid_t pid) {
  return Write(path_ + "/cgroup.procs", std::to_string(pid));
}

StatusOr<int64_t> MemoryCgroup::PeakBytes() const {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text,
                             Read(path_ + (v2_ ? "/memory.peak" : "/memory.max_usage_in_bytes")));
  return std::strtoll(text.c_str(), nullptr, 10);
}

StatusOr<int64_t> MemoryCgroup::OomKills() const {
  return Field(path_ + (v2_ ? "/memory.events" : "/memory.oom_control"), "oom_kill");
}

StatusOr<int64_t> ParseMemoryQuantity(const std::string& quantity) {
  static const std::pair<const char*, int64_t> kSuffixes[] = {
      {"Ki", 1LL << 10}, {"Mi", 1LL << 20}, {"Gi", 1LL << 30}, {"Ti", 1LL << 40},
      {"k", 1000},       {"M", 1000000},    {"G", 1000000000}, {"T", 1000000000000}};
  char* end = nullptr;
  const long long value = std::strtoll(quantity.c_str(), &end, 10);
  const std::string suffix(end);
  if (end == quantity.c_str() || value <= 0)
    return InvalidArgumentError("not a memory quantity: '" + quantity + "'");
  if (suffix.empty()) return value;
  for (const auto& [s, factor] : kSuffixes) {
    if (suffix == s) return value * factor;
  }
  return InvalidArgumentError("unknown suffix in memory quantity '" + quantity + "'");
}

}  // namespace rdmastack::testing
