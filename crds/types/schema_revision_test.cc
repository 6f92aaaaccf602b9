#include "crds/types/schema_revision.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::crd {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(::rdmastack::testing::SourcePath(relative));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A CRD file changed without its revision being raised would let an operator built from it lead
// over the old CRD, whose schema prunes what the new one added.
TEST(SchemaRevisionTest, EveryCrdFileChangeRaisesItsRevision) {
  std::istringstream lock(ReadSource("crds/schema_revisions.lock"));
  int checked = 0;
  for (std::string line; std::getline(lock, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, sha;
    int revision = 0;
    fields >> file >> revision >> sha;
    const std::string text = ReadSource("crds/" + file);
    ASSERT_FALSE(text.empty()) << file;
    std::string body, revision_line;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
      if (l.find(std::string(kSchemaRevisionAnnotation) + ":") != std::string::npos) {
        revision_line = l;
      } else {
        body += l + "\n";
      }
    }
    const std::string now = Sha256Hex(body);
    const std::string name = file.substr(0, file.find('.')) + ".rdmastack.io";
    int built = -1;
    for (const CrdRevision& b : BuiltCrdRevisions()) {
      if (b.name == name) built = b.revision;
    }
    EXPECT_EQ(built, revision) << file << ": the build read another revision than the lock's";
    if (now != sha) {
      ADD_FAILURE() << "crds/" << file << " changed since revision " << revision
                    << " was locked: raise its " << kSchemaRevisionAnnotation << " to "
                    << revision + 1 << ", copy it to charts/rdmastack/crds/, and set its line in "
                    << "crds/schema_revisions.lock to:\n"
                    << file << " " << revision + 1 << " " << now;
    }
    EXPECT_NE(revision_line.find("\"" + std::to_string(revision) + "\""), std::string::npos)
        << file << ": " << revision_line;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(BuiltCrdRevisions().size()));
}

// Every CRD installed at its built revision plus `delta` (each file has its own revision).
std::vector<InstalledCrd> AllAt(int delta) {
  std::vector<InstalledCrd> out;
  for (const CrdRevision& b : BuiltCrdRevisions())
    out.push_back({std::string(b.name), true, std::to_string(b.revision + delta)});
  return out;
}

TEST(SchemaRevisionTest, OnlyCurrentOrNewerInstalledCrdsPass) {
  EXPECT_TRUE(CheckInstalledCrds(AllAt(0)).ok());
  EXPECT_TRUE(CheckInstalledCrds(AllAt(1)).ok()) << "newer is fine";

  std::vector<InstalledCrd> older = AllAt(0);
  const int built = BuiltCrdRevisions()[1].revision;
  older[1].revision = std::to_string(built - 1);
  Status s = CheckInstalledCrds(older);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(std::string(BuiltCrdRevisions()[1].name) + " is at schema revision '" +
                             std::to_string(built - 1) + "'"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("kubectl apply --server-side"), std::string::npos) << s.message();

  std::vector<InstalledCrd> unannotated = AllAt(0);
  unannotated[0].revision.reset();  // a CRD from before revisions: older than any
  EXPECT_NE(CheckInstalledCrds(unannotated).message().find("revision none"), std::string::npos);
  std::vector<InstalledCrd> garbage = AllAt(0);
  garbage[0].revision = "x1";
  EXPECT_FALSE(CheckInstalledCrds(garbage).ok());
  std::vector<InstalledCrd> missing = AllAt(0);
  missing[2].found = false;
  EXPECT_NE(CheckInstalledCrds(missing).message().find("is not installed"), std::string::npos);
  EXPECT_FALSE(CheckInstalledCrds({}).ok());
}

}  // namespace
}  // namespace rdmastack::crd
