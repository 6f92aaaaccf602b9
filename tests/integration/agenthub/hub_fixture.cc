#include "tests/integration/agenthub/hub_fixture.h"

#include <algorithm>
#include <thread>

#include "operator/k8s/config.h"

namespace rdmastack::agenthub::testing {

void RecordingSink::OnAgentConnected(const AgentIdentity& id) {
  Add("connected " + id.node_name + " " + id.pod_name);
}
void RecordingSink::OnReport(const AgentIdentity& id, const pb::NodeReport& report) {
  Add("report " + id.node_name + " " + report.content_hash());
}
void RecordingSink::OnPortCounters(const AgentIdentity& id, const pb::PortCounters& counters) {
  Add("counters " + id.node_name + " " + std::to_string(counters.ports_size()));
}
void RecordingSink::OnHeartbeat(const AgentIdentity& id, std::chrono::system_clock::time_point) {
  Add("heartbeat " + id.node_name);
}
void RecordingSink::OnAgentDisconnected(const AgentIdentity& id) {
  Add("disconnected " + id.node_name + " " + id.pod_name);
}

void RecordingSink::Add(std::string line) {
  std::lock_guard<std::mutex> l(mu_);
  log_.push_back(std::move(line));
  cv_.notify_all();
}

std::vector<std::string> RecordingSink::Log() {
  std::lock_guard<std::mutex> l(mu_);
  return log_;
}

bool RecordingSink::WaitFor(const std::string& line, std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return cv_.wait_for(l, timeout,
                      [&] { return std::find(log_.begin(), log_.end(), line) != log_.end(); });
}

std::string RecordingSink::WaitForPrefix(const std::string& prefix, std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  std::string found;
  cv_.wait_for(l, timeout, [&] {
    for (const auto& line : log_) {
      if (line.rfind(prefix, 0) == 0) {
        found = line;
        return true;
      }
    }
    return false;
  });
  return found;
}

void HubFixture::SetUp() {
  env_ = rdmastack::testing::GetClusterEnv();
  if (env_ == nullptr) return;  // the test body skips
  auto config = k8s::LoadKubeconfig(env_->kubeconfig);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto admin = k8s::NewRestClient(*config);
  ASSERT_TRUE(admin.ok());
  admin_ = std::move(*admin);
  ns_ = rdmastack::testing::UniqueName("agenthub");
  hub_user_agent_ = "agenthub-integration/" + ns_;
  k8s::Config hub_config = *config;
  hub_config.user_agent = hub_user_agent_;
  auto hub_client = k8s::NewRestClient(hub_config);
  ASSERT_TRUE(hub_client.ok());
  hub_client_ = std::move(*hub_client);

  k8s::JsonObject ns;
  ns.SetApiVersion("v1");
  ns.SetKind("Namespace");
  ns.SetName(ns_);
  ASSERT_TRUE(admin_->Create(k8s::kinds::Namespace(), ns).ok());
  CreateServiceAccount(kAgentServiceAccount);

  auto nodes = admin_->List(k8s::kinds::Node(), "");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  std::vector<std::string> names;
  for (const auto& n : nodes->items) names.emplace_back(n.Name());
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 2u) << "the cluster needs two nodes";
  node_a_ = names[0];
  node_b_ = names[1];

  runtime::EventRecorderOptions events;
  events.reporting_controller = "rdmastack.io/agenthub-integration-test";
  events.reporting_instance = ns_;
  events_ = std::make_unique<runtime::ApiEventRecorder>(*hub_client_, RealClock::Instance(), events,
                                                        &metrics_);
  events_->Start();
}

void HubFixture::TearDown() {
  if (hub_) hub_->Stop();
  if (events_) events_->Stop();
  if (admin_) (void)admin_->Delete(k8s::kinds::Namespace(), "", ns_);
}

void HubFixture::StartHub(const std::function<void(AgentHubOptions&)>& adjust) {
  AgentHubOptions o;
  o.listen_address = "127.0.0.1:0";
  o.policy.service_account_namespace = ns_;
  o.policy.service_account_name = kAgentServiceAccount;
  o.certificates.namespace_ = ns_;
  o.certificates.hosts = {"agenthub.test", "127.0.0.1"};
  o.certificates.field_manager = "agenthub-integration-test";
  o.streams.heartbeat_seconds = 7;
  if (adjust) adjust(o);
  hub_ = std::make_unique<AgentHub>(*hub_client_, *hub_client_, *events_, metrics_, sink_,
                                    RealClock::Instance(), o);
  Status s = hub_->Start();
  ASSERT_TRUE(s.ok()) << s.ToString();
}

void HubFixture::CreateServiceAccount(const std::string& name) {
  k8s::JsonObject sa;
  sa.SetApiVersion("v1");
  sa.SetKind("ServiceAccount");
  sa.SetName(name);
  sa.SetNamespace(ns_);
  auto r = admin_->Create(k8s::kinds::ServiceAccount(), sa);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::string HubFixture::CreatePod(const std::string& name, const std::string& node,
                                  const std::string& service_account,
                                  const std::optional<Controller>& controller) {
  auto pod = k8s::JsonObject::Parse(R"({"apiVersion": "v1", "kind": "Pod",
    "spec": {"containers": [{"name": "agent", "image": "rdmastack.invalid/agent:1"}],
             "tolerations": [{"operator": "Exists", "effect": "NoExecute"}]}})");
  EXPECT_TRUE(pod.ok());
  pod->SetName(name);
  pod->SetNamespace(ns_);
  (void)pod->SetString({"spec", "nodeName"}, node);
  (void)pod->SetString({"spec", "serviceAccountName"}, service_account);
  if (controller) {
    auto owner = k8s::JsonObject::Parse(
        R"({"apiVersion": "apps/v1", "kind": "DaemonSet", "controller": true})");
    EXPECT_TRUE(owner.ok());
    (void)owner->SetString({"name"}, controller->daemonset);
    (void)owner->SetString({"uid"}, controller->uid);
    (void)pod->Append({"metadata", "ownerReferences"}, *owner);
    for (const auto& [key, value] : controller->labels) {
      (void)pod->SetString({"metadata", "labels", key}, value);
    }
  }
  auto created = admin_->Create(k8s::kinds::Pod(), *pod);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? std::string(created->Uid()) : "";
}

std::string HubFixture::BoundToken(const std::string& pod, const std::string& uid,
                                   const std::string& audience,
                                   const std::string& service_account) {
  auto body = k8s::JsonObject::Parse(R"({"apiVersion": "authentication.k8s.io/v1",
    "kind": "TokenRequest", "spec": {"expirationSeconds": 600,
    "boundObjectRef": {"kind": "Pod", "apiVersion": "v1"}}})");
  EXPECT_TRUE(body.ok());
  (void)body->SetString({"spec", "boundObjectRef", "name"}, pod);
  (void)body->SetString({"spec", "boundObjectRef", "uid"}, uid);
  k8s::JsonObject audiences = k8s::JsonObject::Array();
  (void)body->Set({"spec", "audiences"}, audiences);
  (void)body->Append({"spec", "audiences"}, *k8s::JsonObject::Parse("\"" + audience + "\""));
  auto r =
      admin_->CreateSubresource(k8s::kinds::ServiceAccount(), ns_, service_account, "token", *body);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->GetString({"status", "token"}).value_or("") : "";
}

std::string HubFixture::PublishedCa() {
  auto cm = admin_->Get(k8s::kinds::ConfigMap(), ns_, "rdmastack-agenthub-ca");
  EXPECT_TRUE(cm.ok()) << cm.status().ToString();
  return cm.ok() ? cm->GetString({"data", "ca.crt"}).value_or("") : "";
}

std::shared_ptr<grpc::Channel> HubFixture::TlsChannel(const std::string& ca_pem) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ca_pem;
  grpc::ChannelArguments args;
  // A channel of its own: a new TCP connection and handshake, not a shared subchannel.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(hub_->port()),
                                   grpc::SslCredentials(ssl), args);
}

AgentCall AgentCall::Open(const std::shared_ptr<grpc::Channel>& channel, const std::string& node,
                          const std::string& token) {
  AgentCall call;
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  call.stub = pb::AgentHub::NewStub(channel);
  call.stream = call.stub->Connect(call.context.get());
  pb::AgentMessage hello;
  hello.mutable_hello()->set_node_name(node);
  hello.mutable_hello()->set_agent_version("0.1.0-test");
  hello.mutable_hello()->set_token(token);
  call.stream->Write(hello);
  return call;
}

grpc::Status AgentCall::Drain() {
  pb::HubMessage m;
  while (stream->Read(&m)) {
  }
  return stream->Finish();
}

pb::AgentMessage Report(const std::string& node, const std::string& hash) {
  pb::AgentMessage m;
  m.mutable_report()->set_node_name(node);
  m.mutable_report()->set_content_hash(hash);
  m.mutable_report()->set_agent_version("0.1.0-test");
  return m;
}

}  // namespace rdmastack::agenthub::testing
