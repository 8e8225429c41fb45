// Tests of session.h: what one Session::Run executes (exactly the needed ops, each once,
// feeds overriding any tensor), the errors it raises and their texts, closing, the plan
// cache, tracing, and concurrent runs on shared variables.
#include "src/01_session/session.h"

#include <future>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/variables.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Property;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// A test-only op whose kernel fails with AbortedError and, like a careless kernel, does not
// name itself: the executor must add the name.
void FailShape(ShapeContext& ctx) { ctx.AddOutput(DataType::kFloat, TensorShape{}); }
void FailKernel(OpKernelContext&) { throw AbortedError("the kernel gave up"); }
const OpRegistration fail_op({"SessionTestFail", FailShape, FailKernel});

// Each test builds in its own graph, made default for the test's duration, with a counter
// variable whose increments show which ops ran and how often.
class SessionTest : public ::testing::Test {
 protected:
  // The counter's value in `session`.
  int64_t Count(Session& session) { return session.Run(counter_.value()).scalar<int64_t>(); }

  Graph g_;
  DefaultGraphScope as_default_{g_};
  Variable counter_{Tensor::Scalar(int64_t{0}), "counter"};
  Output increment_ = counter_.AssignAdd(Constant(int64_t{1}), "increment");
};

// ---- Which graph -------------------------------------------------------------------------

// A Session made without a graph runs the default graph; one made with a graph runs that.
TEST_F(SessionTest, RunsTheDefaultGraphUnlessGivenOne) {
  Session on_default;
  EXPECT_EQ(on_default.graph(), &g_);
  EXPECT_EQ(on_default.target(), "");
  Graph other;
  Session on_other(&other);
  EXPECT_EQ(on_other.graph(), &other);
}

// ---- Fetches -----------------------------------------------------------------------------

// Run returns one value per fetch, in the order asked, repeats included.
TEST_F(SessionTest, RunReturnsFetchesInOrder) {
  Output a = Constant(1.0f), b = Constant(2.0f), c = Constant(3.0f);
  Session session;
  std::vector<Tensor> values = session.Run({c, a, b, a});
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0].scalar<float>(), 3.0f);
  EXPECT_EQ(values[1].scalar<float>(), 1.0f);
  EXPECT_EQ(values[2].scalar<float>(), 2.0f);
  EXPECT_EQ(values[3].scalar<float>(), 1.0f);
}

// The Run that fills a caller's vector gives what the returning Run gives and replaces what
// the vector held, so one vector can serve run after run.
TEST_F(SessionTest, RunIntoOutputsReplacesWhatTheVectorHeld) {
  Output a = Constant(1.0f), b = Constant(2.0f);
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> outputs = {Tensor::Scalar(7.0f), Tensor::Scalar(8.0f), Tensor::Scalar(9.0f)};
  session.Run({b, a, b}, {}, {}, {}, nullptr, &outputs);
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].scalar<float>(), 2.0f);
  EXPECT_EQ(outputs[1].scalar<float>(), 1.0f);
  EXPECT_EQ(outputs[2].scalar<float>(), 2.0f);
  session.Run({a}, {}, {increment_.op()}, {}, nullptr, &outputs);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].scalar<float>(), 1.0f);
  session.Run({}, {}, {increment_.op()}, {}, nullptr, &outputs);
  EXPECT_TRUE(outputs.empty());
  EXPECT_EQ(Count(session), 2);
}

// A run with nothing to fetch and no targets does nothing and returns nothing.
TEST_F(SessionTest, EmptyRunReturnsNothing) {
  Session session;
  EXPECT_TRUE(session.Run(std::vector<Output>{}).empty());
}

// Eval(tensor, session) is Run of one tensor (tensor.eval(session=...)).
TEST_F(SessionTest, EvalRunsOneTensor) {
  Output p = Placeholder(DataType::kInt32, {}, "p");
  Output c = Constant(int32_t{7});
  Session session;
  EXPECT_EQ(Eval(c, session).scalar<int32_t>(), 7);
  EXPECT_EQ(Eval(Identity(p), session, {{p, Tensor::Scalar(int32_t{3})}}).scalar<int32_t>(), 3);
}

// ---- Exactly the needed subgraph, each op once -------------------------------------------

// Ops on a branch nothing fetched depends on do not run.
TEST_F(SessionTest, UnneededOpsDoNotRun) {
  Output unrelated = Constant(1.0f);
  Identity(increment_, "uses_increment");  // A consumer of the increment, also not fetched.
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(unrelated);
  session.Run(counter_.value());
  EXPECT_EQ(Count(session), 0);
}

// An op fetched twice in one run runs once.
TEST_F(SessionTest, AnOpFetchedTwiceRunsOnce) {
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> values = session.Run({increment_, increment_});
  EXPECT_EQ(values[0].scalar<int64_t>(), 1);
  EXPECT_EQ(values[1].scalar<int64_t>(), 1);
  EXPECT_EQ(Count(session), 1);
}

// An op reached by two paths (two consumers, a data edge and a control edge) runs once.
TEST_F(SessionTest, AnOpReachedByTwoPathsRunsOnce) {
  Output left = Identity(increment_, "left");
  Output right = Identity(increment_, "right");
  Operation* both = Group({left.op(), right.op(), increment_.op()}, "both");
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run({left, right});
  EXPECT_EQ(Count(session), 1);
  session.Run(both);
  EXPECT_EQ(Count(session), 2);
}

// Running a target runs it and what it depends on, and fetches nothing.
TEST_F(SessionTest, TargetsRunForTheirEffect) {
  Operation* step = Group({increment_.op()}, "step");
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_TRUE(session.Run({}, {}, {step, step}).empty());
  EXPECT_EQ(Count(session), 1);
}

// Control inputs run before the op that depends on them.
TEST_F(SessionTest, ControlDependenciesRunBeforeTheOp) {
  Operation* after;
  {
    ControlDependencies deps({increment_.op()});
    after = NoOp("after");
  }
  Session session;
  session.Run(GlobalVariablesInitializer());
  RunOptions trace;
  trace.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata metadata;
  session.Run({}, {}, {after}, trace, &metadata);
  EXPECT_EQ(Count(session), 1);
  std::vector<std::string> order;
  for (const NodeExecStats& s : metadata.step_stats) order.push_back(s.node_name);
  auto pos = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  ASSERT_LT(pos("increment"), static_cast<long>(order.size()));
  EXPECT_LT(pos("increment"), pos("after"));
}

// ---- Feeds -------------------------------------------------------------------------------

// A placeholder takes the fed value.
TEST_F(SessionTest, FeedsFillPlaceholders) {
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output y = Identity(x);
  Session session;
  Tensor fed = Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}});  // Any batch size fits [?,2].
  EXPECT_TRUE(TensorEqual(session.Run(y, {{x, fed}}), fed));
}

// Feeding an intermediate tensor skips its producer: here the producer needs an unfed
// placeholder, and the run still succeeds.
TEST_F(SessionTest, FeedingAnIntermediateTensorSkipsItsProducer) {
  Output x = Placeholder(DataType::kFloat, {}, "x");
  Output middle = Identity(x, "middle");
  Output out = Identity(middle, "out");
  Session session;
  EXPECT_EQ(session.Run(out, {{middle, Tensor::Scalar(5.0f)}}).scalar<float>(), 5.0f);
  EXPECT_THROW(session.Run(out), InvalidArgumentError);  // Unfed, the producer runs and fails.
}

// Feeding the output of a stateful op replaces it: the op does not run.
TEST_F(SessionTest, FeedingAStatefulOpsOutputSkipsTheOp) {
  Output after_increment = Identity(increment_);
  Session session;
  session.Run(GlobalVariablesInitializer());
  Tensor fed = Tensor::Scalar(int64_t{41});
  EXPECT_EQ(session.Run(after_increment, {{increment_, fed}}).scalar<int64_t>(), 41);
  EXPECT_EQ(Count(session), 0);
}

// A feed overrides even a constant, and a fed tensor may also be fetched.
TEST_F(SessionTest, FeedsOverrideAnyTensor) {
  Output c = Constant(1.0f, "c");
  Output y = Identity(c);
  Session session;
  Tensor two = Tensor::Scalar(2.0f);
  std::vector<Tensor> values = session.Run({y, c}, {{c, two}});
  EXPECT_EQ(values[0].scalar<float>(), 2.0f);
  EXPECT_EQ(values[1].scalar<float>(), 2.0f);
  EXPECT_EQ(session.Run(y).scalar<float>(), 1.0f);  // Only for that run.
}

// A feed of the wrong dtype is a TypeError naming the tensor.
TEST_F(SessionTest, FeedOfTheWrongDtypeRaisesTypeError) {
  Output x = Placeholder(DataType::kFloat, {2}, "x");
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(Identity(x), {{x, Tensor::Vector<int32_t>({1, 2})}});
      },
      ThrowsMessage<TypeError>(
          HasSubstr("Cannot feed value of dtype int32 for Tensor 'x:0', which has dtype float32")));
}

// A feed of an incompatible shape is a ValueError naming the tensor and both shapes.
TEST_F(SessionTest, FeedOfTheWrongShapeRaisesValueError) {
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output y = Identity(x);
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(y, {{x, Tensor::Vector<float>({1, 2})}});
      },
      ThrowsMessage<ValueError>(
          HasSubstr("Cannot feed value of shape [2] for Tensor 'x:0', which has shape [?,2]")));
  EXPECT_THROW(session.Run(y, {{x, Tensor::Matrix<float>({{1, 2, 3}})}}), ValueError);
  EXPECT_THROW(session.Run(y, {{x, Tensor()}}), ValueError);  // No value at all.
}

// An unfed placeholder is an InvalidArgumentError naming it.
TEST_F(SessionTest, UnfedPlaceholderRaisesInvalidArgumentNamingIt) {
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output y = Identity(x);
  Session session;
  EXPECT_THAT([&] { session.Run(y); },
              Throws<InvalidArgumentError>(
                  AllOf(HasOpName("x"), HasMessage("You must feed a value for placeholder tensor "
                                                   "'x' with dtype float32 and shape [?,2]"))));
}

// ---- Graph mismatches --------------------------------------------------------------------

// Fetching a tensor of another graph is a ValueError with TensorFlow's phrase, whichever
// graph the session is on (the seed's two-graph example).
TEST_F(SessionTest, FetchingATensorOfAnotherGraphRaisesValueError) {
  Graph g1, g2;
  Output c1, c2;
  {
    DefaultGraphScope as_default(g1);
    c1 = Constant(1.0f, "c1");
  }
  {
    DefaultGraphScope as_default(g2);
    c2 = Constant(2.0f, "c2");
  }
  const std::string phrase = "the tensor's graph is different from the session's graph";
  Session on_g2(&g2);
  EXPECT_THAT([&] { on_g2.Run(c1); }, ThrowsMessage<ValueError>(HasSubstr(phrase)));
  EXPECT_EQ(on_g2.Run(c2).scalar<float>(), 2.0f);
  Session on_g1(&g1);
  EXPECT_THAT([&] { on_g1.Run(c2); }, ThrowsMessage<ValueError>(HasSubstr(phrase)));
  EXPECT_EQ(on_g1.Run(c1).scalar<float>(), 1.0f);
}

// Feeds and targets of another graph are ValueErrors too.
TEST_F(SessionTest, FeedsAndTargetsOfAnotherGraphRaiseValueError) {
  Graph other;
  Output foreign;
  Operation* foreign_op;
  {
    DefaultGraphScope as_default(other);
    foreign = Placeholder(DataType::kFloat, {}, "foreign");
    foreign_op = NoOp("foreign_op");
  }
  Output mine = Constant(1.0f);
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(mine, {{foreign, Tensor::Scalar(1.0f)}});
      },
      ThrowsMessage<ValueError>(
          HasSubstr("the tensor's graph is different from the session's graph")));
  EXPECT_THROW(session.Run(foreign_op), ValueError);
  EXPECT_THROW(session.Run(Output()), ValueError);  // A null handle.
}

// ---- Closed and empty sessions -----------------------------------------------------------

// A session on an empty graph refuses to run, with TensorFlow's text.
TEST_F(SessionTest, EmptyGraphRaisesRuntimeError) {
  Graph empty;
  Session session(&empty);
  EXPECT_THAT(
      [&] { session.Run(std::vector<Output>{}); },
      ThrowsMessage<RuntimeError>(
          StrEq("The Session graph is empty.  Add operations to the graph before calling run().")));
}

// After Close, Run raises TensorFlow's closed-session error.
TEST_F(SessionTest, RunAfterCloseRaisesRuntimeError) {
  Output c = Constant(1.0f);
  Session session;
  EXPECT_FALSE(session.closed());
  session.Close();
  EXPECT_TRUE(session.closed());
  EXPECT_THAT([&] { session.Run(c); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Attempted to use a closed Session. Make a new session to run again.")));
}

// A closed session says it is closed, even over an empty graph: TensorFlow's Session.run
// checks that first.
TEST_F(SessionTest, ClosedIsCheckedBeforeAnEmptyGraph) {
  Graph empty;
  Session session(&empty);
  session.Close();
  EXPECT_THAT([&] { session.Run(std::vector<Output>{}); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Attempted to use a closed Session. Make a new session to run again.")));
}

// Close is idempotent, and the destructor never throws, whether or not Close ran.
TEST_F(SessionTest, CloseTwiceIsFineAndDestructionNeverThrows) {
  static_assert(std::is_nothrow_destructible_v<Session>, "~Session must not throw");
  Constant(1.0f);
  {
    Session session;
    session.Run(GlobalVariablesInitializer());
    session.Close();
    EXPECT_NO_THROW(session.Close());
  }
  EXPECT_NO_THROW({
    Session never_closed;
    never_closed.Run(GlobalVariablesInitializer());
  });
}

// ---- Variable state belongs to the session -----------------------------------------------

// Two sessions on one graph hold separate values for the same variable.
TEST_F(SessionTest, TwoSessionsHoldSeparateVariableValues) {
  Session first, second;
  first.Run(GlobalVariablesInitializer());
  second.Run(GlobalVariablesInitializer());
  first.Run(increment_);
  first.Run(increment_);
  second.Run(increment_);
  EXPECT_EQ(Count(first), 2);
  EXPECT_EQ(Count(second), 1);
  Session third;
  EXPECT_THROW(Count(third), FailedPreconditionError);  // A new session starts with none.
}

// Updates made before a failing op are kept, as in TensorFlow.
TEST_F(SessionTest, UpdatesBeforeAFailureAreKept) {
  Output x = Placeholder(DataType::kInt64, {}, "x");  // Made after the increment.
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_THROW(session.Run({increment_, Identity(x)}), InvalidArgumentError);
  EXPECT_EQ(Count(session), 1);
}

// ---- Errors from kernels -----------------------------------------------------------------

// An error raised by a kernel keeps its class and carries the name of the op.
TEST_F(SessionTest, KernelErrorsCarryTheOpName) {
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim}, "x");
  Output r = Reshape(x, {3}, "to_three");
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(r, {{x, Tensor::Vector<float>({1, 2, 3, 4})}});
      },
      Throws<InvalidArgumentError>(AllOf(
          HasOpName("to_three"), Property(&std::exception::what, HasSubstr("[[node to_three]]")))));
}

// A kernel that forgets to name its op gets the name added, and keeps its error class.
TEST_F(SessionTest, TheExecutorNamesTheOpAKernelForgot) {
  Output failing = g_.AddOperation("SessionTestFail", "fails", {})->output(0);
  Session session;
  EXPECT_THAT([&] { session.Run(failing); },
              Throws<AbortedError>(AllOf(HasOpName("fails"), HasMessage("the kernel gave up"))));
}

// ---- The plan cache ----------------------------------------------------------------------

// Each distinct (feeds, fetches, targets) signature is planned once, however often it runs.
TEST_F(SessionTest, PlansAreCachedPerSignature) {
  Output x = Placeholder(DataType::kFloat, {}, "x");
  Output a = Identity(x, "a");
  Output b = Constant(1.0f, "b");
  FeedDict feed{{x, Tensor::Scalar(1.0f)}};
  Session session;
  EXPECT_EQ(session.num_cached_plans(), 0);
  for (int i = 0; i < 5; ++i) session.Run(a, feed);
  EXPECT_EQ(session.num_cached_plans(), 1);
  session.Run(b);
  EXPECT_EQ(session.num_cached_plans(), 2);
  session.Run({a, b}, feed);
  session.Run({b, a}, feed);  // Fetch order is part of the signature.
  EXPECT_EQ(session.num_cached_plans(), 4);
  session.Run(b, feed);  // Same fetch, different feeds: a new signature.
  EXPECT_EQ(session.num_cached_plans(), 5);
  for (int i = 0; i < 5; ++i) {
    session.Run(a, {{x, Tensor::Scalar(static_cast<float>(i))}});  // Other values, same plan.
    session.Run(b);
  }
  EXPECT_EQ(session.num_cached_plans(), 5);
}

// A cached plan depends on which tensors are fed, never on their values: each run of the
// same signature computes with the values it was given.
TEST_F(SessionTest, ACachedPlanTakesEachRunsFedValues) {
  Output x = Placeholder(DataType::kFloat, {}, "x");
  Output y = Identity(x, "y");
  Session session;
  for (float value : {1.0f, 2.0f, -3.0f}) {
    EXPECT_EQ(session.Run(y, {{x, Tensor::Scalar(value)}}).scalar<float>(), value);
  }
  EXPECT_EQ(session.num_cached_plans(), 1);
}

// ---- Tracing -----------------------------------------------------------------------------

// Under kFullTrace, RunMetadata lists every executed op, in execution order; otherwise
// it stays empty.
TEST_F(SessionTest, FullTraceRecordsStepStats) {
  Output c = Constant(1.0f, "c");
  Output y = Identity(c, "y");
  Session session;
  RunMetadata untraced;
  session.Run({y}, {}, {}, RunOptions{}, &untraced);
  EXPECT_TRUE(untraced.step_stats.empty());

  RunOptions trace;
  trace.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata traced;
  session.Run({y}, {}, {}, trace, &traced);
  ASSERT_EQ(traced.step_stats.size(), 2u);
  EXPECT_EQ(traced.step_stats[0].node_name, "c");
  EXPECT_EQ(traced.step_stats[1].node_name, "y");
  EXPECT_GT(traced.step_stats[0].all_start_micros, 0);
  EXPECT_GE(traced.step_stats[0].all_end_rel_micros, 0);
}

// A test-only op whose kernel takes 250 us of a fake clock's time, then passes its input on.
FakeClock* g_kernel_clock = nullptr;  // Set by the test that runs the op.
void TakeTimeShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}
void TakeTimeKernel(OpKernelContext& ctx) {
  g_kernel_clock->Advance(250);
  ctx.set_output(0, ctx.input(0));
}
const OpRegistration take_time_op({"SessionTestTakeTime", TakeTimeShape, TakeTimeKernel});

// A traced run times its ops on the clock of SessionOptions: each start is the clock's wall
// time, each duration the clock's time the kernel took, exactly, on a fake clock.
TEST_F(SessionTest, FullTraceTimesOpsOnTheSessionsClock) {
  FakeClock clock;
  g_kernel_clock = &clock;
  Output c = Constant(1.0f, "c");
  Output slow = g_.AddOperation("SessionTestTakeTime", "slow", {c})->output(0);
  Output after = Identity(slow, "after");
  SessionOptions options;
  options.clock = &clock;
  Session session(&g_, options);
  RunOptions trace;
  trace.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata traced;
  session.Run({after}, {}, {}, trace, &traced);
  g_kernel_clock = nullptr;

  const int64_t t0 = FakeClock::kDefaultWallStartMicros;
  ASSERT_EQ(traced.step_stats.size(), 3u);
  EXPECT_EQ(traced.step_stats[0].node_name, "c");
  EXPECT_EQ(traced.step_stats[0].all_start_micros, t0);
  EXPECT_EQ(traced.step_stats[0].all_end_rel_micros, 0);
  EXPECT_EQ(traced.step_stats[1].node_name, "slow");
  EXPECT_EQ(traced.step_stats[1].all_start_micros, t0);
  EXPECT_EQ(traced.step_stats[1].all_end_rel_micros, 250);
  EXPECT_EQ(traced.step_stats[2].node_name, "after");
  EXPECT_EQ(traced.step_stats[2].all_start_micros, t0 + 250);
  EXPECT_EQ(traced.step_stats[2].all_end_rel_micros, 0);
}

// RunMetadata is filled in place for each run: reusing one describes only the latest run.
TEST_F(SessionTest, ReusedRunMetadataDescribesOnlyTheLatestRun) {
  Output c = Constant(1.0f, "c");
  Session session;
  RunOptions trace;
  trace.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata metadata;
  session.Run({c}, {}, {}, trace, &metadata);
  session.Run({c}, {}, {}, trace, &metadata);
  EXPECT_EQ(metadata.step_stats.size(), 1u);
  session.Run({c}, {}, {}, RunOptions{}, &metadata);
  EXPECT_TRUE(metadata.step_stats.empty());
}

// ---- Concurrency -------------------------------------------------------------------------

// Starts `n` threads running `body(i)` together (released by one signal) and joins them.
template <typename F>
void RunTogether(int n, F body) {
  std::promise<void> go;
  std::shared_future<void> started = go.get_future().share();
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      started.wait();
      body(i);
    });
  }
  go.set_value();
  for (std::thread& t : threads) t.join();
}

// Concurrent increments of one variable lose no update.
TEST_F(SessionTest, ConcurrentIncrementsLoseNoUpdate) {
  constexpr int kThreads = 8;
  constexpr int kStepsPerThread = 300;
  Session session;
  session.Run(GlobalVariablesInitializer());
  RunTogether(kThreads, [&](int) {
    for (int i = 0; i < kStepsPerThread; ++i) session.Run(increment_);
  });
  EXPECT_EQ(Count(session), kThreads * kStepsPerThread);
}

// Readers running alongside writers never see a torn value: every element of a read
// was updated by the same number of increments.
TEST_F(SessionTest, ConcurrentReadsNeverSeeATornValue) {
  constexpr int kElements = 256;
  constexpr int kWriters = 4;
  constexpr int kReaders = 4;
  constexpr int kSteps = 200;
  Variable w(Tensor::Zeros(DataType::kInt64, {kElements}), "w");
  Output add_ones = w.AssignAdd(
      Constant(Tensor::FromValues<int64_t>({kElements}, std::vector<int64_t>(kElements, 1))));
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<int> torn_reads(kReaders, 0);
  RunTogether(kWriters + kReaders, [&](int i) {
    for (int step = 0; step < kSteps; ++step) {
      if (i < kWriters) {
        session.Run(add_ones.op());
        continue;
      }
      Tensor value = session.Run(w.value());
      auto flat = value.flat<int64_t>();
      for (int k = 1; k < kElements; ++k) {
        if (flat(k) != flat(0)) {
          ++torn_reads[i - kWriters];
          break;
        }
      }
    }
  });
  for (int torn : torn_reads) EXPECT_EQ(torn, 0);
  Tensor final_value = session.Run(w.value());
  for (int k = 0; k < kElements; ++k) {
    ASSERT_EQ(final_value.at<int64_t>({k}), kWriters * kSteps);
  }
}

// Threads running several new signatures at once each get a correct result, and each
// signature ends up planned once.
TEST_F(SessionTest, ConcurrentRunsOfNewSignaturesShareThePlanCache) {
  Output x = Placeholder(DataType::kInt32, {}, "x");
  std::vector<Output> outputs;
  for (int k = 0; k < 4; ++k) outputs.push_back(Identity(x));
  Session session;
  std::vector<int> wrong(8, 0);
  RunTogether(8, [&](int i) {
    for (int step = 0; step < 50; ++step) {
      const int32_t v = i * 1000 + step;
      Tensor got = session.Run(outputs[(i + step) % 4], {{x, Tensor::Scalar(v)}});
      if (got.scalar<int32_t>() != v) ++wrong[i];
    }
  });
  for (int w : wrong) EXPECT_EQ(w, 0);
  EXPECT_EQ(session.num_cached_plans(), 4);
}

}  // namespace
}  // namespace mts
