#include "lib/s3/bench_report.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "base/json_parse.h"

namespace rdmastack::s3 {
namespace {

std::string Fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

std::string Size(uint64_t bytes) {
  constexpr uint64_t kMi = uint64_t{1} << 20, kKi = uint64_t{1} << 10;
  if (bytes >= kMi && bytes % kMi == 0) return std::to_string(bytes / kMi) + " MiB";
  if (bytes >= kKi && bytes % kKi == 0) return std::to_string(bytes / kKi) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string Pad(std::string text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

const BenchStep* Find(const BenchReport& r, std::string_view transport, int streams,
                      std::string_view op) {
  for (const BenchStep& s : r.steps) {
    if (s.transport == transport && s.streams == streams && s.op == op) return &s;
  }
  return nullptr;
}

// The transports measured, HTTP first, in the order they first appear otherwise.
std::vector<std::string> Transports(const BenchReport& r) {
  std::vector<std::string> out;
  for (const BenchStep& s : r.steps) {
    if (std::find(out.begin(), out.end(), s.transport) == out.end()) out.push_back(s.transport);
  }
  std::stable_partition(out.begin(), out.end(),
                        [](const std::string& t) { return t == kTransportHttp; });
  return out;
}

std::string Checksums(const BenchStep* put, const BenchStep* get) {
  if (get == nullptr) return put != nullptr && put->failed == 0 ? "PUT only" : "failed";
  std::string text =
      std::to_string(get->verified) + "/" + std::to_string(get->objects) + " verified";
  const int failed = get->failed + (put != nullptr ? put->failed : 0);
  if (failed > 0) text += ", " + std::to_string(failed) + " FAILED";
  return text;
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Key(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

std::string GetString(const rapidjson::Value& v, const char* key) {
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : std::string();
}

int64_t GetInt(const rapidjson::Value& v, const char* key, int64_t fallback) {
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : fallback;
}

}  // namespace

bool BenchReport::AllVerified() const {
  bool any_get = false;
  for (const BenchStep& s : steps) {
    if (s.failed > 0) return false;
    if (s.op == "GET") {
      any_get = true;
      if (s.verified != s.objects) return false;
    }
  }
  return any_get && error.empty();
}

StatusOr<std::vector<int>> ParseStreamCounts(std::string_view text) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view word = text.substr(start, comma - start);
    int value = 0;
    bool digits = !word.empty() && word.size() <= 3;
    for (char c : word) {
      if (c < '0' || c > '9') digits = false;
      if (digits) value = value * 10 + (c - '0');
    }
    if (!digits || value < 1 || value > 256)
      return InvalidArgumentError("--streams \"" + std::string(text) +
                                  "\": each count must be a number from 1 to 256, e.g. 1,2,4,8");
    if (!out.empty() && value <= out.back())
      return InvalidArgumentError("--streams \"" + std::string(text) +
                                  "\": give the counts in ascending order, each once");
    out.push_back(value);
    start = comma + 1;
  }
  if (out.size() > 16) return InvalidArgumentError("--streams: at most 16 stream counts");
  return out;
}

std::optional<int> Knee(const BenchReport& report, std::string_view transport, std::string_view op,
                        double gain) {
  std::vector<const BenchStep*> steps;
  for (const BenchStep& s : report.steps) {
    if (s.transport == transport && s.op == op) steps.push_back(&s);
  }
  std::sort(steps.begin(), steps.end(),
            [](const BenchStep* a, const BenchStep* b) { return a->streams < b->streams; });
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    const double now = steps[i]->GBps(), next = steps[i + 1]->GBps();
    if (next < now * (1.0 + gain)) return steps[i]->streams;
  }
  return std::nullopt;
}

std::string RenderBenchTable(const BenchReport& r) {
  std::string out = "node " + r.node + " -> " + r.endpoint + " (pool " + r.pool + ")\n" +
                    "bucket " + r.bucket + ", prefix " + r.prefix + ", " + Size(r.object_bytes) +
                    " objects, " + std::to_string(r.objects_per_stream) + " per stream\n\n";
  const std::vector<std::string> transports = Transports(r);
  std::set<int> counts;
  for (const BenchStep& s : r.steps) counts.insert(s.streams);

  out += "TRANSPORT  STREAMS  PUT GB/s  GET GB/s  CHECKSUMS\n";
  for (const std::string& t : transports) {
    for (int n : counts) {
      const BenchStep* put = Find(r, t, n, "PUT");
      const BenchStep* get = Find(r, t, n, "GET");
      if (put == nullptr && get == nullptr) continue;
      out += Pad(t, 9, false) + "  " + Pad(std::to_string(n), 7, true) + "  " +
             Pad(put ? Fixed(put->GBps(), 3) : "-", 8, true) + "  " +
             Pad(get ? Fixed(get->GBps(), 3) : "-", 8, true) + "  " + Checksums(put, get) + "\n";
    }
  }
  for (const auto& [t, why] : r.unavailable) {
    out += Pad(t, 9, false) + "  " + Pad("-", 7, true) + "  " + Pad("-", 8, true) + "  " +
           Pad("-", 8, true) + "  " + why + "\n";
  }
  out += "\n";
  for (const std::string& t : transports) {
    std::string knee = "knee (" + t + "):";
    for (const char* op : {"PUT", "GET"}) {
      std::optional<int> k = Knee(r, t, op);
      knee += std::string(" ") + op + " " +
              (k                   ? "at " + std::to_string(*k) + " stream" + (*k == 1 ? "" : "s")
               : counts.size() < 2 ? std::string("needs two stream counts")
                                   : "beyond " + std::to_string(*counts.rbegin()) + " streams");
      if (std::string(op) == "PUT") knee += ",";
    }
    out += knee + " (the next count adds less than 10%)\n";
  }
  bool ratio = false;
  for (int n : counts) {
    const BenchStep* hp = Find(r, kTransportHttp, n, "PUT");
    const BenchStep* hg = Find(r, kTransportHttp, n, "GET");
    const BenchStep* rp = Find(r, kTransportCuObject, n, "PUT");
    const BenchStep* rg = Find(r, kTransportCuObject, n, "GET");
    if (!hp || !hg || !rp || !rg || hp->GBps() <= 0 || hg->GBps() <= 0) continue;
    out += "RDMA/HTTP at " + std::to_string(n) + " stream" + (n == 1 ? "" : "s") + ": PUT " +
           Fixed(rp->GBps() / hp->GBps(), 2) + "x, GET " + Fixed(rg->GBps() / hg->GBps(), 2) +
           "x\n";
    ratio = true;
  }
  if (!ratio) out += "RDMA/HTTP: not measured (no cuObject rows)\n";
  if (r.left_behind == 0) {
    out += "clean-up: every object of the run removed; nothing left under the prefix\n";
  } else if (r.left_behind > 0) {
    out += "clean-up: " + std::to_string(r.left_behind) + " objects left under " + r.bucket + "/" +
           r.prefix + " (remove them by hand)\n";
  }
  if (!r.error.empty()) out += "stopped early: " + r.error + "\n";
  return out;
}

std::string BenchReportToJson(const BenchReport& r) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Key(w, "node", r.node);
  Key(w, "endpoint", r.endpoint);
  Key(w, "pool", r.pool);
  Key(w, "bucket", r.bucket);
  Key(w, "prefix", r.prefix);
  w.Key("objectBytes");
  w.Uint64(r.object_bytes);
  w.Key("objectsPerStream");
  w.Int(r.objects_per_stream);
  w.Key("steps");
  w.StartArray();
  for (const BenchStep& s : r.steps) {
    w.StartObject();
    Key(w, "transport", s.transport);
    w.Key("streams");
    w.Int(s.streams);
    Key(w, "op", s.op);
    w.Key("bytes");
    w.Uint64(s.bytes);
    w.Key("seconds");
    w.Double(s.seconds);
    w.Key("objects");
    w.Int(s.objects);
    w.Key("verified");
    w.Int(s.verified);
    w.Key("failed");
    w.Int(s.failed);
    w.Key("gbps");
    w.Double(s.GBps());
    w.EndObject();
  }
  w.EndArray();
  w.Key("unavailable");
  w.StartArray();
  for (const auto& [t, why] : r.unavailable) {
    w.StartObject();
    Key(w, "transport", t);
    Key(w, "reason", why);
    w.EndObject();
  }
  w.EndArray();
  w.Key("leftBehind");
  w.Int(r.left_behind);
  Key(w, "error", r.error);
  w.Key("allVerified");
  w.Bool(r.AllVerified());
  w.EndObject();
  return buffer.GetString();
}

StatusOr<BenchReport> BenchReportFromJson(std::string_view json) {
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, json).ok() || !doc.IsObject())
    return InvalidArgumentError("the bench report is not a JSON object");
  // Read through a const view: clang rejects comparing a Document's mutable member iterators.
  const rapidjson::Value& root = doc;
  BenchReport r;
  r.node = GetString(root, "node");
  r.endpoint = GetString(root, "endpoint");
  r.pool = GetString(root, "pool");
  r.bucket = GetString(root, "bucket");
  r.prefix = GetString(root, "prefix");
  r.object_bytes = static_cast<uint64_t>(std::max<int64_t>(0, GetInt(root, "objectBytes", 0)));
  r.objects_per_stream = static_cast<int>(GetInt(root, "objectsPerStream", 0));
  r.left_behind = static_cast<int>(GetInt(root, "leftBehind", -1));
  r.error = GetString(root, "error");
  auto steps = root.FindMember("steps");
  if (steps == root.MemberEnd() || !steps->value.IsArray())
    return InvalidArgumentError("the bench report has no steps array");
  for (const rapidjson::Value& v : steps->value.GetArray()) {
    if (!v.IsObject()) return InvalidArgumentError("a bench step is not an object");
    BenchStep s;
    s.transport = GetString(v, "transport");
    s.op = GetString(v, "op");
    s.streams = static_cast<int>(GetInt(v, "streams", 0));
    s.bytes = static_cast<uint64_t>(std::max<int64_t>(0, GetInt(v, "bytes", 0)));
    auto seconds = v.FindMember("seconds");
    s.seconds =
        seconds != v.MemberEnd() && seconds->value.IsNumber() ? seconds->value.GetDouble() : 0;
    s.objects = static_cast<int>(GetInt(v, "objects", 0));
    s.verified = static_cast<int>(GetInt(v, "verified", 0));
    s.failed = static_cast<int>(GetInt(v, "failed", 0));
    if (s.transport.empty() || (s.op != "PUT" && s.op != "GET") || s.streams < 1)
      return InvalidArgumentError("a bench step lacks its transport, op or stream count");
    r.steps.push_back(std::move(s));
  }
  auto unavailable = root.FindMember("unavailable");
  if (unavailable != root.MemberEnd() && unavailable->value.IsArray()) {
    for (const rapidjson::Value& v : unavailable->value.GetArray()) {
      if (v.IsObject())
        r.unavailable.emplace_back(GetString(v, "transport"), GetString(v, "reason"));
    }
  }
  return r;
}

StatusOr<BenchReport> BenchReportFromLog(std::string_view log) {
  const size_t at = log.rfind(kBenchReportMarker);
  if (at == std::string_view::npos || (at > 0 && log[at - 1] != '\n'))
    return NotFoundError("the bench pod's log holds no report line (\"" +
                         std::string(kBenchReportMarker) + "...\")");
  std::string_view line = log.substr(at + kBenchReportMarker.size());
  line = line.substr(0, line.find('\n'));
  return BenchReportFromJson(line);
}

}  // namespace rdmastack::s3
