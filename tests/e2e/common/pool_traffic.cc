#include "tests/e2e/common/pool_traffic.h"

#include <random>

namespace rdmastack::testing {

using namespace std::chrono_literals;

void Traffic::Start() {
  Refresh();
  threads_.emplace_back([this] {
    while (!stop_) {
      Refresh();
      std::this_thread::sleep_for(250ms);
    }
  });
  threads_.emplace_back([this] { Run(); });
}

void Traffic::Stop() {
  stop_ = true;
  for (auto& t : threads_) t.join();
  threads_.clear();
}

std::map<std::string, std::map<std::string, std::string>> Traffic::objects() const {
  std::lock_guard lock(mu_);
  return objects_;
}

std::vector<std::string> Traffic::failures() const {
  std::lock_guard lock(mu_);
  return failures_;
}

std::set<int> Traffic::ports_used() const {
  std::lock_guard lock(mu_);
  return ports_used_;
}

void Traffic::Refresh() {
  std::vector<SliceEndpoint> ready;
  for (const auto& e : ReadEndpoints(env_, ns_, pool_)) {
    if (e.ready) ready.push_back(e);
  }
  if (ready.empty()) return;  // a failed read keeps the last answer, as a client's cache would
  std::lock_guard lock(mu_);
  endpoints_ = std::move(ready);
}

std::vector<SliceEndpoint> Traffic::endpoints() const {
  std::lock_guard lock(mu_);
  return endpoints_;
}

void Traffic::Run() {
  s3::BeastHttpTransport transport(s3::TlsOptions{.ca_pem = ca_pem_});
  const std::string scheme = ca_pem_.empty() ? "http" : "https";
  std::mt19937 rng(42);
  for (int64_t n = 0; !stop_; ++n) {
    SliceEndpoint e;
    {
      std::lock_guard lock(mu_);
      if (endpoints_.empty()) continue;
      e = endpoints_[n % endpoints_.size()];
      ports_used_.insert(e.port);
    }
    s3::S3Client client(transport, s3::Endpoint{scheme, e.ip, static_cast<uint16_t>(e.port)},
                        {kSeedAccessKey, kSeedSecretKey}, "us-east-1", RealClock::Instance(), 5s);
    const std::string bucket = "/" + ns_ + "-" + e.node;
    const std::string key = bucket + "/object-" + std::to_string(n);
    const std::string body = RandomBytes(4096 + rng() % 8192);
    auto put = client.Send({.method = "PUT", .path = key, .body = body});
    ++requests_;
    if (!put.ok() || put->status != 200) {
      Fail("PUT " + key + " via " + e.ip + ":" + std::to_string(e.port) + ": " +
           (put.ok() ? std::to_string(put->status) + " " + put->body : put.status().ToString()));
      continue;
    }
    auto got = client.Send({.method = "GET", .path = key});
    ++requests_;
    if (!got.ok() || got->status != 200 || got->body != body) {
      Fail("GET " + key + " via " + e.ip + ":" + std::to_string(e.port) + ": " +
           (got.ok() ? std::to_string(got->status) : got.status().ToString()));
      continue;
    }
    std::lock_guard lock(mu_);
    objects_[e.node][key] = body;
  }
}

void Traffic::Fail(std::string what) {
  std::lock_guard lock(mu_);
  failures_.push_back(std::move(what));
}

}  // namespace rdmastack::testing
