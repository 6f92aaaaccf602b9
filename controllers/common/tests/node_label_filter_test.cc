#include "controllers/common/node_label_filter.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

using Keys = std::set<std::string>;

// The filter as the Node informer drives it: BeforeList as a listing begins, AfterReplace once
// it replaced the cache; `relists` counts what it asked of the informer.
class NodeLabelFilterTest : public ::testing::Test {
 protected:
  NodeLabelFilter filter_{[this] { return live_; }, [this] { ++relists_; }};
  Keys live_;
  int relists_ = 0;
};

TEST_F(NodeLabelFilterTest, TheFirstListingKeepsTheLiveKeysAndThenCoversThem) {
  live_ = {"zone"};
  EXPECT_FALSE(filter_.Covers({})) << "nothing is covered before the first listing is in";
  filter_.BeforeList();
  EXPECT_EQ(filter_.Kept(), Keys{"zone"});
  EXPECT_FALSE(filter_.Covers({"zone"})) << "the listing is not in yet";
  EXPECT_EQ(relists_, 0) << "a key the listing under way keeps needs no second one";
  filter_.AfterReplace();
  EXPECT_TRUE(filter_.Covers({"zone"}));
  EXPECT_TRUE(filter_.Covers({"zone", "rdmastack.io/gpudirect"}));
  EXPECT_TRUE(filter_.Covers({}));
  EXPECT_EQ(relists_, 0);
}

TEST_F(NodeLabelFilterTest, ANewKeyIsNotCoveredUntilTheRelistItAskedForIsIn) {
  live_ = {"zone"};
  filter_.BeforeList();
  filter_.AfterReplace();
  // A pool now selects on "rack": the cache says nothing about it.
  EXPECT_FALSE(filter_.Covers({"rack"}));
  EXPECT_EQ(relists_, 1);
  EXPECT_EQ(filter_.Kept(), (Keys{"rack", "zone"})) << "watch events keep it from now on";
  EXPECT_FALSE(filter_.Covers({"rack"}));
  EXPECT_EQ(relists_, 1) << "asked once, not once per caller";
  EXPECT_TRUE(filter_.Covers({"zone"})) << "what was covered stays covered";
  // The relist begins before the pool reached the selector source: the asked key is kept anyway.
  filter_.BeforeList();
  EXPECT_FALSE(filter_.Covers({"rack"}));
  filter_.AfterReplace();
  EXPECT_TRUE(filter_.Covers({"rack", "zone"}));
  EXPECT_EQ(relists_, 1);
}

TEST_F(NodeLabelFilterTest, AKeyAskedForDuringAListingIsNotCoveredByThatListing) {
  live_ = {"zone"};
  filter_.BeforeList();
  EXPECT_FALSE(filter_.Covers({"rack"}));  // mid-listing: the objects before it lack "rack"
  EXPECT_EQ(relists_, 1);
  filter_.AfterReplace();  // the listing under way completes (a paged list is not cancelled)
  EXPECT_TRUE(filter_.Covers({"zone"}));
  EXPECT_FALSE(filter_.Covers({"rack"}));
  filter_.BeforeList();  // the relist asked for
  filter_.AfterReplace();
  EXPECT_TRUE(filter_.Covers({"rack"}));
}

TEST_F(NodeLabelFilterTest, KeysNoSelectorNamesStayUntilTheNextListing) {
  live_ = {"zone", "rack"};
  filter_.BeforeList();
  filter_.AfterReplace();
  live_ = {"zone"};  // the pool that selected on "rack" is gone
  EXPECT_EQ(filter_.Kept(), (Keys{"rack", "zone"}));
  EXPECT_TRUE(filter_.Covers({"rack"}));
  filter_.BeforeList();
  filter_.AfterReplace();
  EXPECT_EQ(filter_.Kept(), Keys{"zone"});
  EXPECT_EQ(filter_.Covered(), Keys{"zone"});
}

}  // namespace
}  // namespace rdmastack::controllers
