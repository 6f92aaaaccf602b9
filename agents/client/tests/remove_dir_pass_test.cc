#include "agents/client/remove_dir_pass.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "agents/client/tests/test_util.h"

namespace rdmastack::client {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

TEST(RemoveDirPass, RemovesTheNamedTreeOnlyAndNeverFollowsALink) {
  TempDir tmp;
  const fs::path root = tmp.path() / "gateway-iam";
  const fs::path other = tmp.path() / "gateway-iam" / "ml.other.uid2";
  const fs::path outside = tmp.path() / "outside";
  fs::create_directories(root / "ml.kv.uid1" / "users");
  fs::create_directories(other);
  fs::create_directories(outside);
  WriteFile(root / "ml.kv.uid1" / "users" / "u.json", "{}");
  WriteFile(other / "keep.json", "{}");
  WriteFile(outside / "keep", "x");
  // A link inside the tree to a directory outside it: removed as a link, its target kept.
  fs::create_directory_symlink(outside, root / "ml.kv.uid1" / "escape");

  const auto now = std::chrono::system_clock::now();
  ClientState st = RemoveDirPass(root.string(), "ml.kv.uid1", now);
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_EQ(st.reason, kReasonRemoved);
  EXPECT_EQ(st.updated, now);
  EXPECT_FALSE(fs::exists(root / "ml.kv.uid1"));
  EXPECT_TRUE(fs::exists(outside / "keep"));
  EXPECT_TRUE(fs::exists(other / "keep.json"));

  // Gone already, and a root that was never made: both clean.
  EXPECT_TRUE(RemoveDirPass(root.string(), "ml.kv.uid1", now).ready);
  EXPECT_TRUE(RemoveDirPass((tmp.path() / "never").string(), "x", now).ready);
}

TEST(RemoveDirPass, ALinkedRootIsRefusedAndNotReady) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "real" / "ml.kv.uid1");
  fs::create_directory_symlink(tmp.path() / "real", tmp.path() / "gateway-iam");
  ClientState st = RemoveDirPass((tmp.path() / "gateway-iam").string(), "ml.kv.uid1",
                                 std::chrono::system_clock::now());
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, kReasonRemoveFailed);
  EXPECT_NE(st.message.find("cannot remove"), std::string::npos) << st.message;
  EXPECT_TRUE(fs::exists(tmp.path() / "real" / "ml.kv.uid1"));
}

}  // namespace
}  // namespace rdmastack::client
