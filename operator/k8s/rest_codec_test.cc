#include "operator/k8s/rest_codec.h"

#include <gtest/gtest.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::k8s {
namespace {

TEST(RestCodecTest, UrlEncoding) {
  EXPECT_EQ(UrlEncode("app=web,tier!=db"), "app%3Dweb%2Ctier%21%3Ddb");
  EXPECT_EQ(UrlEncode("a b/c~d_e.f-g"), "a%20b%2Fc~d_e.f-g");
  EXPECT_EQ(UrlEncode("k in (a, b)"), "k%20in%20%28a%2C%20b%29");
  EXPECT_EQ(UrlEncode("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(BuildQuery({}), "");
  EXPECT_EQ(BuildQuery({{"a", "1"}, {"b", "x y"}}), "?a=1&b=x%20y");
}

TEST(RestCodecTest, ListAndWatchQueries) {
  struct Case {
    std::string name;
    QueryParams got;
    std::string want;
  };
  ListOptions paged;
  paged.limit = 500;
  paged.continue_token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEi+/=";
  paged.label_selector = "app=web";
  ListOptions rv0;
  rv0.resource_version = "0";
  rv0.resource_version_match = "NotOlderThan";
  rv0.field_selector = "spec.nodeName=n1";
  WatchOptions watch;
  watch.resource_version = "1234";
  watch.timeout_seconds = 317;
  WatchOptions watch_list;
  watch_list.send_initial_events = true;
  watch_list.resource_version_match = "NotOlderThan";
  watch_list.allow_watch_bookmarks = false;
  const std::vector<Case> cases = {
      {"empty list", ListQuery({}), ""},
      {"paged", ListQuery(paged),
       "?labelSelector=app%3Dweb&limit=500&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEi%2B%2F%3D"},
      {"rv 0", ListQuery(rv0),
       "?fieldSelector=spec.nodeName%3Dn1&resourceVersion=0&resourceVersionMatch=NotOlderThan"},
      {"watch", WatchQuery(watch),
       "?watch=1&resourceVersion=1234&allowWatchBookmarks=true&timeoutSeconds=317"},
      {"watch list", WatchQuery(watch_list),
       "?watch=1&resourceVersionMatch=NotOlderThan&sendInitialEvents=true"},
      {"write", WriteQuery({"rdmastack-operator", true}),
       "?fieldManager=rdmastack-operator&dryRun=All"},
  };
  for (const auto& c : cases) EXPECT_EQ(BuildQuery(c.got), c.want) << c.name;
}

TEST(RestCodecTest, PatchQueries) {
  auto apply = PatchQuery(PatchType::kApply, {"mgr", true, false});
  ASSERT_TRUE(apply.ok());
  EXPECT_EQ(BuildQuery(*apply), "?fieldManager=mgr&force=true");
  EXPECT_EQ(PatchQuery(PatchType::kApply, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PatchQuery(PatchType::kMerge, {"m", true, false}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildQuery(*PatchQuery(PatchType::kJsonPatch, {})), "");
  EXPECT_EQ(PatchContentType(PatchType::kApply), "application/apply-patch+yaml");
  EXPECT_EQ(PatchContentType(PatchType::kJsonPatch), "application/json-patch+json");
  EXPECT_EQ(PatchContentType(PatchType::kMerge), "application/merge-patch+json");
}

TEST(RestCodecTest, DeleteBodies) {
  DeleteOptions o;
  EXPECT_EQ(DeleteBody(o), R"({"apiVersion":"v1","kind":"DeleteOptions"})");
  o.propagation_policy = PropagationPolicy::kForeground;
  o.precondition_uid = "u-1";
  o.precondition_resource_version = "9";
  o.grace_period_seconds = 0;
  EXPECT_EQ(
      DeleteBody(o),
      R"({"apiVersion":"v1","kind":"DeleteOptions","propagationPolicy":"Foreground","gracePeriodSeconds":0,)"
      R"("preconditions":{"uid":"u-1","resourceVersion":"9"}})");
}

TEST(RestCodecTest, DecodesLists) {
  auto list = DecodeObjectList(
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"77","continue":"tok","remainingItemCount":5},
          "items":[{"metadata":{"name":"a","namespace":"x"}},{"metadata":{"name":"b","namespace":"x"},"data":{"k":"v"}}]})");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->resource_version, "77");
  EXPECT_EQ(list->continue_token, "tok");
  EXPECT_EQ(list->remaining_item_count, 5);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].Kind(), "ConfigMap");
  EXPECT_EQ(list->items[1].ApiVersion(), "v1");
  EXPECT_EQ(list->items[1].GetString({"data", "k"}), "v");

  auto empty = DecodeObjectList(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
  EXPECT_FALSE(DecodeObjectList(R"({"items":{}})").ok());
  EXPECT_FALSE(DecodeObjectList(R"({"items":[1]})").ok());
  EXPECT_FALSE(DecodeObjectList("{truncated").ok());
  auto deep = DecodeObjectList(R"({"items":[{"a":)" + std::string(100'000, '['));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested deeper"), std::string::npos);
  EXPECT_FALSE(DecodeWatchEvent(R"({"type":"ADDED","object":)" + std::string(100'000, '{')).ok());
}

TEST(RestCodecTest, ListItemsEqualTheirStandaloneParse) {
  const std::string item =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"a/b":"c"}},)"
      R"("status":{"images":[{"names":["x","y"],"sizeBytes":12345678901},{"names":[]}],)"
      R"("ratio":0.25,"neg":-3,"big":18446744073709551615,"flag":false,"none":null,"nested":[[1,[2]],{}]}})";
  auto list = DecodeObjectList(
      R"({"kind":"NodeList","apiVersion":"v1","metadata":{},"extra":{"items":[1]},"items":[)" +
      item + "," + item + "]}");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 2u);
  const JsonObject want = *JsonObject::Parse(item);
  EXPECT_EQ(list->items[0], want);
  EXPECT_EQ(list->items[1].Serialize(), want.Serialize());
  EXPECT_FALSE(list->remaining_item_count.has_value());
}

TEST(RestCodecTest, DecodesWatchEvents) {
  struct Case {
    std::string line;
    bool ok;
    WatchEventType type;
  };
  const std::vector<Case> cases = {
      {R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})", true, WatchEventType::kAdded},
      {R"({"type":"MODIFIED","object":{"metadata":{"name":"a"}}})", true,
       WatchEventType::kModified},
      {R"({"type":"DELETED","object":{"metadata":{"name":"a"}}})", true, WatchEventType::kDeleted},
      {R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12"}}})", true,
       WatchEventType::kBookmark},
      {R"j({"type":"ERROR","object":{"kind":"Status","message":"too old resource version: 1 (9)","reason":"Expired","code":410}})j",
       true, WatchEventType::kError},
      {R"({"type":"SURPRISE","object":{}})", false, WatchEventType::kAdded},
      {R"({"type":"ADDED"})", false, WatchEventType::kAdded},
      {R"({"type":"ADDED","object":{"metadata":)", false, WatchEventType::kAdded},
  };
  for (const auto& c : cases) {
    auto event = DecodeWatchEvent(c.line);
    EXPECT_EQ(event.ok(), c.ok) << c.line;
    if (!event.ok()) {
      EXPECT_EQ(event.status().code(), StatusCode::kDataLoss) << c.line;
      continue;
    }
    EXPECT_EQ(event->type, c.type) << c.line;
    EXPECT_EQ(event->ErrorStatus().ok(), c.type != WatchEventType::kError);
  }
  auto error = DecodeWatchEvent(cases[4].line);
  EXPECT_TRUE(IsExpired(error->ErrorStatus()));
  EXPECT_EQ(WatchEventTypeName(WatchEventType::kBookmark), "BOOKMARK");
}

// The decoder builds the object straight from the envelope: it must read the envelope as a parse
// of the whole line did (first "type" and first "object" count, member order does not, other
// members are ignored) and give the same object.
TEST(RestCodecTest, WatchEventObjectIsTheEnvelopesObject) {
  const std::string object =
      R"({"kind":"Node","metadata":{"name":"n","labels":{"a/b":"c\"q\" \u00e9"}},)"
      R"("spec":{"taints":[{"key":"k","effect":"NoSchedule"}],"n":[1,-2,3.5,true,null,[]]}})";
  const auto want = JsonObject::Parse(object);
  ASSERT_TRUE(want.ok());
  const std::string lines[] = {
      R"({"type":"MODIFIED","object":)" + object + "}",
      R"({"object":)" + object + R"(,"type":"MODIFIED"})",
      R"( { "x":{"object":{"no":1},"type":"ERROR"}, "object":)" + object +
          R"(, "y":[{"object":2}], "type":"MODIFIED", "type":"ADDED", "object":{"second":1} } )",
  };
  for (const std::string& line : lines) {
    auto event = DecodeWatchEvent(line);
    ASSERT_TRUE(event.ok()) << line << ": " << event.status().ToString();
    EXPECT_EQ(event->type, WatchEventType::kModified) << line;
    EXPECT_EQ(event->object, *want) << line;
    EXPECT_EQ(event->object.Serialize(), want->Serialize()) << line;
    EXPECT_EQ(event->object.Labels().at("a/b"), "c\"q\" \xc3\xa9") << line;
  }
}

TEST(RestCodecTest, WatchEventOwnsTheLineItWasParsedFrom) {
  auto event = DecodeWatchEvent(R"({"type":"ADDED","object":{"metadata":{"name":"a-long-name-)"
                                R"(that-is-not-stored-inline","labels":{"k":"v"}}}})");
  ASSERT_TRUE(event.ok());
  WatchEvent moved = std::move(*event);
  event = DataLossError("gone");  // the first event and everything it held are gone
  EXPECT_EQ(moved.object.Name(), "a-long-name-that-is-not-stored-inline");
  JsonObject copy = moved.object;
  moved = WatchEvent{};
  EXPECT_EQ(copy.Name(), "a-long-name-that-is-not-stored-inline");
  EXPECT_EQ(copy.Label("k"), "v");
}

TEST(RestCodecTest, MalformedWatchEventsSayWhatIsWrong) {
  struct Case {
    std::string line;
    std::string message;
  };
  const Case cases[] = {
      {R"({"type":"ADDED","object":[]})", "watch event ADDED without an object"},
      {R"({"type":"ADDED","object":null,"object":{}})", "watch event ADDED without an object"},
      {R"({"type":1,"object":{}})", "watch event with unknown type ''"},
      {R"({"type":{"a":"ADDED"},"object":{}})", "watch event with unknown type ''"},
      {R"(["ADDED",{}])", "watch event with unknown type ''"},
      {"7", "watch event with unknown type ''"},
  };
  for (const Case& c : cases) {
    auto event = DecodeWatchEvent(c.line);
    ASSERT_FALSE(event.ok()) << c.line;
    EXPECT_EQ(event.status().code(), StatusCode::kDataLoss) << c.line;
    EXPECT_EQ(event.status().message(), c.message) << c.line;
  }
  // Broken JSON: the reader's own words and offset, as when the whole line was one document.
  const std::string broken[] = {
      R"({"type":"ADDED","object":{}} trailing)",
      R"({"type":"ADDED","object":{"a":"\x"}})",
      R"({"type":"ADDED","object":{"a":1,}})",
      R"({"object":{"a":[1,2}},"type":"ADDED"})",
  };
  for (const std::string& line : broken) {
    auto event = DecodeWatchEvent(line);
    ASSERT_FALSE(event.ok()) << line;
    EXPECT_EQ(event.status().code(), StatusCode::kDataLoss) << line;
    auto whole = JsonObject::ParseOwned(line);
    ASSERT_FALSE(whole.ok()) << line;
    EXPECT_EQ(event.status().message(), "malformed watch event: " + whole.status().message());
  }
}

// Depth counts from the envelope, as it did when the whole line was parsed: 512 levels in all.
TEST(RestCodecTest, WatchEventDepthLimitCountsTheEnvelope) {
  auto nested = [](int levels) {  // the object holds `levels` - 1 more levels of arrays
    return R"({"type":"ADDED","object":{"a":)" + std::string(levels - 2, '[') +
           std::string(levels - 2, ']') + "}}";
  };
  EXPECT_TRUE(DecodeWatchEvent(nested(kMaxJsonDepth)).ok());
  auto deep = DecodeWatchEvent(nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "malformed watch event: JSON nested deeper than 512 levels");
  auto deep_elsewhere =
      DecodeWatchEvent(R"({"type":"ADDED","object":{},"x":)" + std::string(kMaxJsonDepth, '[') +
                       std::string(kMaxJsonDepth, ']') + "}");
  ASSERT_FALSE(deep_elsewhere.ok());
  EXPECT_EQ(deep_elsewhere.status().message(),
            "malformed watch event: JSON nested deeper than 512 levels");
}

}  // namespace
}  // namespace rdmastack::k8s
