// Hostile strings from the cluster never act on the terminal: the escaping primitive itself, then
// every printer (status, why, upgrade as text and as JSON, must-gather's progress lines) over an
// in-memory API server whose objects carry escape sequences, C1 controls, bidi overrides, newlines
// and invalid UTF-8 in their free-text fields, in nested JSON annotations included.
#include "cli/kubectl-rdmastack/printable.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/kubectl-rdmastack/commands.h"
#include "cli/kubectl-rdmastack/must_gather/must_gather_command.h"
#include "cli/kubectl-rdmastack/printable_client.h"
#include "cli/kubectl-rdmastack/tests/fixtures.h"
#include "crds/types/kinds.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::plugin {
namespace {

using k8s::testing::FakeClient;
using testing::CommandOptions;
using testing::kCluster;
using testing::kNow;

// Valid UTF-8 throughout: CSI colour, an OSC title ended by BEL, CR LF and a forged line, a tab,
// DEL, CSI as a C1 control (U+009B) then "2J" (clear screen), RLO, LRI, LRM, the line separator.
const std::string kHostileUtf8 =
    std::string("\x1b[31mRED\x1b[0m\x1b]0;owned\x07\r\nFORGED line\t") + "\x7f" + "\xc2\x9b" +
    "2J" + "\xe2\x80\xae" + "evil" + "\xe2\x81\xa6" + "\xe2\x80\x8e" + "\xe2\x80\xa8" + "end";
// Then bytes that are not UTF-8: a lone 0xff, an overlong '/', a surrogate, a cut-off sequence.
const std::string kHostile = kHostileUtf8 + "\xff" + "\xc0\xaf" + "\xed\xa0\x80" + "\xe2\x80";

TEST(PrintableTest, EscapesEveryFormAndKeepsTheRest) {
  EXPECT_EQ(Printable("plain ascii-1.2 ~!"), "plain ascii-1.2 ~!");
  EXPECT_EQ(Printable("gr\xc3\xbc\xc3\x9f \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
            "gr\xc3\xbc\xc3\x9f \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(Printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(Printable("a\nb", Newlines::kKeep), "a\nb");
  EXPECT_EQ(Printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(Printable("\x07\x08\x1f\x7f"), "\\x07\\x08\\x1f\\x7f");
  EXPECT_EQ(Printable("\xc2\x80\xc2\x9b"
                      "2J\xc2\x9f\xc2\xa0"),
            "\\u0080\\u009b2J\\u009f\xc2\xa0");
  EXPECT_EQ(Printable("\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9"),
            "\\u202a\\u202e\\u2066\\u2069");
  EXPECT_EQ(Printable("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xe2\x80\xa8\xe2\x80\xa9"),
            "\\u200e\\u200f\\u061c\\u2028\\u2029");
  // Not UTF-8: each offending byte, and the bytes after it are read afresh.
  EXPECT_EQ(Printable("\xff"
                      "a"),
            "\\xffa");
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(Printable("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, 3 bytes
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // surrogate
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(Printable("\xe2\x80"), "\\xe2\\x80");                    // cut short
  EXPECT_EQ(Printable("\x80"), "\\x80");                             // stray continuation
  // An escaped string is printable, so escaping it again changes nothing.
  const std::string once = Printable(kHostile);
  EXPECT_EQ(Printable(once), once);
  EXPECT_EQ(Printable(once, Newlines::kKeep), once);
}

TEST(PrintableTest, JsonKeepsTheValueAndEscapesWhatTerminalsActOn) {
  k8s::JsonObject doc;
  ASSERT_TRUE(doc.SetString({"message"}, kHostileUtf8).ok());
  const std::string printable = PrintableJson(doc.Serialize());
  for (char c : printable) {
    const auto b = static_cast<unsigned char>(c);
    EXPECT_TRUE(b >= 0x20 && b < 0x7f) << "byte " << int{b} << " in " << printable;
  }
  auto parsed = k8s::JsonObject::Parse(printable);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << printable;
  EXPECT_EQ(parsed->GetString({"message"}), kHostileUtf8);
  // Bytes that are not UTF-8 cannot be kept: they become U+FFFD, as Go's encoder writes them.
  EXPECT_EQ(PrintableJson("{\"a\":\"x\xffy\"}"), "{\"a\":\"x\\ufffdy\"}");
  EXPECT_EQ(PrintableJson("{\n  \"a\": 1\n}"), "{\n  \"a\": 1\n}");
}

// Appends kHostile to every free-text field (reasons, messages, remedies, versions), inside JSON
// held in strings too (the per-node upgrade annotation).
void Poison(rapidjson::Value& value, rapidjson::Document::AllocatorType& a) {
  if (value.IsArray()) {
    for (auto& item : value.GetArray()) Poison(item, a);
    return;
  }
  if (!value.IsObject()) return;
  for (auto& m : value.GetObject()) {
    const std::string key = m.name.GetString();
    if (m.value.IsString()) {
      const std::string text = m.value.GetString();
      auto nested = k8s::JsonObject::Parse(text);
      if (!text.empty() && text.front() == '{' && nested.ok()) {
        Poison(nested->document(), nested->document().GetAllocator());
        const std::string again = nested->Serialize();
        m.value.SetString(again.data(), again.size(), a);
      } else if (key == "message" || key == "reason" || key == "remedy" || key == "version") {
        const std::string poisoned = text + kHostile;
        m.value.SetString(poisoned.data(), poisoned.size(), a);
      }
    } else {
      Poison(m.value, a);
    }
  }
}

void LoadHostileCluster(FakeClient& api) {
  testing::LoadFixtureCluster(
      api, [](k8s::JsonObject& o) { Poison(o.document(), o.document().GetAllocator()); });
}

// Every byte printable ASCII or the renderer's own newline, no line that a value forged, and the
// hostile text present in escaped form (so the printer did print it).
void ExpectSafeText(const std::string& text, const std::string& what) {
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    ASSERT_TRUE((b >= 0x20 && b < 0x7f) || b == '\n') << what << ": byte " << int{b} << "\n"
                                                      << text;
  }
  EXPECT_EQ(text.find("\nFORGED"), std::string::npos) << what << "\n" << text;
  EXPECT_NE(
      text.find("\\x1b[31mRED\\x1b[0m\\x1b]0;owned\\x07\\r\\nFORGED line\\t\\x7f\\u009b2J"
                "\\u202eevil\\u2066\\u200e\\u2028end\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x80"),
      std::string::npos)
      << what << "\n"
      << text;
}

TEST(PrintableTest, HostileStringsThroughEveryTextPrinter) {
  FakeClient api;
  LoadHostileCluster(api);
  const OutputFormat table = OutputFormat::kTable;
  const CommandResult status =
      RunStatus(api, CommandOptions(Command::kStatus, "", "", table), kCluster, kNow);
  ExpectSafeText(status.out + status.err, "status");
  for (const char* node : {"stg-node-2", "stg-node-4", "gpu-node-3"}) {
    const CommandResult why =
        RunWhy(api, CommandOptions(Command::kWhy, node, "", table), kCluster, kNow);
    ExpectSafeText(why.out + why.err, std::string("why ") + node);
  }
  const CommandResult upgrade = RunUpgrade(
      api, CommandOptions(Command::kUpgrade, "archive", "ml", table), "", kCluster, kNow);
  ExpectSafeText(upgrade.out + upgrade.err, "upgrade");
  // The per-node upgrade state is JSON inside an annotation: its message was escaped too.
  EXPECT_NE(upgrade.out.find("Failing nodes:"), std::string::npos) << upgrade.out;
  EXPECT_TRUE(api.writes().empty());
}

// Whether a string value of `value`, at any depth, contains `want`.
bool HasString(const rapidjson::Value& value, const std::string& want) {
  if (value.IsString()) {
    return std::string(value.GetString(), value.GetStringLength()).find(want) != std::string::npos;
  }
  if (value.IsArray()) {
    for (const auto& item : value.GetArray())
      if (HasString(item, want)) return true;
  }
  if (value.IsObject()) {
    for (const auto& m : value.GetObject())
      if (HasString(m.value, want)) return true;
  }
  return false;
}

TEST(PrintableTest, HostileStringsThroughEveryJsonPrinter) {
  FakeClient api;
  LoadHostileCluster(api);
  const OutputFormat json = OutputFormat::kJson;
  const CommandResult results[] = {
      RunStatus(api, CommandOptions(Command::kStatus, "", "", json), kCluster, kNow),
      RunWhy(api, CommandOptions(Command::kWhy, "stg-node-2", "", json), kCluster, kNow),
      RunUpgrade(api, CommandOptions(Command::kUpgrade, "archive", "ml", json), "", kCluster,
                 kNow)};
  for (const CommandResult& r : results) {
    for (char c : r.out) {
      const auto b = static_cast<unsigned char>(c);
      ASSERT_TRUE((b >= 0x20 && b < 0x7f) || b == '\n') << "byte " << int{b} << "\n" << r.out;
    }
    auto doc = k8s::JsonObject::Parse(r.out);
    ASSERT_TRUE(doc.ok()) << doc.status().ToString() << "\n" << r.out;
    // The value survives: valid UTF-8 as it was, each byte that is not as U+FFFD.
    std::string want = kHostileUtf8;
    for (int i = 0; i < 7; ++i) want += "\xef\xbf\xbd";
    EXPECT_TRUE(HasString(doc->value(), want)) << r.out;
  }
}

TEST(PrintableTest, MustGatherProgressLinesAndResultArePrintable) {
  FakeClient api;
  LoadHostileCluster(api);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("printable-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ApiAccess access;
  access.client = &api;
  access.get = [](const std::string& path) -> StatusOr<std::string> {
    if (path == "/version") {
      return std::string(R"({"gitVersion":"v1.36.3\u001b]0;owned\u0007\nFORGED \u202e"})");
    }
    return NotFoundError("no " + path);
  };
  Options o = CommandOptions(Command::kMustGather, "", "", OutputFormat::kTable);
  o.output_dir = dir.string();
  std::vector<std::string> lines;
  const CommandResult r = RunMustGather(access, o, kCluster, kNow,
                                        [&](const std::string& line) { lines.push_back(line); });
  EXPECT_EQ(r.exit_code, 0) << r.err;
  bool saw_version = false;
  for (const std::string& line : lines) {
    for (char c : line) {
      const auto b = static_cast<unsigned char>(c);
      ASSERT_TRUE(b >= 0x20 && b < 0x7f) << "byte " << int{b} << " in " << line;
    }
    if (line.find("v1.36.3\\x1b]0;owned\\x07\\nFORGED \\u202e") != std::string::npos)
      saw_version = true;
  }
  EXPECT_TRUE(saw_version);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rdmastack::plugin
