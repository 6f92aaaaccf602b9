// How the REST client's watch stream cuts the body into events, piece by piece as a transport
// hands them over: the pieces here are exact, where a real server's chunks may be merged by TLS.

#include <gtest/gtest.h>

#include <deque>

#include "operator/k8s/rest_client.h"
#include "operator/k8s/transport.h"

namespace rdmastack::k8s {
namespace {

// Serves one watch whose body comes in exactly the given pieces, then ends.
class PiecesTransport final : public Transport {
 public:
  explicit PiecesTransport(std::deque<std::string> pieces) : pieces_(std::move(pieces)) {}
  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    return InternalError("watches only, not " + request.target);
  }
  StatusOr<StreamResult> OpenStream(const HttpRequest&, std::chrono::milliseconds) override {
    StreamResult r;
    r.stream = std::make_unique<Stream>(std::move(pieces_));
    return r;
  }

 private:
  class Stream final : public ResponseStream {
   public:
    explicit Stream(std::deque<std::string> pieces) : pieces_(std::move(pieces)) {}
    StatusOr<std::optional<std::string>> Read() override {
      if (pieces_.empty()) return std::optional<std::string>();
      std::string piece = std::move(pieces_.front());
      pieces_.pop_front();
      return std::optional<std::string>(std::move(piece));
    }
    void Cancel() override {}

   private:
    std::deque<std::string> pieces_;
  };
  std::deque<std::string> pieces_;
};

std::string Event(const std::string& name) {
  return R"({"type":"ADDED","object":{"metadata":{"name":")" + name + R"("}}})";
}

StatusOr<std::vector<std::string>> Names(std::deque<std::string> pieces) {
  auto client = NewRestClientOverTransport(std::make_unique<PiecesTransport>(std::move(pieces)));
  RDMASTACK_ASSIGN_OR_RETURN(auto watch, client->Watch(kinds::Pod(), "", {}));
  std::vector<std::string> names;
  while (true) {
    RDMASTACK_ASSIGN_OR_RETURN(auto event, watch->Next());
    if (!event) return names;
    names.emplace_back(event->object.Name());
  }
}

TEST(WatchStreamTest, CutsEventsWhereverThePiecesEnd) {
  const std::string a = Event("a") + "\n", b = Event("b") + "\n", c = Event("c") + "\n";
  auto names = Names({
      a,                                             // exactly one line
      b.substr(0, 7), b.substr(7, 20),               // one line over three pieces
      b.substr(27) + c + "\r\n\n" + a.substr(0, 9),  // the end of one, a whole one, blank lines,
      a.substr(9) + Event("last"),                   // and a last event without a newline
  });
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "c", "a", "last"}));
  auto blank_end = Names({a, "  \r\n", "\t"});
  ASSERT_TRUE(blank_end.ok()) << blank_end.status().ToString();
  EXPECT_EQ(*blank_end, std::vector<std::string>{"a"});
}

// A piece that is exactly one line becomes the buffer the event's object is parsed in: its strings
// point into the bytes the transport read, which were copied nowhere.
TEST(WatchStreamTest, APieceThatIsOneLineIsNotCopied) {
  const std::string name(200, 'n');
  std::string piece = Event(name) + "\n";
  const char* begin = piece.data();
  const char* end = begin + piece.size();
  std::deque<std::string> pieces;
  pieces.push_back(std::move(piece));  // not an initializer list: that would copy it
  auto client = NewRestClientOverTransport(std::make_unique<PiecesTransport>(std::move(pieces)));
  auto watch = client->Watch(kinds::Pod(), "", {});
  ASSERT_TRUE(watch.ok());
  auto event = (*watch)->Next();
  ASSERT_TRUE(event.ok() && event->has_value());
  const std::string_view got = (*event)->object.Name();
  EXPECT_EQ(got, name);
  EXPECT_TRUE(got.data() >= begin && got.data() + got.size() <= end);
}

TEST(WatchStreamTest, AnEventLargerThanTheLimitIsRefused) {
  std::deque<std::string> pieces = {R"({"type":"ADDED","object":{"data":")"};
  for (int i = 0; i < 17; ++i) pieces.emplace_back(size_t{1} << 20, 'x');
  auto names = Names(std::move(pieces));
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(names.status().message(), "watch event larger than 16777216 bytes");
}

TEST(WatchStreamTest, AMalformedLineIsDataLoss) {
  auto names = Names({Event("a") + "\n{\"type\":\"ADDED\",\"obj\n" + Event("b") + "\n"});
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace rdmastack::k8s
