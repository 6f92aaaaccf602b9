// The agent's facts (node/probe/facts.h), its report (agenthub.proto NodeReport) and the RdmaNode
// status are three schemas of one set of node facts, joined by hand in two places: BuildNodeReport
// (agents/node-agent/daemon/report_proto.cc) and FillFacts. The facts and the status are described
// by field tables, the report by its descriptors, and these tests walk them, so a field added on
// one side is covered the day it is added:
// - changing any one field of the facts (or of the checks and verdicts) must change the report,
//   and every field of the report must be changed by some field of the facts, unless listed below
//   with the reason (a fact added to facts.h and not sent, or a report field set from no fact);
// - changing any one field of a real report must change the RdmaNode status the operator computes
//   from it, unless listed below as one the status does not carry, with the reason. A field added
//   to the proto and not to FillFacts (or to the CRD) fails here.
// The report is a lite message (no reflection in the agent), so the tests walk a dynamic message
// built from the same .proto (protoc --descriptor_set_out at build time) and cross to the generated
// type through the wire format.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "agents/node-agent/daemon/report_proto.h"
#include "base/field_table.h"
#include "base/json_fields.h"
#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/json.h"
#include "crds/types/test_support.h"
#include "node/checks/check_fields.h"
#include "node/checks/checks.h"
#include "node/probe/facts_fields.h"
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
  agent::v1::NodeReport report =
      testing::FixtureReport("gpu-client-h100-peermem-mofed", testing::ClientRequirements("ml/p"));
  // The bridges ACS redirects on are carried only with acs_redirect "yes", which no fixture with
  // everything else has: set here, so that both fields are walked where they count.
  ASSERT_GT(report.gpus_size(), 0);
  report.mutable_gpus(0)->set_acs_redirect("yes");
  report.mutable_gpus(0)->add_acs_redirect_bridges("0000:11:00.0");
  // Likewise a Data Direct function, which only the ConnectX-8 trays have.
  report.mutable_gpus(0)->set_nearest_nic_via("0000:12:00.1");
  std::unique_ptr<Message> base = dynamic.From(report);
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

// ---- The agent's side: NodeFacts (and the evaluation) -> NodeReport ----

// What BuildNodeReport reads: the facts and one evaluation of them.
struct AgentSide {
  node::NodeFacts facts;
  node::Evaluation evaluation;
};

agent::v1::NodeReport ReportOf(const AgentSide& side) {
  agent::v1::NodeReport report =
      agent::BuildNodeReport(side.facts, {{"ml/p", side.evaluation}}, "node-0");
  report.clear_content_hash();  // a hash of the rest: it would change with every field
  return report;
}

// Fields of the facts and the evaluation the report does not carry, and why. An entry names a
// field or a struct or list, which covers every field below it.
const std::map<std::string, std::string>& NotSent() {
  static const char kDerived[] = "derived from a fact the report carries";
  static const char kChecked[] = "read on the node by the checks, whose results the report carries";
  static const char kHuman[] =
      "for a human reading the agent's own JSON report (docs/agent.md); nothing in the operator "
      "decides on it";
  static const char kHostPath[] = "a sysfs path on the agent's host, for the probes";
  static const std::map<std::string, std::string> kFields = {
      {"NodeFacts.root", "where the agent read the facts (a fixture tree in tests), not a fact"},
      {"NodeFacts.kernel.major", kDerived},
      {"NodeFacts.kernel.minor", kDerived},
      {"NodeFacts.drivers.ofedVersion", kChecked},
      {"NodeFacts.drivers.ibCoreFlavorSignals", kChecked},
      {"NodeFacts.drivers.peerMemoryApi", kChecked},
      {"NodeFacts.drivers.nvidiaPeermemInstalled", "read on the node by the client's plan"},
      {"NodeFacts.drivers.devInfinibandReadable", kChecked},
      {"NodeFacts.drivers.modules[].taint", kHuman},
      {"NodeFacts.drivers.moduleFiles[].name", kChecked},
      {"NodeFacts.drivers.moduleFiles[].loadedSrcversion", kChecked},
      {"NodeFacts.drivers.moduleFiles[].path", kChecked},
      {"NodeFacts.drivers.moduleFiles[].fileSrcversion", kChecked},
      {"NodeFacts.drivers.moduleFiles[].notRead", kChecked},
      {"NodeFacts.rdmaDevices[].pciPath", kHostPath},
      {"NodeFacts.rdmaDevices[].ports[].counters",
       "sent apart, in PortCounters (BuildPortCounters): they move every probe of a busy port, "
       "and only metrics read them"},
      {"NodeFacts.rdmaDevices[].generationRank", kDerived},
      {"NodeFacts.rdmaDevices[].software", kChecked},
      {"NodeFacts.rdmaDevices[].hcaType", kHuman},
      {"NodeFacts.rdmaDevices[].uverbs", kChecked},
      {"NodeFacts.rdmaDevices[].dmaBufSupported", kChecked},
      {"NodeFacts.rdmaDevices[].dmaBufDetail", kChecked},
      {"NodeFacts.rdmaDevices[].dataDirect", kChecked},
      {"NodeFacts.rdmaDevices[].dataDirectPci", "the report carries it per GPU (nearest_nic_via)"},
      {"NodeFacts.rdmaDevices[].dataDirectDetail", kChecked},
      {"NodeFacts.rdmaDevices[].dataDirectPath", kHostPath},
      {"NodeFacts.rdmaDevices[].dataDirectNumaNode", kChecked},
      {"NodeFacts.dataDirectFunctions", kChecked},
      {"NodeFacts.rdmaDevices[].ports[].stateCode", kDerived},
      {"NodeFacts.rdmaDevices[].ports[].physicalStateCode", kDerived},
      {"NodeFacts.rdmaDevices[].ports[].lid", kChecked},
      {"NodeFacts.rdmaDevices[].ports[].smLid", kChecked},
      {"NodeFacts.rdmaDevices[].ports[].activeMtuSource", kChecked},
      {"NodeFacts.netdevs[].type", kHuman},
      {"NodeFacts.netdevs[].address", kHuman},
      {"NodeFacts.netdevs[].pciAddress", kHuman},
      {"NodeFacts.netdevs[].master", kHuman},
      {"NodeFacts.netdevs[].lower", kHuman},
      {"NodeFacts.netdevs[].slaves", kHuman},
      {"NodeFacts.netdevs[].activeSlave", kHuman},
      {"NodeFacts.netdevs[].ipv4[].address", kDerived},
      {"NodeFacts.netdevs[].ipv4[].gidIndex", kChecked},
      {"NodeFacts.gpus[].pciPath", kHostPath},
      {"NodeFacts.gpus[].architecture", kHuman},
      {"NodeFacts.gpus[].turingOrNewer", kChecked},
      {"NodeFacts.gpus[].bar1Source", kHuman},
      {"NodeFacts.gpus[].bar1SysfsBytes", kHuman},
      {"NodeFacts.gpus[].bar1ResourceIndex", kHuman},
      {"NodeFacts.gpus[].iommuDetail", kChecked},
      {"NodeFacts.gpuNicPaths[].via", "the report carries the nearest NIC's (nearest_nic_via)"},
      {"NodeFacts.ipsSource", kHuman},
      {"NodeFacts.deviceProbeSource", kHuman},
      {"NodeFacts.issues", "the checks say Unknown where a read failed, with the reason"},
      {"Evaluation.requirements", "what the hub asked for; the operator sent it"},
      {"Evaluation.ready", "the client's own decision; the operator reads the verdicts"},
      {"Evaluation.transport", "the client's own decision; the operator reads the verdicts"},
      {"Evaluation.verdicts[].message", "the operator writes its own condition messages"},
  };
  return kFields;
}

// Report fields no fact sets, and why.
const std::map<std::string, std::string>& NotFromFacts() {
  static const std::map<std::string, std::string> kFields = {
      {"NodeReport.node_name", "the node the agent runs on, from its flags"},
      {"NodeReport.agent_version", "the agent's build"},
      {"NodeReport.content_hash", "a hash of the rest of the report"},
      {"NodeReport.probed_unix_millis", "a time, set by the daemon when it probes"},
      {"NodeReport.verdicts.profile", "the ClientProfile the hub asked for the evaluation of"},
  };
  return kFields;
}

bool Listed(const std::map<std::string, std::string>& list, const std::string& name) {
  for (const auto& [entry, why] : list) {
    if (name == entry || name.starts_with(entry + ".") || name.starts_with(entry + "[]"))
      return true;
  }
  return false;
}

template <typename M, typename Visit>
void LeafOf(M& m, const std::string& path, const Visit& visit);

// Calls visit(name, leaf) for every field below the described struct `v` that is not itself a
// struct or a list of structs ("NodeFacts.rdmaDevices[].ports[].gids[].netdev"); lists of
// structs through their first element.
template <typename T, typename Visit>
void ForEachLeaf(T& v, const std::string& path, const Visit& visit) {
  std::apply(
      [&](const auto&... f) {
        (LeafOf(v.*(f.member), path + "." + std::string(f.name), visit), ...);
      },
      fields::FieldsOf<T>());
}

template <typename M, typename Visit>
void LeafOf(M& m, const std::string& path, const Visit& visit) {
  if constexpr (fields::Described<M>) {
    ForEachLeaf(m, path, visit);
  } else if constexpr (json::IsVector<M>::value) {
    if constexpr (fields::Described<typename M::value_type>) {
      if (!m.empty()) ForEachLeaf(m.front(), path + "[]", visit);
    } else {
      visit(path, m);
    }
  } else {
    visit(path, m);
  }
}

// Gives every empty list of structs below `v` one element, so each of its fields has a value to
// change.
template <typename T>
void FillLists(T& v) {
  std::apply(
      [&](const auto&... f) {
        auto fill = [](auto& m) {
          using M = std::remove_reference_t<decltype(m)>;
          if constexpr (fields::Described<M>) {
            FillLists(m);
          } else if constexpr (json::IsVector<M>::value) {
            if constexpr (fields::Described<typename M::value_type>) {
              if (m.empty()) m.emplace_back();
              FillLists(m.front());
            }
          }
        };
        (fill(v.*(f.member)), ...);
      },
      fields::FieldsOf<T>());
}

// The other values a leaf is changed to in turn: a field reaches the report when one of them
// changes it (an enum the report keeps as a bool changes it only between some values).
template <typename M>
std::vector<M> OtherValues(const M& m) {
  if constexpr (std::is_same_v<M, std::string>) {
    return {Other(m)};
  } else if constexpr (std::is_same_v<M, bool>) {
    return {!m};
  } else if constexpr (std::is_integral_v<M>) {
    return {static_cast<M>(m + 1)};
  } else if constexpr (std::is_enum_v<M>) {
    std::vector<M> out;
    for (int i = 0; i < 4; ++i) {
      if (static_cast<M>(i) != m) out.push_back(static_cast<M>(i));
    }
    return out;
  } else {
    static_assert(std::is_same_v<M, std::vector<std::string>>, "a leaf of a new type");
    M other = m;
    if (other.empty()) {
      other.push_back("changed");
    } else {
      other.front() = Other(other.front());
    }
    return {other};
  }
}

std::vector<std::string> LeafNames(AgentSide& side) {
  std::vector<std::string> names;
  auto visit = [&](const std::string& name, auto&) { names.push_back(name); };
  ForEachLeaf(side.facts, "NodeFacts", visit);
  ForEachLeaf(side.evaluation, "Evaluation", visit);
  return names;
}

// Sets leaf `name` to its `k`th other value; false when it has fewer.
bool ChangeLeaf(AgentSide& side, const std::string& name, size_t k) {
  bool changed = false;
  auto visit = [&](const std::string& path, auto& leaf) {
    if (path != name) return;
    auto others = OtherValues(leaf);
    if (k >= others.size()) return;
    leaf = others[k];
    changed = true;
  };
  ForEachLeaf(side.facts, "NodeFacts", visit);
  ForEachLeaf(side.evaluation, "Evaluation", visit);
  return changed;
}

std::string FieldText(const Message& m, const FieldDescriptor* f) {
  std::string out;
  const int n = f->is_repeated() ? m.GetReflection()->FieldSize(m, f) : 1;
  for (int i = 0; i < n; ++i) {
    std::string value;
    google::protobuf::TextFormat::PrintFieldValueToString(m, f, f->is_repeated() ? i : -1, &value);
    out += value + ",";
  }
  return out;
}

// The leaf fields that differ between `a` and `b` ("NodeReport.devices.ports.gids.netdev").
void Differences(const Message& a, const Message& b, const std::string& path,
                 std::set<std::string>* out) {
  const Reflection* r = a.GetReflection();
  const auto* d = a.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string name = path + "." + f->name();
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      if (FieldText(a, f) != FieldText(b, f)) out->insert(name);
    } else if (!f->is_repeated()) {
      Differences(r->GetMessage(a, f), r->GetMessage(b, f), name, out);
    } else {
      const int n = std::min(r->FieldSize(a, f), r->FieldSize(b, f));
      if (r->FieldSize(a, f) != r->FieldSize(b, f)) out->insert(name);
      for (int k = 0; k < n; ++k)
        Differences(r->GetRepeatedMessage(a, f, k), r->GetRepeatedMessage(b, f, k), name, out);
    }
  }
}

TEST(ReportDriftTest, EveryNodeFactReachesTheReportAndEveryReportFieldComesFromAFact) {
  DynamicReport dynamic;
  ASSERT_TRUE(dynamic.ok()) << "no NodeReport in " << RDMASTACK_AGENTHUB_DESCRIPTORS;
  AgentSide base;
  base.facts = testing::FixtureFacts("gpu-client-h100-peermem-mofed");
  const auto requirements =
      agent::RequirementsFromHub(testing::ClientRequirements("ml/p"), node::Role::kClient);
  ASSERT_EQ(requirements.size(), 1u);
  base.evaluation = node::Evaluate(base.facts, requirements.front().second);
  FillLists(base.facts);
  FillLists(base.evaluation);
  const std::unique_ptr<Message> before = dynamic.From(ReportOf(base));
  const std::vector<std::string> names = LeafNames(base);
  ASSERT_GT(names.size(), 80u) << "the walk found too few fields; did the tables change shape?";

  std::set<std::string> reached;  // report fields some fact changed
  for (const std::string& name : names) {
    std::set<std::string> changes;
    for (size_t k = 0;; ++k) {
      AgentSide changed = base;
      if (!ChangeLeaf(changed, name, k)) break;
      Differences(*before, *dynamic.From(ReportOf(changed)), "NodeReport", &changes);
    }
    reached.insert(changes.begin(), changes.end());
    if (changes.empty()) {
      EXPECT_TRUE(Listed(NotSent(), name))
          << name << " changes nothing in the NodeReport: send it (agents/proto/agenthub.proto, "
          << "BuildNodeReport in agents/node-agent/daemon/report_proto.cc), or list it in "
          << "NotSent() with the reason";
    } else {
      EXPECT_FALSE(Listed(NotSent(), name))
          << name << " is listed as not sent but changes " << *changes.begin();
    }
  }

  std::vector<std::vector<const FieldDescriptor*>> leaves;
  std::set<std::string> added;
  std::unique_ptr<Message> walked(before->New());
  walked->CopyFrom(*before);
  Leaves(walked.get(), {}, &leaves, &added);
  ASSERT_GT(leaves.size(), 50u);
  for (const auto& path : leaves) {
    const std::string name = Name(path);
    if (NotFromFacts().contains(name)) {
      EXPECT_FALSE(reached.contains(name)) << name << " is listed as set from no fact ("
                                           << NotFromFacts().at(name) << ") but a fact sets it";
      continue;
    }
    EXPECT_TRUE(reached.contains(name))
        << name << " is set from no field of NodeFacts or of the evaluation: set it in "
        << "BuildNodeReport from a fact (node/probe/facts.h and its table in facts_fields.h), "
        << "or list it in NotFromFacts() with the reason";
  }
}

}  // namespace
}  // namespace rdmastack::rdmanode
