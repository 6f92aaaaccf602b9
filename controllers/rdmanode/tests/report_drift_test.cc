// The agent's report (agenthub.proto NodeReport) and the RdmaNode status are two schemas of one
// set of node facts, joined by FillFacts by hand. This test walks the proto's descriptors, so a
// field added to the report is covered the day it is added: changing any one field of a real
// report must change the RdmaNode status the operator computes from it, unless the field is listed
// below as one the status does not carry, with the reason. A field added to the proto and not to
// FillFacts (or to the CRD) fails here. The report is a lite message (no reflection in the agent),
// so the test walks a dynamic message built from the same .proto (protoc --descriptor_set_out at
// build time) and crosses to the generated type through the wire format.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/json.h"
#include "crds/types/test_support.h"
#include "operator/k8s/config.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::rdmanode {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// NodeReport as a dynamic message type, from the descriptor set the build wrote.
class DynamicReport {
 public:
  DynamicReport() {
    const StatusOr<std::string> bytes = k8s::ReadFileToString(RDMASTACK_AGENTHUB_DESCRIPTORS);
    google::protobuf::FileDescriptorSet set;
    if (!bytes.ok() || !set.ParseFromString(*bytes)) return;
    for (google::protobuf::FileDescriptorProto file : set.file()) {
      file.mutable_options()->clear_optimize_for();  // lite files have no reflection
      pool_.BuildFile(file);
    }
    type_ = pool_.FindMessageTypeByName("rdmastack.agent.v1.NodeReport");
  }
  bool ok() const { return type_ != nullptr; }
  std::unique_ptr<Message> From(const agent::v1::NodeReport& report) {
    std::unique_ptr<Message> m(factory_.GetPrototype(type_)->New());
    m->ParseFromString(report.SerializeAsString());
    return m;
  }
  static agent::v1::NodeReport To(const Message& m) {
    agent::v1::NodeReport report;
    report.ParseFromString(m.SerializeAsString());
    return report;
  }

 private:
  google::protobuf::DescriptorPool pool_;
  google::protobuf::DynamicMessageFactory factory_{&pool_};
  const google::protobuf::Descriptor* type_ = nullptr;
};

// Report fields the RdmaNode status does not hold, and why.
const std::map<std::string, std::string>& NotCarried() {
  static const std::map<std::string, std::string> kFields = {
      {"NodeReport.node_name", "the RdmaNode's name is the node's; the hub checks they agree"},
      {"NodeReport.agent_version", "status.agent comes from the hub's view of the stream (Hello)"},
      {"NodeReport.probed_unix_millis",
       "a time, not a fact: it would change the status each probe"},
  };
  return kFields;
}

// Another value of the same length: values are clipped to the schema's lengths, so a longer one
// might be clipped back to the first.
std::string Other(std::string s) {
  if (s.empty()) return "x";
  s[0] = s[0] == 'x' ? 'y' : 'x';
  return s;
}

// Changes one scalar (or the first element of a repeated scalar, adding one when empty).
void Change(Message* m, const FieldDescriptor* f) {
  const Reflection* r = m->GetReflection();
  if (f->is_repeated()) {
    if (r->FieldSize(*m, f) == 0) {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING: r->AddString(m, f, "changed"); return;
        default: FAIL() << f->full_name() << ": a repeated field of this type is new here";
      }
    }
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetRepeatedString(m, f, 0, Other(r->GetRepeatedString(*m, f, 0)));
        return;
      default: FAIL() << f->full_name() << ": a repeated field of this type is new here";
    }
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: r->SetString(m, f, Other(r->GetString(*m, f))); return;
    case FieldDescriptor::CPPTYPE_INT32: r->SetInt32(m, f, r->GetInt32(*m, f) + 1); return;
    case FieldDescriptor::CPPTYPE_INT64: r->SetInt64(m, f, r->GetInt64(*m, f) + 1); return;
    case FieldDescriptor::CPPTYPE_BOOL: r->SetBool(m, f, !r->GetBool(*m, f)); return;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int n = f->enum_type()->value_count();
      const int at = f->enum_type()->FindValueByNumber(r->GetEnumValue(*m, f))->index();
      r->SetEnumValue(m, f, f->enum_type()->value((at + 1) % n)->number());
      return;
    }
    default: FAIL() << f->full_name() << ": a field of this type is new here";
  }
}

// Every leaf field below `m`, as a path of fields; repeated messages through their first element
// (one is added when the report has none).
void Leaves(Message* m, std::vector<const FieldDescriptor*> path,
            std::vector<std::vector<const FieldDescriptor*>>* out, std::set<std::string>* added) {
  const auto* d = m->GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    path.push_back(f);
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      out->push_back(path);
    } else if (f->is_repeated()) {
      if (m->GetReflection()->FieldSize(*m, f) == 0) {
        added->insert(f->full_name());
        m->GetReflection()->AddMessage(m, f);
      }
      Leaves(m->GetReflection()->MutableRepeatedMessage(m, f, 0), path, out, added);
    } else {
      Leaves(m->GetReflection()->MutableMessage(m, f), path, out, added);
    }
    path.pop_back();
  }
}

// The message that holds the last field of `path` in `report`.
Message* Holder(Message* report, const std::vector<const FieldDescriptor*>& path) {
  Message* m = report;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const Reflection* r = m->GetReflection();
    m = path[i]->is_repeated() ? r->MutableRepeatedMessage(m, path[i], 0)
                               : r->MutableMessage(m, path[i]);
  }
  return m;
}

std::string Name(const std::vector<const FieldDescriptor*>& path) {
  std::string name = path.front()->containing_type()->name();
  for (const FieldDescriptor* f : path) name += "." + f->name();
  return name;
}

// The status the operator computes from `report` (facts, verdicts and the conditions' messages).
crd::RdmaNodeStatus Filled(const agent::v1::NodeReport& report) {
  const Clock::WallTime at{std::chrono::seconds(1'764'576'000)};
  AgentSnapshot agent;
  agent.report = std::make_shared<const agent::v1::NodeReport>(report);
  agent.agent_version = "0.1.0";  // the Hello's
  agent.last_report = agent.last_seen = at;
  agent.connected = true;
  StatusInputs in;
  in.agent = std::move(agent);
  in.now = in.known_since = at;
  in.stale_ttl = std::chrono::seconds(60);
  in.generation = 1;
  return ComputeRdmaNodeStatus(in).status;
}

TEST(ReportDriftTest, EveryReportFieldReachesTheRdmaNodeStatusOrIsListedAsNotCarried) {
  DynamicReport dynamic;
  ASSERT_TRUE(dynamic.ok()) << "no NodeReport in " << RDMASTACK_AGENTHUB_DESCRIPTORS;
  // A GPU node with MOFED and peermem: devices, ports, GIDs, netdevs, GPUs, checks and verdicts.
  std::unique_ptr<Message> base = dynamic.From(
      testing::FixtureReport("gpu-client-h100-peermem-mofed", testing::ClientRequirements("ml/p")));
  std::vector<std::vector<const FieldDescriptor*>> leaves;
  std::set<std::string> added;
  Leaves(base.get(), {}, &leaves, &added);
  ASSERT_GT(leaves.size(), 50u) << "the walk found too few fields; did the report change shape?";
  // Every list of the report has an entry in the fixture, so each field is changed in an entry
  // that FillFacts keeps (an added empty entry may be dropped whatever its fields say).
  EXPECT_TRUE(added.empty()) << "the fixture's report has no " << *added.begin()
                             << "; pick a fixture that has one";
  const crd::RdmaNodeStatus before = Filled(DynamicReport::To(*base));
  std::set<std::string> unchanged;
  for (const auto& path : leaves) {
    std::unique_ptr<Message> changed(base->New());
    changed->CopyFrom(*base);
    Change(Holder(changed.get(), path), path.back());
    if (Filled(DynamicReport::To(*changed)) == before) unchanged.insert(Name(path));
  }
  for (const std::string& name : unchanged) {
    EXPECT_TRUE(NotCarried().contains(name))
        << name << " changes nothing in the RdmaNode status: carry it in FillFacts "
        << "(controllers/rdmanode/rdmanode_status.cc) and the CRD, or list it in NotCarried() "
        << "with the reason";
  }
  for (const auto& [name, why] : NotCarried()) {
    EXPECT_TRUE(unchanged.contains(name))
        << name << " is listed as not carried (" << why << ") but it reaches the status now";
  }
}

// Leaf paths of a status as JSON ("devices[].ports[].gids[].netdev"), objects walked and arrays
// through every element.
void JsonLeaves(const rapidjson::Value& v, const std::string& path, std::set<std::string>* out) {
  if (v.IsObject()) {
    for (const auto& m : v.GetObject())
      JsonLeaves(m.value, path + (path.empty() ? "" : ".") + m.name.GetString(), out);
  } else if (v.IsArray()) {
    for (const auto& item : v.GetArray()) JsonLeaves(item, path + "[]", out);
  } else {
    out->insert(path);
  }
}

// Leaf paths of an OpenAPI schema, in the same form.
void SchemaLeaves(const rapidjson::Value& schema, const std::string& path,
                  std::set<std::string>* out) {
  if (schema.HasMember("properties")) {
    for (const auto& m : schema["properties"].GetObject())
      SchemaLeaves(m.value, path + (path.empty() ? "" : ".") + m.name.GetString(), out);
  } else if (schema.HasMember("items")) {
    SchemaLeaves(schema["items"], path + "[]", out);
  } else {
    out->insert(path);
  }
}

// Status fields no fixture's report fills, and why that is right.
const std::map<std::string, std::string>& NotFromFixtures() {
  static const std::map<std::string, std::string> kFields = {
      {"agent.lastHeartbeatTime", "the hub's heartbeats set it, not a report"},
      {"verdicts.gateway.via", "one Verdict type for the three; only GPU-direct has a via"},
      {"verdicts.hostMemory.via", "one Verdict type for the three; only GPU-direct has a via"},
  };
  return kFields;
}

// The other side: every fact the RdmaNode schema has is filled from some report. Run over every
// node fixture, with a pool's and a profile's requirements, the computed statuses together fill
// each leaf of the CRD's status schema, unless it is listed in NotFromFixtures() with the reason.
TEST(ReportDriftTest, EveryRdmaNodeStatusFieldIsFilledFromSomeReport) {
  agent::v1::Requirements requirements = testing::GatewayRequirements();
  requirements.MergeFrom(testing::ClientRequirements("ml/p"));
  std::set<std::string> filled;
  const std::string nodes = ::rdmastack::testing::SourcePath("tests/fixtures/nodes");
  for (const auto& entry : std::filesystem::directory_iterator(nodes)) {
    if (!std::filesystem::exists(entry.path() / "root")) continue;
    crd::RdmaNode node;
    node.status = Filled(testing::FixtureReport(entry.path().filename(), requirements));
    auto json = k8s::JsonObject::Parse(crd::SerializeStatusPatch(node));
    ASSERT_TRUE(json.ok());
    JsonLeaves(json->value()["status"], "", &filled);
  }
  k8s::JsonObject crd =
      k8s::JsonObject::Parse(
          crd::testing::YamlToJson(crd::testing::FindKind(
              crd::testing::LoadSourceYaml("crds/rdmanodes.yaml"), "CustomResourceDefinition")))
          .value();
  std::set<std::string> schema;
  const rapidjson::Value& versions = crd.value()["spec"]["versions"];
  SchemaLeaves(versions[0]["schema"]["openAPIV3Schema"]["properties"]["status"], "", &schema);
  ASSERT_GT(schema.size(), 50u);
  for (const auto& [leaf, why] : NotFromFixtures())
    EXPECT_TRUE(schema.contains(leaf))
        << leaf << " is listed (" << why << ") but not in the schema";
  for (const std::string& leaf : schema) {
    if (NotFromFixtures().contains(leaf)) continue;
    EXPECT_TRUE(filled.contains(leaf))
        << "status." << leaf << " is filled from no fixture's report: carry it from the report in "
        << "FillFacts, add a fixture that has it, or list it in NotFromFixtures() with the reason";
  }
}

}  // namespace
}  // namespace rdmastack::rdmanode
