// Every JSON parse in product code goes through base/json_parse.h, which reads numbers exactly and
// bounds nesting: this test fails when a source parses with RapidJSON's reader or a document's
// own Parse in any spelling, so the next decoder cannot bring back the drifting numbers (a bucket
// policy rewritten on every pass) or an unbounded recursion on hostile input.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/harness/source_scan.h"

namespace rdmastack {
namespace {

using testing::CodeOnly;
using testing::Findings;

const std::vector<std::string> kScanned = {
    "agents",  "base", "cli",  "cmd",      "controllers", "crds",
    "gateway", "lib",  "node", "operator", "servers",     "tests/harness/node-runtime"};
// The primitive itself.
const std::vector<std::string> kAllowed = {"base/json_parse.h", "base/json_parse.cc"};

// A document's Parse/ParseInsitu/ParseStream (any flags, through . or ->) and RapidJSON's reader.
const std::regex& Forbidden() {
  static const std::regex re(R"((\.|->)\s*(Parse|ParseInsitu|ParseStream)\s*(<[^;]*>)?\s*\(|)"
                             R"(\b(GenericReader|Reader|IterativeParse\w*)\b)");
  return re;
}

TEST(JsonParseSource, ProductCodeParsesJsonOnlyThroughJsonParse) {
  const testing::ScanResult scan = testing::ScanProductSources(kScanned, kAllowed, Forbidden());
  EXPECT_GT(scan.scanned, 300u) << "the scan found almost nothing; is RDMASTACK_SOURCE_DIR right?";
  std::string all;
  for (const std::string& f : scan.findings) all += "\n  " + f;
  EXPECT_TRUE(scan.findings.empty())
      << "parse JSON with base/json_parse.h (ParseJsonDocument, ParseJsonInto, ParseJsonEvents) "
         "or k8s::JsonObject::Parse, nothing else:"
      << all;
}

// The scan finds each spelling it is there for, and not our own parse calls or words in
// comments and messages.
TEST(JsonParseSource, TheScanRecognisesEveryWayToParse) {
  for (const char* line :
       {"doc.Parse(text.data(), text.size());", "doc.Parse<rapidjson::kParseFullPrecisionFlag>(s);",
        "d.Parse<kParseDefaultFlags | kParseCommentsFlag>(json.c_str());",
        "doc . ParseInsitu(buffer);", "doc.ParseStream(stream);", "doc->Parse(json);",
        "rapidjson::Reader reader;", "GenericReader<UTF8<>, UTF8<>> r;",
        "reader.IterativeParseNext<0>(s, h);"}) {
    EXPECT_FALSE(Findings("x.cc", CodeOnly(line), Forbidden()).empty()) << line;
  }
  for (const char* line :
       {"ParseJsonDocument(doc, text);", "k8s::JsonObject::Parse(body);",
        "auto o = JsonObject::Parse(text);", "// doc.Parse( in a comment",
        "msg = \"cannot doc.Parse(x)\";", "ParseJsonInto<rapidjson::kParseInsituFlag>(doc, s);",
        "flags.ParseArgs(argc, argv);", "Reader2 x;", "ApiObjectReader reader_;"}) {
    EXPECT_TRUE(Findings("x.cc", CodeOnly(line), Forbidden()).empty()) << line;
  }
}

}  // namespace
}  // namespace rdmastack
