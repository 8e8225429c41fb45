// Tests of timeline.h: the Chrome trace of a traced run is valid JSON with one complete
// event per executed op, the process lane named, and arrows for the tensors between ops.
#include "src/03_hooked/hooks/timeline.h"

#include <set>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "tests/03_hooked/hooks/mini_json.h"

namespace mts {
namespace {

// The events of `trace` whose "ph" is `phase`.
std::vector<JsonValue> EventsOfPhase(const JsonValue& trace, const std::string& phase) {
  std::vector<JsonValue> out;
  for (const JsonValue& event : trace.at("traceEvents").array) {
    if (event.at("ph").string == phase) out.push_back(event);
  }
  return out;
}

// A graph c = a + b, run once with a full trace.
class TimelineTest : public ::testing::Test {
 protected:
  TimelineTest() : as_default_(graph_) {
    Output a = Constant(1.0f, "a");
    Output b = Constant(2.0f, "b");
    c_ = Add(a, b, "c");
    Session session(&graph_);
    RunOptions options;
    options.trace_level = RunOptions::TraceLevel::kFullTrace;
    session.Run({c_}, {}, {}, options, &metadata_);
  }

  Graph graph_;
  DefaultGraphScope as_default_;
  Output c_;
  RunMetadata metadata_;
};

// Every executed op becomes one "X" event with its name, type, start and duration, in the
// order the session ran them; the first event names the process lane.
TEST_F(TimelineTest, OneCompleteEventPerExecutedOp) {
  ASSERT_EQ(metadata_.step_stats.size(), 3u);
  const JsonValue trace = ParseJson(Timeline(metadata_, &graph_).GenerateChromeTraceFormat());

  const JsonValue& first = trace.at("traceEvents").at(0);
  EXPECT_EQ(first.at("ph").string, "M");
  EXPECT_EQ(first.at("name").string, "process_name");
  EXPECT_EQ(first.at("args").at("name").string, "/device:CPU:0 Compute");

  const std::vector<JsonValue> ops = EventsOfPhase(trace, "X");
  ASSERT_EQ(ops.size(), metadata_.step_stats.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const NodeExecStats& stats = metadata_.step_stats[i];
    EXPECT_EQ(ops[i].at("name").string, stats.node_name);
    EXPECT_EQ(ops[i].at("cat").string, "Op");
    EXPECT_EQ(ops[i].at("ts").number, static_cast<double>(stats.all_start_micros));
    EXPECT_EQ(ops[i].at("dur").number, static_cast<double>(stats.all_end_rel_micros));
    EXPECT_EQ(ops[i].at("pid").number, 0);
    EXPECT_EQ(ops[i].at("tid").number, 0);
    EXPECT_EQ(ops[i].at("args").at("name").string, stats.node_name);
  }
  EXPECT_EQ(ops.back().at("name").string, "c");
  EXPECT_EQ(ops.back().at("args").at("op").string, "Add");
}

// show_dataflow adds a flow start and end per tensor passed between executed ops: a -> c
// and b -> c; each pair shares an id, starts in the producer's slice, ends in c's.
TEST_F(TimelineTest, ShowDataflowDrawsAnArrowPerTensor) {
  const JsonValue plain = ParseJson(Timeline(metadata_, &graph_).GenerateChromeTraceFormat());
  EXPECT_TRUE(EventsOfPhase(plain, "s").empty());

  const JsonValue trace = ParseJson(
      Timeline(metadata_, &graph_).GenerateChromeTraceFormat(/*show_dataflow=*/true));
  const std::vector<JsonValue> starts = EventsOfPhase(trace, "s");
  const std::vector<JsonValue> ends = EventsOfPhase(trace, "t");
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  std::set<double> ids;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(starts[i].at("id").number, ends[i].at("id").number);
    ids.insert(starts[i].at("id").number);
    EXPECT_EQ(ends[i].at("ts").number,
              static_cast<double>(metadata_.step_stats.back().all_start_micros));
  }
  EXPECT_EQ(ids.size(), 2u);
}

// Without the graph, op types and arrows are unknown; the slices are still all there.
TEST_F(TimelineTest, WithoutAGraphOnlyNamesAndTimes) {
  const JsonValue trace =
      ParseJson(Timeline(metadata_).GenerateChromeTraceFormat(/*show_dataflow=*/true));
  const std::vector<JsonValue> ops = EventsOfPhase(trace, "X");
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_FALSE(ops.back().at("args").has("op"));
  EXPECT_TRUE(EventsOfPhase(trace, "s").empty());
}

// Names are escaped: quotes, backslashes and control characters survive the round trip.
TEST(TimelineEscapingTest, OddNamesStayValidJson) {
  RunMetadata metadata;
  metadata.step_stats.push_back({"quote\"back\\slash\nnew\x01line", 5, 7});
  const JsonValue trace = ParseJson(Timeline(metadata).GenerateChromeTraceFormat());
  EXPECT_EQ(EventsOfPhase(trace, "X").at(0).at("name").string,
            "quote\"back\\slash\nnew\x01line");
}

// An untraced run (empty step_stats) is still a valid trace, with only the process lane.
TEST(TimelineEscapingTest, EmptyRunIsAValidTrace) {
  const JsonValue trace = ParseJson(Timeline(RunMetadata()).GenerateChromeTraceFormat());
  EXPECT_EQ(trace.at("traceEvents").array.size(), 1u);
}

// The checker itself refuses what Chrome would refuse.
TEST(MiniJsonTest, RejectsInvalidJson) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "[1] x", "01", "nul",
                          "\"tab\there\"", "{\"a\":1,\"a\":2}"}) {
    EXPECT_THROW(ParseJson(bad), JsonParseError) << bad;
  }
  EXPECT_EQ(ParseJson(" {\"a\": [1, -2.5e1, true, null, \"x\\u0041\"]} ").at("a").at(4).string,
            "xA");
}

}  // namespace
}  // namespace mts
