// overhead_benchmark: what the machinery costs around a step that does almost nothing.
//
//   1. Stack overhead: a trivial train op (the global step's increment) through the whole
//      training stack with its default hooks, against a raw Session::Run of the same op;
//      then each wrapper layer alone against the layer below it.
//   2. Session overhead: Session::Run of a one-op graph against calling that op's kernel.
//   3. Executor per-node cost: a 101-op chain against a 1-op graph, the difference over 100.
//
// Each comparison runs both sides alternately in one benchmark (see compare.h).
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/hooked_session.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/logging.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

constexpr int kBatch = 2000;  // Calls per side per round.

// A graph whose train op only increments the global step, and a way to run it.
struct TrivialStep {
  Graph graph;
  Operation* train_op = nullptr;
  Operation* init_op = nullptr;
  const std::vector<Output> no_fetches;
  const FeedDict no_feeds;

  TrivialStep() {
    DefaultGraphScope as_default(graph);
    GetOrCreateGlobalStep();
    train_op = IncrementGlobalStep().op();
    init_op = GlobalVariablesInitializer();
  }
  void Step(SessionInterface& session) const { session.Run(no_fetches, no_feeds, {train_op}); }
  // A raw session with its variables initialised.
  std::unique_ptr<Session> NewSession() {
    auto session = std::make_unique<Session>(&graph);
    session->Run(init_op);
    return session;
  }
};

// Makes what a function returns, for RecoverableSession.
class FunctionCreator : public SessionCreator {
 public:
  explicit FunctionCreator(std::function<std::unique_ptr<SessionInterface>()> fn)
      : fn_(std::move(fn)) {}
  std::unique_ptr<SessionInterface> CreateSession() override { return fn_(); }

 private:
  std::function<std::unique_ptr<SessionInterface>()> fn_;
};

std::unique_ptr<SessionInterface> Hooked(std::unique_ptr<SessionInterface> s) {
  return std::make_unique<HookedSession>(std::move(s),
                                         std::vector<std::shared_ptr<SessionRunHook>>{});
}
std::unique_ptr<SessionInterface> Coordinated(std::unique_ptr<SessionInterface> s) {
  return std::make_unique<CoordinatedSession>(std::move(s), std::make_shared<Coordinator>());
}

// [mts:bench-stack-overhead]
// 1. The whole stack, default hooks included, against the raw session.
void BM_StackOverhead(benchmark::State& state) {
  TrivialStep m;
  std::unique_ptr<Session> raw = m.NewSession();
  const std::string dir = MakeTempDir("stack");
  std::unique_ptr<SessionInterface> stack;
  {
    DefaultGraphScope as_default(m.graph);
    stack = MakeTrainingStack(dir);
  }
  Comparison c = CompareInterleaved(
      state, [&] { m.Step(*stack); }, [&] { m.Step(*raw); }, kBatch);
  SetResult(state, (c.a_ns - c.b_ns) / 1000, /*limit=*/2.0, Unit::kMicros);
  stack->Close();
  RemoveTempDir(dir);
}
BENCHMARK(BM_StackOverhead)->Unit(benchmark::kMicrosecond);
// [mts:bench-stack-overhead-end]

// 1a. HookedSession with no hooks against the raw session.
void BM_LayerHooked(benchmark::State& state) {
  TrivialStep m;
  std::unique_ptr<Session> raw = m.NewSession();
  std::unique_ptr<SessionInterface> hooked = Hooked(m.NewSession());
  Comparison c = CompareInterleaved(
      state, [&] { m.Step(*hooked); }, [&] { m.Step(*raw); }, kBatch);
  SetResult(state, (c.a_ns - c.b_ns) / 1000, /*limit=*/0.1, Unit::kMicros);
}
BENCHMARK(BM_LayerHooked)->Unit(benchmark::kMicrosecond);

// 1b. CoordinatedSession (no queue runners) against the HookedSession it wraps.
void BM_LayerCoordinated(benchmark::State& state) {
  TrivialStep m;
  std::unique_ptr<SessionInterface> hooked = Hooked(m.NewSession());
  std::unique_ptr<SessionInterface> coordinated = Coordinated(Hooked(m.NewSession()));
  Comparison c = CompareInterleaved(
      state, [&] { m.Step(*coordinated); }, [&] { m.Step(*hooked); }, kBatch);
  SetResult(state, (c.a_ns - c.b_ns) / 1000, /*limit=*/0.1, Unit::kMicros);
  coordinated->Close();
}
BENCHMARK(BM_LayerCoordinated)->Unit(benchmark::kMicrosecond);

// 1c. RecoverableSession against the CoordinatedSession it wraps.
void BM_LayerRecoverable(benchmark::State& state) {
  TrivialStep m;
  std::unique_ptr<SessionInterface> coordinated = Coordinated(Hooked(m.NewSession()));
  RecoverableSession recoverable(
      std::make_shared<FunctionCreator>([&m] { return Coordinated(Hooked(m.NewSession())); }));
  Comparison c = CompareInterleaved(
      state, [&] { m.Step(recoverable); }, [&] { m.Step(*coordinated); }, kBatch);
  SetResult(state, (c.a_ns - c.b_ns) / 1000, /*limit=*/0.1, Unit::kMicros);
  recoverable.Close();
  coordinated->Close();
}
BENCHMARK(BM_LayerRecoverable)->Unit(benchmark::kMicrosecond);

// [mts:bench-session-overhead]
// 2. Session::Run of a one-op graph against calling the op's kernel with a context made by
// hand: what the session adds (checks, plan lookup, value slots, the result vector).
void BM_SessionOverhead(benchmark::State& state) {
  Graph graph;
  Output c;
  {
    DefaultGraphScope as_default(graph);
    c = Constant(1.0f);
  }
  Session session(&graph);
  const std::vector<Output> fetches = {c};
  const Operation& op = *c.op();
  Comparison cmp = CompareInterleaved(
      state, [&] { benchmark::DoNotOptimize(session.Run(fetches)); },
      [&] {
        Tensor out;
        OpKernelContext ctx(op, nullptr, &out, nullptr, nullptr, &session);
        op.def().kernel(ctx);
        benchmark::DoNotOptimize(out);
      },
      kBatch);
  SetResult(state, (cmp.a_ns - cmp.b_ns) / 1000, /*limit=*/3.0, Unit::kMicros);
}
BENCHMARK(BM_SessionOverhead)->Unit(benchmark::kMicrosecond);
// [mts:bench-session-overhead-end]

// [mts:bench-executor-per-node]
// 3. A chain Const -> 100 x Identity against a lone Const: the executor's cost per op.
void BM_ExecutorPerNode(benchmark::State& state) {
  constexpr int kChain = 100;
  Graph one, chain;
  Output single, last;
  {
    DefaultGraphScope as_default(one);
    single = Constant(1.0f);
  }
  {
    DefaultGraphScope as_default(chain);
    last = Constant(1.0f);
    for (int i = 0; i < kChain; ++i) last = Identity(last);
  }
  Session one_session(&one), chain_session(&chain);
  const std::vector<Output> fetch_single = {single}, fetch_last = {last};
  Comparison c = CompareInterleaved(
      state, [&] { benchmark::DoNotOptimize(chain_session.Run(fetch_last)); },
      [&] { benchmark::DoNotOptimize(one_session.Run(fetch_single)); }, kBatch / 10);
  SetResult(state, (c.a_ns - c.b_ns) / kChain / 1000, /*limit=*/0.3, Unit::kMicros);
}
BENCHMARK(BM_ExecutorPerNode)->Unit(benchmark::kMicrosecond);
// [mts:bench-executor-per-node-end]

}  // namespace
}  // namespace bench
}  // namespace mts
