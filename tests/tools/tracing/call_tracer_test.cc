// CallTracer and its adapters record the real order of calls in one hooked run.
#include "tools/tracing/call_tracer.h"

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/03_hooked/hooked_session.h"

namespace mts {
namespace {

// One Run of a HookedSession with two hooks: every BeforeRun, then the one raw run, then
// every AfterRun, each in list order.
TEST(CallTracerTest, RecordsOneHookedRunInOrder) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Output c = Constant(1.0f);
  auto tracer = std::make_shared<CallTracer>();
  auto raw = std::make_unique<TracingSession>(std::make_unique<Session>(&graph), tracer, "Session",
                                              "HookedSession");
  auto hooked = std::make_unique<HookedSession>(
      std::move(raw),
      std::vector<std::shared_ptr<SessionRunHook>>{std::make_shared<TracingHook>(tracer, "A"),
                                                   std::make_shared<TracingHook>(tracer, "B")});
  TracingSession session(std::move(hooked), tracer, "HookedSession", "caller");
  session.Run(c);
  EXPECT_EQ(tracer->ToText(),
            "caller -> HookedSession: Run\n"
            "HookedSession -> A: BeforeRun\n"
            "HookedSession -> B: BeforeRun\n"
            "HookedSession -> Session: Run\n"
            "HookedSession <- Session: Run\n"
            "HookedSession -> A: AfterRun\n"
            "HookedSession -> B: AfterRun\n"
            "caller <- HookedSession: Run\n");
}

// A run that throws is recorded as a return whose outcome is "threw": drawn "Run threw",
// printed "Run (threw)".
TEST(CallTracerTest, RecordsARunThatThrows) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Output x = Placeholder(DataType::kFloat, TensorShape{}, "x");
  auto tracer = std::make_shared<CallTracer>();
  TracingSession session(std::make_unique<Session>(&graph), tracer, "Session", "caller");
  EXPECT_THROW(session.Run(x), InvalidArgumentError);
  ASSERT_EQ(tracer->events().size(), 2u);
  EXPECT_EQ(tracer->events()[1].method, "Run");
  EXPECT_EQ(tracer->events()[1].outcome, "threw");
  EXPECT_EQ(tracer->ToText(), "caller -> Session: Run\ncaller <- Session: Run (threw)\n");
  EXPECT_TRUE(tracer->events()[1].is_return);
}

// The graphviz rendering has one header per participant and one numbered arrow per event.
TEST(CallTracerTest, GraphvizHasALaneEachAndAnArrowPerEvent) {
  CallTracer tracer;
  tracer.Call("caller", "S", "Run");
  tracer.Return("caller", "S", "Run");
  const std::string dot = tracer.ToGraphviz();
  EXPECT_NE(dot.find("label=\"caller\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"S\""), std::string::npos);
  EXPECT_NE(dot.find("1. Run\""), std::string::npos);
  EXPECT_NE(dot.find("2. Run returns\""), std::string::npos);
  EXPECT_EQ(dot.rfind("digraph sequence {", 0), 0u);
}

// A return's outcome replaces "returns" in the picture and follows the line in the text.
TEST(CallTracerTest, AReturnCarriesItsOutcome) {
  CallTracer tracer;
  tracer.Call("thread", "queue", "Run(enqueue)");
  tracer.Return("thread", "queue", "Run(enqueue)", "raised CancelledError");
  EXPECT_EQ(tracer.ToText(),
            "thread -> queue: Run(enqueue)\n"
            "thread <- queue: Run(enqueue) (raised CancelledError)\n");
  const std::string dot = tracer.ToGraphviz();
  EXPECT_NE(dot.find("2. Run(enqueue) raised CancelledError\""), std::string::npos);
  EXPECT_EQ(dot.find("returns"), std::string::npos);
}

// Participants added beforehand take the first columns, in the order added, whatever the
// order their events come in; the others follow in order of first appearance.
TEST(CallTracerTest, AddedParticipantsComeFirstInTheirOrder) {
  CallTracer tracer;
  tracer.AddParticipant("left");
  tracer.AddParticipant("middle");
  tracer.AddParticipant("left");  // No second column.
  tracer.Call("right", "middle", "A");
  tracer.Call("left", "middle", "B");
  tracer.Call("other", "right", "C");
  const std::string dot = tracer.ToGraphviz();
  EXPECT_NE(dot.find("h0 [shape=box"), std::string::npos);
  EXPECT_NE(dot.find("label=\"left\"];\n  h0 ->"), std::string::npos);
  EXPECT_NE(dot.find("label=\"middle\"];\n  h1 ->"), std::string::npos);
  EXPECT_NE(dot.find("label=\"right\"];\n  h2 ->"), std::string::npos);
  EXPECT_NE(dot.find("label=\"other\"];\n  h3 ->"), std::string::npos);
  EXPECT_EQ(dot.find("h4 [shape=box"), std::string::npos);
  tracer.Clear();
  tracer.Call("b", "a", "D");
  EXPECT_NE(tracer.ToGraphviz().find("label=\"b\"];\n  h0 ->"), std::string::npos);
}

// Every node is pinned inside the book's column (630 points), however many participants
// with however long names: the picture never scrolls sideways.
TEST(CallTracerTest, EveryNodeIsPinnedInsideTheColumn) {
  CallTracer tracer;
  for (int i = 0; i < 10; ++i) {
    tracer.Call("RecoverableSession" + std::to_string(i), "CheckpointSaverHook" + std::to_string(i),
                "AVeryLongMethodNameIndeed");
  }
  const std::string dot = tracer.ToGraphviz();
  EXPECT_NE(dot.find("layout=neato"), std::string::npos);
  size_t pins = 0;
  for (size_t at = dot.find("pos=\""); at != std::string::npos; at = dot.find("pos=\"", at + 1)) {
    const double x_inches = std::stod(dot.substr(at + 5));
    EXPECT_GE(x_inches, 0.0);
    EXPECT_LE(x_inches * 72, 630.0);
    ++pins;
  }
  EXPECT_GT(pins, 20u);
}

// Names too long for one column stand in two tiers, odd columns lower, so that each box
// may be almost two columns wide.
TEST(CallTracerTest, LongNamesStandInTwoTiers) {
  CallTracer tracer;
  for (const char* name :
       {"caller", "MonitoredSession", "RecoverableSession", "CoordinatedSession", "HookedSession",
        "hook", "SessionCreator", "CheckpointSaverHook", "Saver", "Session"}) {
    tracer.AddParticipant(name);
  }
  tracer.Call("caller", "Session", "Run");
  const std::string dot = tracer.ToGraphviz();
  const size_t h0 = dot.find("h0 [");
  const size_t h1 = dot.find("h1 [");
  ASSERT_NE(h1, std::string::npos);
  EXPECT_NE(dot.substr(h0, 300).find(",0!\""), std::string::npos);
  EXPECT_EQ(dot.substr(h1, 300).find(",0!\""), std::string::npos);
}

}  // namespace
}  // namespace mts
