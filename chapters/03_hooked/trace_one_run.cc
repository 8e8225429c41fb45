// trace_one_run: records every call of one HookedSession::Run and prints the trace, as text
// (with --text) or as a graphviz sequence diagram (the default), for chapter 03.
//
//   caller -> HookedSession -> hooks, then -> Session -> hooks again
//
// TracingSession layers record the Runs entering HookedSession and leaving it for the raw
// session; TracingHooks record the hook calls. Nothing is drawn by hand.
#include <cstring>
#include <iostream>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/03_hooked/hooked_session.h"
#include "tools/tracing/call_tracer.h"

int main(int argc, char** argv) {
  using namespace mts;
  const bool text = argc > 1 && std::strcmp(argv[1], "--text") == 0;

  Graph graph;
  DefaultGraphScope as_default(graph);
  GetOrCreateGlobalStep();
  Operation* train_op = IncrementGlobalStep().op();
  Operation* init = GlobalVariablesInitializer();

  // [mts:trace-stack]
  auto tracer = std::make_shared<CallTracer>();
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      std::make_shared<TracingHook>(tracer, "hook A"),
      std::make_shared<TracingHook>(tracer, "hook B")};
  auto raw = std::make_unique<Session>(&graph);
  raw->Run(init);
  auto traced_raw =
      std::make_unique<TracingSession>(std::move(raw), tracer, "Session", "HookedSession");
  auto hooked = std::make_unique<HookedSession>(std::move(traced_raw), hooks);
  TracingSession session(std::move(hooked), tracer, "HookedSession", "caller");

  session.Run(train_op);  // One step, traced.
  // [mts:trace-stack-end]

  std::cout << (text ? tracer->ToText() : tracer->ToGraphviz());
  return 0;
}
