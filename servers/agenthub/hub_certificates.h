#pragma once
// Where the hub's TLS identity comes from, and how it stays valid:
// - a user Secret (default rdmastack-agenthub-tls: tls.crt, tls.key, ca.crt), used as it is and
//   re-read every check interval; or, when it does not exist,
// - a CA and a serving certificate the operator makes (ECDSA P-256) and keeps in its own Secret
//   (default rdmastack-agenthub-generated-tls: ca.crt, ca.key, tls.crt, tls.key), renewing the
//   serving certificate once 2/3 of its validity has passed or the names changed.
// Either way the CA bundle is published in a ConfigMap (default rdmastack-agenthub-ca, key ca.crt)
// that the agent DaemonSet mounts, and the current key and certificate are written to one local
// file that gRPC's FileWatcherCertificateProvider re-reads: new handshakes get the new
// certificate, connected agents keep their connection.
//
// Reads go through `reader`, writes through `writer` (the leader-fenced client); nothing is
// written when nothing changed, so a restart writes nothing.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "crds/types/label_names.h"
#include "operator/k8s/client.h"
#include "servers/agenthub/hub_pki.h"

namespace rdmastack::agenthub {

struct HubCertificateOptions {
  std::string namespace_;  // of the Secrets and the ConfigMap (the operator's namespace)
  std::string user_secret = "rdmastack-agenthub-tls";
  std::string generated_secret = "rdmastack-agenthub-generated-tls";
  std::string ca_config_map = "rdmastack-agenthub-ca";
  // Names in the generated serving certificate (DNS names and IP literals), e.g. the hub
  // Service's DNS names; the agents' --tls-server-name (or the host of --hub) must be one.
  std::vector<std::string> hosts;
  std::chrono::seconds ca_validity = std::chrono::hours(24 * 365 * 10);
  std::chrono::seconds serving_validity = std::chrono::hours(24 * 90);
  double renew_fraction = 2.0 / 3.0;
  Clock::Duration check_interval = std::chrono::minutes(1);
  // Directory for the key+certificate file; "" = a fresh private directory under $TMPDIR.
  std::string identity_dir;
  std::string field_manager = crd::kFieldManager;
  // The same machinery serves the pod admission webhook (controllers/workload): its own Secrets,
  // a CA named for it, and the CA bundle published somewhere other than a ConfigMap.
  std::string ca_common_name = "rdmastack-agenthub-ca";
  std::string log_name = "agenthub";
  // When set, called instead of writing ca_config_map; should write nothing when nothing changed.
  std::function<Status(const std::string& ca_pem)> publish_ca;
  // When set, called after the serving key and certificate changed (and on the first pass).
  std::function<void(const KeyAndCertificate&)> on_identity_change;
};

class HubCertificates {
 public:
  HubCertificates(k8s::Client& reader, k8s::Client& writer, Clock& clock,
                  HubCertificateOptions options);
  ~HubCertificates();
  HubCertificates(const HubCertificates&) = delete;
  HubCertificates& operator=(const HubCertificates&) = delete;

  // One pass: read the user Secret or load/create/renew the generated one, publish the CA
  // bundle, write the identity file when it changed. Thread-safe.
  Status Reconcile();
  // Reconcile once (an error means there is nothing to serve with), then again every
  // check_interval on a thread until Stop(). Later failures are logged and retried.
  Status Start();
  // Only the periodic checks, for a caller that made its first Reconcile itself.
  void StartChecking();
  void Stop();

  // Private key then certificate chain, PEM, in one file (mode 0600): gRPC's file watcher reads a
  // key and a chain from two paths at different moments, so a key and certificate replaced
  // together could be read half old, half new; one file replaced by rename cannot.
  std::string identity_file() const;
  std::string ca_pem() const;
  std::string cert_pem() const;
  // "Secret <ns>/<name>" of the material in use.
  std::string source() const;

 private:
  struct Material {
    KeyAndCertificate serving;
    std::string ca_pem;
    std::string source;
  };
  StatusOr<std::optional<Material>> FromUserSecret();
  StatusOr<Material> FromGeneratedSecret();
  Status PublishCa(const std::string& ca_pem);
  Status WriteIdentity(const Material& material);
  void Loop();

  k8s::Client& reader_;
  k8s::Client& writer_;
  Clock& clock_;
  const HubCertificateOptions options_;
  std::string dir_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  Material current_;
  bool stopping_ = false;
  std::thread thread_;
  std::mutex reconcile_mu_;  // one Reconcile at a time
};

}  // namespace rdmastack::agenthub
