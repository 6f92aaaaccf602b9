#include "cli/kubectl-rdmastack/text.h"

#include <gtest/gtest.h>

#include "cli/kubectl-rdmastack/table.h"

namespace rdmastack::plugin {
namespace {

TEST(TextTest, HumanAgeLikeKubectl) {
  const std::pair<int64_t, std::string> cases[] = {
      {-5, "<invalid>"},
      {-1, "0s"},
      {0, "0s"},
      {45, "45s"},
      {119, "119s"},
      {120, "2m"},
      {192, "3m12s"},
      {600, "10m"},
      {1500, "25m"},
      {3 * 3600, "3h"},
      {5 * 3600 + 180, "5h3m"},
      {30 * 3600, "30h"},
      {3 * 86400 + 4 * 3600, "3d4h"},
      {120 * 86400, "120d"},
      {3 * 365 * 86400 + 10 * 86400, "3y10d"},
      {9 * 365 * 86400, "9y"},
  };
  for (const auto& [seconds, want] : cases) EXPECT_EQ(HumanAge(seconds), want) << seconds;
}

TEST(TextTest, SecondsSince) {
  EXPECT_EQ(SecondsSince("2026-09-24T10:08:00Z", 1790245200), 720);
  EXPECT_EQ(SecondsSince("yesterday", 1790245200), std::nullopt);
}

TEST(TextTest, WrapFoldsAtSpacesWithIndent) {
  EXPECT_EQ(Wrap("", 4, 40), "");
  EXPECT_EQ(Wrap("short text", 2, 40), "  short text\n");
  EXPECT_EQ(Wrap("one two three four five six seven eight nine ten", 4, 30),
            "    one two three four five\n    six seven eight nine ten\n");
  // A word longer than the room stays whole on its own line.
  const std::string path = "/host/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3";
  EXPECT_EQ(Wrap("see " + path + " now", 0, 30), "see\n" + path + "\nnow\n");
}

TEST(TextTest, CloseNames) {
  const std::vector<std::string> nodes = {"gpu-node-0", "gpu-node-1", "stg-node-0", "stg-node-1",
                                          "stg-node-2"};
  EXPECT_EQ(CloseNames("stg-node-9", nodes),
            (std::vector<std::string>{"stg-node-0", "stg-node-1", "stg-node-2"}));
  EXPECT_EQ(CloseNames("gpu-nod-1", nodes), (std::vector<std::string>{"gpu-node-1", "gpu-node-0"}));
  EXPECT_EQ(CloseNames("gpu", nodes), (std::vector<std::string>{"gpu-node-0", "gpu-node-1"}));
  EXPECT_TRUE(CloseNames("worker-17", nodes).empty());
}

TEST(TableTest, AlignsLikeKubectl) {
  Table t({"name", "ready", "x"});
  t.AddRow({"kvcache", "True", "1"});
  t.AddRow({"a", "", "22"});
  // Columns: widest cell + 3, at least 6; the last column unpadded; empty cells "<none>".
  EXPECT_EQ(t.Render(),
            "NAME      READY    X\n"
            "kvcache   True     1\n"
            "a         <none>   22\n");
  Table narrow({"a", "b"});
  narrow.AddRow({"x", "y"});
  EXPECT_EQ(narrow.Render(), "A     B\nx     y\n");
  EXPECT_EQ(DisplayWidth("GPU–NIC"), 7u);
}

}  // namespace
}  // namespace rdmastack::plugin
