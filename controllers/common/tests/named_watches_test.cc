// NamedWatches' bounds without a watch: names outside the served namespaces are never read, and
// past max_watches a name is read with a GET (keys only) instead of being watched. The watches
// themselves run against the real API server in tests/e2e/chart.
#include "controllers/common/named_watches.h"

#include <gtest/gtest.h>

#include "controllers/common/cache_transforms.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::controllers {
namespace {

using k8s::testing::JsonText;

class NamedWatchesTest : public ::testing::Test {
 protected:
  NamedWatchesTest() {
    EXPECT_TRUE(api_.Put(k8s::kinds::Secret(),
                         JsonText(R"({"metadata": {"name": "keys", "namespace": "team-a"},
                                      "data": {"accessKeyId": "YQ==", "secretAccessKey": "Yg=="}})"))
                    .ok());
  }
  NamedWatches Make(size_t max_watches) {
    NamedWatches::Options o;
    o.base = CachedOptions(k8s::kinds::Secret(), "", SecretKeysOnly());
    o.served = {"team-a"};
    o.max_watches = max_watches;
    o.sync_timeout = Clock::Duration::zero();  // the fake clock never moves by itself
    return NamedWatches(cache_, api_, clock_, o);
  }

  k8s::testing::FakeClient api_;
  FakeClock clock_;
  runtime::InformerCache cache_{api_, clock_};  // never started: no watch is served here
};

TEST_F(NamedWatchesTest, NamesOutsideTheServedNamespacesAreNeverRead) {
  NamedWatches w = Make(0);
  api_.ClearActions();
  EXPECT_EQ(w.Get("kube-system/keys"), nullptr);
  EXPECT_EQ(w.Get("team-b/keys"), nullptr);
  EXPECT_EQ(w.Get("keys"), nullptr);
  EXPECT_EQ(w.Get("team-a/"), nullptr);
  EXPECT_TRUE(api_.actions().empty());
  EXPECT_EQ(w.watches(), 0u);
}

TEST_F(NamedWatchesTest, PastTheBoundANameIsReadWithAGetKeysOnly) {
  NamedWatches w = Make(0);
  api_.ClearActions();
  runtime::ObjectPtr got = w.Get("team-a/keys");
  ASSERT_NE(got, nullptr);
  EXPECT_TRUE(got->Has({"data", "accessKeyId"}));
  EXPECT_EQ(got->GetString({"data", "accessKeyId"}).value_or("?"), "")
      << "the transform drops values";
  EXPECT_EQ(w.Get("team-a/missing"), nullptr);
  EXPECT_EQ(w.watches(), 0u);
  ASSERT_EQ(api_.actions().size(), 2u);
  EXPECT_EQ(api_.actions()[0].ToString(), "get Secret team-a/keys");
}

TEST_F(NamedWatchesTest, AServedNameGetsAWatchOfThatNameAlone) {
  NamedWatches w = Make(8);
  w.Get("team-a/keys");  // the cache is not running: its first list never comes
  w.Get("team-a/keys");
  w.Get("team-a/other");
  EXPECT_EQ(w.watches(), 2u);
  runtime::InformerOptions o = CachedOptions(k8s::kinds::Secret(), "", SecretKeysOnly());
  o.ns = "team-a";
  o.field_selector = "metadata.name=keys";
  EXPECT_FALSE(cache_.Get(o).HasSynced());
  EXPECT_EQ(cache_.Get(o).options().field_selector, "metadata.name=keys");
}

}  // namespace
}  // namespace rdmastack::controllers
