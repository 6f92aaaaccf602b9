#include "agents/client/bench.h"

#include <dlfcn.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "base/duration.h"
#include "base/flag_reader.h"
#include "base/json_parse.h"
#include "base/quantity.h"
#include "base/sha256.h"
#include "lib/s3/s3_client.h"

namespace rdmastack::client {
namespace {

constexpr uint64_t kMinObjectBytes = uint64_t{1} << 10;
constexpr uint64_t kMaxObjectBytes = uint64_t{256} << 20;
// Each stream holds the object it sends and the one it reads back.
constexpr uint64_t kMaxInFlightBytes = uint64_t{1} << 30;
constexpr size_t kMaxEndpointsFileBytes = size_t{1} << 20;
constexpr char kFakeClientSymbol[] = "fake_cuobjclient_major";

Status CheckBucketName(const std::string& bucket) {
  bool ok = bucket.size() >= 3 && bucket.size() <= 63;
  for (char c : bucket) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) ok = false;
  }
  if (ok) return OkStatus();
  return InvalidArgumentError("--bucket \"" + bucket +
                              "\" is not an S3 bucket name (3-63 of a-z, 0-9, '-', '.'); give "
                              "one of the profile's spec.s3User.buckets");
}

Status CheckPrefix(const std::string& prefix) {
  bool ok = !prefix.empty() && prefix.size() <= 200 && prefix.front() != '/' &&
            prefix.back() == '/' && prefix.find("..") == std::string::npos;
  for (unsigned char c : prefix) {
    if (c < 0x21 || c > 0x7e) ok = false;
  }
  if (ok) return OkStatus();
  return InvalidArgumentError("--prefix \"" + prefix +
                              "\" must be up to 200 printable characters without spaces or '..', "
                              "not start with '/' and end with '/'");
}

std::string RandomPrefix() {
  std::random_device random;
  char id[32];
  std::snprintf(id, sizeof(id), "%08x%08x", random(), random());
  return std::string(".rdmastack-bench/") + id + "/";
}

// Every object differs from every other (its first bytes are its key's hash), so a GET that
// answered another object's bytes fails its checksum.
std::string ObjectBody(const std::string& base, const std::string& key) {
  std::string body = base;
  const std::string tag = Sha256(key);
  body.replace(0, std::min(tag.size(), body.size()), tag.substr(0, body.size()));
  return body;
}

std::string BaseBody(uint64_t bytes, uint64_t seed) {
  std::string out(bytes, '\0');
  std::mt19937_64 random(seed);
  for (size_t i = 0; i < out.size(); i += 8) {
    const uint64_t word = random();
    for (size_t b = 0; b < 8 && i + b < out.size(); ++b)
      out[i + b] = static_cast<char>((word >> (8 * b)) & 0xff);
  }
  return out;
}

struct Tally {
  std::atomic<int> ok{0}, verified{0}, failed{0};
  std::mutex mu;
  std::string first_error;
  void Fail(std::string why) {
    failed.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.empty()) first_error = std::move(why);
  }
};

std::string Describe(const std::string& what, const StatusOr<s3::HttpResponse>& r) {
  if (!r.ok()) return what + ": " + r.status().message();
  const std::string code = s3::S3ErrorCode(r->body);
  return what + ": HTTP " + std::to_string(r->status) + (code.empty() ? "" : " " + code);
}

// Runs `streams` threads, each calling `work(stream)`; the wall time in seconds.
double Timed(int streams, const std::function<void(int)>& work) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(streams));
  for (int s = 0; s < streams; ++s) threads.emplace_back(work, s);
  for (std::thread& t : threads) t.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args,
                                         const std::string& node_env,
                                         const std::string& config_dir_env) {
  BenchOptions o;
  o.node = node_env;
  o.config_dir = config_dir_env;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {}));
    const std::string& v = next.value;
    if (next.flag == "--config-dir") {
      o.config_dir = v;
    } else if (next.flag == "--endpoint") {
      o.endpoint = v;
    } else if (next.flag == "--bucket") {
      o.bucket = v;
    } else if (next.flag == "--prefix") {
      o.prefix = v;
    } else if (next.flag == "--node") {
      o.node = v;
    } else if (next.flag == "--size") {
      StatusOr<int64_t> q = ParseByteQuantity(v);
      if (!q.ok()) return InvalidArgumentError("--size: " + q.status().message());
      if (*q < static_cast<int64_t>(kMinObjectBytes) || *q > static_cast<int64_t>(kMaxObjectBytes))
        return InvalidArgumentError("--size " + v + " must be from 1Ki to 256Mi");
      o.object_bytes = static_cast<uint64_t>(*q);
    } else if (next.flag == "--objects-per-stream") {
      const int n = std::atoi(v.c_str());
      if (n < 1 || n > 64 || std::to_string(n) != v)
        return InvalidArgumentError("--objects-per-stream " + v + " must be from 1 to 64");
      o.objects_per_stream = n;
    } else if (next.flag == "--streams") {
      RDMASTACK_ASSIGN_OR_RETURN(o.streams, s3::ParseStreamCounts(v));
    } else if (next.flag == "--timeout") {
      StatusOr<std::chrono::milliseconds> d = ParseDuration(v);
      if (!d.ok() || *d <= std::chrono::milliseconds(0) || *d > std::chrono::minutes(30))
        return InvalidArgumentError("--timeout " + v + " must be a duration above 0, up to 30m");
      o.timeout = *d;
    } else {
      return InvalidArgumentError("unknown flag " + next.flag);
    }
  }
  if (o.bucket.empty())
    return InvalidArgumentError("--bucket is required: one of the profile's s3User buckets");
  RDMASTACK_RETURN_IF_ERROR(CheckBucketName(o.bucket));
  if (o.prefix.empty()) o.prefix = RandomPrefix();
  RDMASTACK_RETURN_IF_ERROR(CheckPrefix(o.prefix));
  if (o.config_dir.empty())
    return InvalidArgumentError(
        "RDMASTACK_CLIENT_CONFIG_DIR is not set: run the bench in a pod labelled "
        "rdmastack.io/client-profile (kubectl rdmastack bench does), or pass --config-dir");
  if (o.object_bytes * static_cast<uint64_t>(o.streams.back()) * 2 > kMaxInFlightBytes)
    return InvalidArgumentError(
        "--size x the largest stream count x 2 (sent and read back) must "
        "stay within 1Gi of memory; use smaller objects or fewer streams");
  return o;
}

std::string CuObjectUnavailable(const std::string& lib_dir) {
  const std::string soname = lib_dir + "/libcuobjclient.so.1";
  if (!std::filesystem::exists(soname))
    return "not available: no libcuobjclient installed for this profile on the node";
  void* handle = ::dlopen(soname.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return std::string("not available: libcuobjclient does not load here (") +
           (why ? why : "unknown") + ")";
  }
  const bool fake = ::dlsym(handle, kFakeClientSymbol) != nullptr;
  ::dlclose(handle);
  if (fake) return "not available: fake client library (the simulated nodes' stand-in)";
  return "not measured: this bench drives HTTP only; measure cuObject with NVIDIA's cuobjtest or "
         "elbencho --cuobj against the same endpoint";
}

StatusOr<BenchTarget> ReadBenchTarget(const BenchOptions& options) {
  const std::string path = options.config_dir + "/endpoints.json";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return NotFoundError("cannot read " + path +
                         ": the profile's client has not written this node's configuration yet "
                         "(is the node Ready in the profile's status?)");
  std::string text(kMaxEndpointsFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxEndpointsFileBytes) return OutOfRangeError(path + " is larger than 1 MiB");
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, text).ok() || !doc.IsObject() || !doc.HasMember("endpoints") ||
      !doc["endpoints"].IsArray())
    return InvalidArgumentError(path + " is not the client's endpoints.json");
  BenchTarget t;
  auto str = [&](const char* key) {
    return doc.HasMember(key) && doc[key].IsString() ? std::string(doc[key].GetString())
                                                     : std::string();
  };
  t.pool = str("pool");
  t.region = str("region");
  if (t.region.empty()) t.region = "us-east-1";
  std::vector<std::string> urls;
  for (const rapidjson::Value& v : doc["endpoints"].GetArray()) {
    if (v.IsString()) urls.emplace_back(v.GetString());
  }
  if (urls.empty()) return FailedPreconditionError(path + " lists no endpoint: no gateway serves");
  std::string url = urls.front();
  if (!options.endpoint.empty()) {
    if (std::find(urls.begin(), urls.end(), options.endpoint) == urls.end())
      return InvalidArgumentError("--endpoint " + options.endpoint + " is not one of the pool's (" +
                                  path + ")");
    url = options.endpoint;
  }
  RDMASTACK_ASSIGN_OR_RETURN(t.endpoint, s3::ParseEndpoint(url));
  const std::string ca = options.config_dir + "/ca-bundle.pem";
  if (t.endpoint.scheme == "https" && std::filesystem::exists(ca)) t.ca_file = ca;
  t.unavailable.emplace_back(std::string(s3::kTransportCuObject),
                             CuObjectUnavailable(options.config_dir + "/lib"));
  return t;
}

s3::BenchReport RunBench(s3::HttpTransport& transport, const Clock& clock,
                         const BenchTarget& target, const s3::Credentials& credentials,
                         const BenchOptions& o) {
  s3::BenchReport report;
  report.node = o.node;
  report.endpoint = target.endpoint.ToString();
  report.pool = target.pool;
  report.bucket = o.bucket;
  report.prefix = o.prefix;
  report.object_bytes = o.object_bytes;
  report.objects_per_stream = o.objects_per_stream;
  report.unavailable = target.unavailable;
  const s3::S3Client client(transport, target.endpoint, credentials, target.region, clock,
                            o.timeout);
  const std::string base = BaseBody(o.object_bytes, 0x5eed);
  std::vector<std::string> written;  // every key a PUT may have made, for the clean-up

  for (int streams : o.streams) {
    // Keys and checksums first: hashing is not what is measured.
    std::vector<std::vector<std::string>> keys(static_cast<size_t>(streams));
    std::vector<std::vector<std::string>> sums(static_cast<size_t>(streams));
    for (int s = 0; s < streams; ++s) {
      for (int j = 0; j < o.objects_per_stream; ++j) {
        const std::string key = o.prefix + "s" + std::to_string(streams) + "-" + std::to_string(s) +
                                "-" + std::to_string(j);
        keys[s].push_back(key);
        sums[s].push_back(Sha256(ObjectBody(base, key)));
        written.push_back(key);
      }
    }
    const int objects = streams * o.objects_per_stream;
    const uint64_t bytes = o.object_bytes * static_cast<uint64_t>(objects);
    const std::string bucket_path = "/" + o.bucket + "/";

    Tally put;
    const double put_seconds = Timed(streams, [&](int s) {
      for (const std::string& key : keys[s]) {
        s3::S3Request r{.method = "PUT", .path = bucket_path + key, .body = ObjectBody(base, key)};
        StatusOr<s3::HttpResponse> got = client.Send(r);
        if (got.ok() && got->status == 200) {
          put.ok.fetch_add(1);
        } else {
          put.Fail(Describe("PUT " + o.bucket + "/" + key, got));
        }
      }
    });
    report.steps.push_back({std::string(s3::kTransportHttp), streams, "PUT", bytes, put_seconds,
                            objects, put.ok.load(), put.failed.load()});

    Tally get;
    const double get_seconds = Timed(streams, [&](int s) {
      for (size_t j = 0; j < keys[s].size(); ++j) {
        s3::S3Request r{.method = "GET", .path = bucket_path + keys[s][j]};
        r.response_limit = {o.object_bytes, s3::BodyLimit::Over::kFail};
        StatusOr<s3::HttpResponse> got = client.Send(r);
        if (!got.ok() || got->status != 200) {
          get.Fail(Describe("GET " + o.bucket + "/" + keys[s][j], got));
        } else if (Sha256(got->body) != sums[s][j]) {
          get.Fail("GET " + o.bucket + "/" + keys[s][j] +
                   ": the body's SHA-256 differs from "
                   "what was PUT (" +
                   std::to_string(got->body.size()) + " bytes)");
        } else {
          get.verified.fetch_add(1);
        }
      }
    });
    report.steps.push_back({std::string(s3::kTransportHttp), streams, "GET", bytes, get_seconds,
                            objects, get.verified.load(), get.failed.load()});
    std::fprintf(stderr, "bench: %d stream%s: PUT %.3f GB/s, GET %.3f GB/s, %d/%d verified\n",
                 streams, streams == 1 ? "" : "s", report.steps[report.steps.size() - 2].GBps(),
                 report.steps.back().GBps(), get.verified.load(), objects);
    if (put.failed > 0 || get.failed > 0) {
      report.error = std::to_string(put.failed + get.failed) + " requests failed at " +
                     std::to_string(streams) + " streams; the first: " +
                     (put.first_error.empty() ? get.first_error : put.first_error);
      break;
    }
  }

  // Clean-up: every key, whatever its PUT answered, then a listing of the prefix.
  for (const std::string& key : written) {
    StatusOr<s3::HttpResponse> got =
        client.Send({.method = "DELETE", .path = "/" + o.bucket + "/" + key});
    if (!got.ok() || (got->status != 204 && got->status != 200 && got->status != 404))
      std::fprintf(stderr, "bench: %s\n", Describe("DELETE " + key, got).c_str());
  }
  s3::S3Request list{.method = "GET", .path = "/" + o.bucket};
  list.query = {{"list-type", "2"}, {"prefix", o.prefix}};
  StatusOr<s3::HttpResponse> listed = client.Send(list);
  if (listed.ok() && listed->status == 200) {
    report.left_behind = static_cast<int>(s3::XmlElementTexts(listed->body, "Key").size());
  } else if (report.error.empty()) {
    report.error = Describe("listing the prefix after the clean-up", listed);
  }
  return report;
}

int BenchCommand(const std::vector<std::string>& args) {
  const char* node = std::getenv("NODE_NAME");
  const char* config_dir = std::getenv("RDMASTACK_CLIENT_CONFIG_DIR");
  StatusOr<BenchOptions> options =
      ParseBenchOptions(args, node ? node : "", config_dir ? config_dir : "");
  if (!options.ok()) {
    std::fprintf(stderr, "rdmastack-client bench: %s\n", options.status().message().c_str());
    return 2;
  }
  const char* access = std::getenv("AWS_ACCESS_KEY_ID");
  const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  if (access == nullptr || secret == nullptr || *access == '\0' || *secret == '\0') {
    std::fprintf(stderr,
                 "rdmastack-client bench: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not "
                 "set: the webhook gives them to pods of a profile with spec.s3User\n");
    return 2;
  }
  StatusOr<BenchTarget> target = ReadBenchTarget(*options);
  if (!target.ok()) {
    std::fprintf(stderr, "rdmastack-client bench: %s\n", target.status().message().c_str());
    return 1;
  }
  s3::BeastHttpTransport transport(s3::TlsOptions{.ca_file = target->ca_file});
  const s3::BenchReport report =
      RunBench(transport, RealClock::Instance(), *target, {access, secret}, *options);
  std::fputs(s3::RenderBenchTable(report).c_str(), stderr);
  std::printf("%s%s\n", std::string(s3::kBenchReportMarker).c_str(),
              s3::BenchReportToJson(report).c_str());
  std::fflush(stdout);
  return report.AllVerified() && report.left_behind == 0 ? 0 : 1;
}

}  // namespace rdmastack::client
