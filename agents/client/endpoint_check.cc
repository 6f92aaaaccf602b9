#include "agents/client/endpoint_check.h"

#include <algorithm>
#include <thread>

#include "lib/s3/readiness_probe.h"
#include "lib/s3/s3_client.h"
#include "node/probe/host_root.h"

namespace rdmastack::client {
namespace {

struct OneResult {
  bool ok = false;
  std::string why;
};

OneResult CheckOne(s3::HttpTransport& transport, const Clock& clock, const std::string& url,
                   const EndpointCheckOptions& options) {
  StatusOr<s3::Endpoint> endpoint = s3::ParseEndpoint(url);
  if (!endpoint.ok()) return {false, endpoint.status().message()};
  s3::S3Client client(transport, *endpoint, options.credentials.value_or(s3::Credentials{}),
                      options.region, clock, options.timeout);
  if (options.credentials) {
    s3::ProbeResult r = s3::RunReadinessProbe(client, kHealthPath);
    return {r.outcome == s3::ProbeOutcome::kHealthy, r.message};
  }
  StatusOr<s3::HttpResponse> health = client.GetUnsigned(kHealthPath, s3::kProbeReadLimit);
  if (!health.ok()) return {false, health.status().message()};
  if (health->status != 200) {
    return {false,
            std::string("GET ") + kHealthPath + " answered HTTP " + std::to_string(health->status)};
  }
  return {true, ""};
}

std::string StripNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

EndpointCheckResult CheckEndpoints(s3::HttpTransport& transport, const Clock& clock,
                                   const std::vector<std::string>& urls, size_t first,
                                   const EndpointCheckOptions& options) {
  EndpointCheckResult out;
  if (urls.empty()) return out;
  out.checked = std::min(urls.size(), options.max_per_pass);
  std::vector<std::string> picked;
  for (size_t i = 0; i < out.checked; ++i) picked.push_back(urls[(first + i) % urls.size()]);
  // In parallel, so a pass takes one timeout however many gateways are down.
  std::vector<OneResult> results(picked.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < picked.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = CheckOne(transport, clock, picked[i], options); });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < picked.size(); ++i) {
    if (results[i].ok) {
      ++out.reachable;
      if (out.first_reachable.empty()) out.first_reachable = picked[i];
    } else if (out.first_failure.empty()) {
      const std::string& why = results[i].why;
      out.first_failure = why.find(picked[i]) != std::string::npos ? why : picked[i] + ": " + why;
    }
  }
  return out;
}

StatusOr<s3::Credentials> ReadCredentialsDir(const std::string& dir) {
  s3::Credentials c;
  for (auto [name, field] : {std::pair{"accessKeyId", &c.access_key_id},
                             std::pair{"secretAccessKey", &c.secret_access_key}}) {
    StatusOr<std::string> text = node::ReadLocalFile(dir + "/" + name, 4096);
    if (!text.ok()) return text.status();
    *field = StripNewlines(*text);
    if (field->empty()) return InvalidArgumentError(dir + "/" + name + " is empty");
  }
  return c;
}

}  // namespace rdmastack::client
