// Tests of training_util.h: the global step as TensorFlow makes, finds, reads and increments it.
#include "src/01_session/training_util.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

bool InCollection(Graph& g, const std::string& key, const Variable& v) {
  std::vector<Variable> items = g.GetCollection<Variable>(key);
  return std::find(items.begin(), items.end(), v) != items.end();
}

VariableOptions Options(const std::string& name, std::vector<std::string> collections) {
  VariableOptions options;
  options.name = name;
  options.trainable = false;
  options.collections = std::move(collections);
  return options;
}

// ---- CreateGlobalStep -------------------------------------------------------------------------

// The step is an int64 scalar named global_step, global but not trainable, and starts at 0.
TEST(CreateGlobalStepTest, MakesAnInt64ScalarNonTrainableVariableAtZero) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step = CreateGlobalStep();
  EXPECT_EQ(step.name(), "global_step");
  EXPECT_EQ(step.dtype(), DataType::kInt64);
  EXPECT_EQ(step.shape(), TensorShape{});
  EXPECT_TRUE(InCollection(g, GraphKeys::kGlobalVariables, step));
  EXPECT_TRUE(InCollection(g, GraphKeys::kGlobalStep, step));
  EXPECT_FALSE(InCollection(g, GraphKeys::kTrainableVariables, step));
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_EQ(GlobalStepValue(session, step), 0);
}

// A name scope open at the call does not move the step out of the root scope.
TEST(CreateGlobalStepTest, IgnoresTheCurrentNameScope) {
  Graph g;
  DefaultGraphScope as_default(g);
  NameScope outer("outer");
  NameScope inner("inner");
  EXPECT_EQ(CreateGlobalStep().name(), "global_step");
  EXPECT_EQ(Constant(1.0f, "c").op()->name(), "outer/inner/c");  // The scope is restored.
}

// Given a graph, the step goes there, not into the default graph.
TEST(CreateGlobalStepTest, UsesTheGivenGraph) {
  Graph g, other;
  DefaultGraphScope as_default(other);
  Variable step = CreateGlobalStep(&g);
  EXPECT_EQ(step.graph(), &g);
  EXPECT_EQ(other.num_ops(), 0);
  EXPECT_FALSE(GetGlobalStep(&other).has_value());
  EXPECT_TRUE(GetGlobalStep(&g).has_value());
}

// A second step is refused with TensorFlow's message, and the graph is left as it was.
TEST(CreateGlobalStepTest, RefusesASecondStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  CreateGlobalStep();
  const int ops = g.num_ops();
  EXPECT_THAT([&] { CreateGlobalStep(); },
              ThrowsMessage<ValueError>(StrEq("\"global_step\" already exists.")));
  EXPECT_EQ(g.num_ops(), ops);
}

// A variable already named global_step, outside the collection, also counts as a step.
TEST(CreateGlobalStepTest, RefusesWhenAVariableIsNamedGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable(Tensor::Scalar<int64_t>(0), "global_step");
  EXPECT_THROW(CreateGlobalStep(), ValueError);
}

// An existing step of the wrong dtype is reported as such, not as a duplicate.
TEST(CreateGlobalStepTest, ReportsAnInvalidExistingStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable(Tensor::Scalar(0.0f), Options("global_step", {GraphKeys::kGlobalStep}));
  EXPECT_THROW(CreateGlobalStep(), TypeError);
}

// ---- GetGlobalStep ----------------------------------------------------------------------------

// A graph without a step answers std::nullopt, as TensorFlow answers None.
TEST(GetGlobalStepTest, IsEmptyWithoutAStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_FALSE(GetGlobalStep().has_value());
  Constant(1.0f, "unrelated");
  EXPECT_FALSE(GetGlobalStep().has_value());
}

// The collection's single item is the step, whatever its name.
TEST(GetGlobalStepTest, FindsTheCollectionItem) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable counter(Tensor::Scalar<int64_t>(0), Options("counter", {GraphKeys::kGlobalStep}));
  std::optional<Variable> step = GetGlobalStep();
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(*step, counter);
  EXPECT_EQ(*GetGlobalStep(&g), counter);
}

// A tensor (the variable's output) in the collection leads to its variable.
TEST(GetGlobalStepTest, ResolvesATensorInTheCollection) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable counter(Tensor::Scalar<int64_t>(0), Options("counter", {"mine"}));
  g.AddToCollection(GraphKeys::kGlobalStep, counter.op()->output(0));
  EXPECT_EQ(*GetGlobalStep(), counter);
}

// With an empty collection, a variable named global_step is found by its tensor name.
TEST(GetGlobalStepTest, FallsBackOnTheTensorNamedGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable named(Tensor::Scalar<int64_t>(0), "global_step");
  EXPECT_EQ(g.CollectionSize(GraphKeys::kGlobalStep), 0);
  EXPECT_EQ(*GetGlobalStep(), named);
}

// An op named global_step with no output is not a step.
TEST(GetGlobalStepTest, IgnoresAnOpWithoutOutputsNamedGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  NoOp("global_step");
  EXPECT_FALSE(GetGlobalStep().has_value());
}

// mts needs a Variable: a plain tensor named global_step is a TypeError (TensorFlow takes it).
TEST(GetGlobalStepTest, RejectsAPlainTensorNamedGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Constant(int64_t{3}, "global_step");
  EXPECT_THROW(GetGlobalStep(), TypeError);
}

// Several items: TensorFlow's log line, and no step.
TEST(GetGlobalStepTest, LogsAndAnswersNothingForSeveralItems) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable(Tensor::Scalar<int64_t>(0), Options("a", {GraphKeys::kGlobalStep}));
  Variable(Tensor::Scalar<int64_t>(0), Options("b", {GraphKeys::kGlobalStep}));
  testing::internal::CaptureStderr();
  std::optional<Variable> step = GetGlobalStep();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(step.has_value());
  EXPECT_NE(log.find("Multiple tensors in global_step collection."), std::string::npos) << log;
}

// A step must be of an integer dtype and scalar; int32 is accepted as TensorFlow accepts it.
TEST(GetGlobalStepTest, ValidatesDtypeAndShape) {
  struct Case {
    Tensor initial;
    bool valid;
  };
  const std::vector<Case> cases = {
      {Tensor::Scalar<int64_t>(0), true},
      {Tensor::Scalar<int32_t>(0), true},
      {Tensor::Scalar(0.0f), false},
      {Tensor::Scalar(0.0), false},
      {Tensor::Scalar(false), false},
      {Tensor::Vector<int64_t>({0, 0}), false},
  };
  for (const Case& c : cases) {
    Graph g;
    DefaultGraphScope as_default(g);
    Variable(c.initial, Options("global_step", {GraphKeys::kGlobalStep}));
    if (c.valid) {
      EXPECT_TRUE(GetGlobalStep().has_value()) << c.initial.DebugString();
    } else {
      EXPECT_THROW(GetGlobalStep(), TypeError) << c.initial.DebugString();
    }
  }
}

// ---- GetOrCreateGlobalStep, GlobalStepValue ---------------------------------------------------

// The first call creates, later calls find the same variable.
TEST(GetOrCreateGlobalStepTest, CreatesOnceThenFinds) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable first = GetOrCreateGlobalStep();
  const int ops = g.num_ops();
  EXPECT_EQ(GetOrCreateGlobalStep(), first);
  EXPECT_EQ(GetOrCreateGlobalStep(&g), first);
  EXPECT_EQ(g.num_ops(), ops);
  EXPECT_EQ(g.CollectionSize(GraphKeys::kGlobalStep), 1);
}

// GlobalStepValue runs the step and answers an integer; a float tensor is a TypeError.
TEST(GlobalStepValueTest, ReadsTheStepAsAnInteger) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step = GetOrCreateGlobalStep();
  Output add5 = step.AssignAdd(Constant(int64_t{5}));
  Session session;
  EXPECT_THROW(GlobalStepValue(session, step), FailedPreconditionError);
  session.Run(GlobalVariablesInitializer());
  session.Run(add5);
  EXPECT_EQ(GlobalStepValue(session, step), 5);
  Variable small(Tensor::Scalar<int32_t>(7), "small");
  session.Run(small.initializer());
  EXPECT_EQ(GlobalStepValue(session, small), 7);
  EXPECT_THROW(GlobalStepValue(session, Constant(1.0f)), TypeError);
}

// ---- GetOrCreateGlobalStepRead ----------------------------------------------------------------

// No step, no read.
TEST(GlobalStepReadTest, IsEmptyWithoutAStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_FALSE(GetOrCreateGlobalStepRead().has_value());
  EXPECT_EQ(g.CollectionSize(GraphKeys::kGlobalStepReadOpCache), 0);
}

// The read is made once, in the step's scope whatever the caller's, and cached.
TEST(GlobalStepReadTest, IsMadeOnceInTheStepScopeAndCached) {
  Graph g;
  DefaultGraphScope as_default(g);
  CreateGlobalStep();
  NameScope hooks("hooks");
  std::optional<Output> read = GetOrCreateGlobalStepRead(&g);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->name(), "global_step/hook_read:0");
  EXPECT_EQ(read->dtype(), DataType::kInt64);
  EXPECT_EQ(read->shape(), TensorShape{});
  const int ops = g.num_ops();
  EXPECT_EQ(*GetOrCreateGlobalStepRead(), *read);
  EXPECT_EQ(g.num_ops(), ops);
  EXPECT_EQ(g.GetCollection<Output>(GraphKeys::kGlobalStepReadOpCache),
            std::vector<Output>{*read});
}

// Two cached reads are an error, as in TensorFlow.
TEST(GlobalStepReadTest, RefusesSeveralCachedReads) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step = CreateGlobalStep();
  g.AddToCollection(GraphKeys::kGlobalStepReadOpCache, step.value());
  g.AddToCollection(GraphKeys::kGlobalStepReadOpCache, step.value());
  EXPECT_THROW(GetOrCreateGlobalStepRead(), RuntimeError);
}

// Made inside a ControlDependencies scope, the read would drag those ops into every fetch.
TEST(GlobalStepReadTest, RefusesToBeMadeUnderControlDependencies) {
  Graph g;
  DefaultGraphScope as_default(g);
  CreateGlobalStep();
  Operation* update = NoOp("update");
  {
    ControlDependencies after({update});
    EXPECT_THROW(GetOrCreateGlobalStepRead(), ValueError);
  }
  EXPECT_EQ(g.CollectionSize(GraphKeys::kGlobalStepReadOpCache), 0);
  EXPECT_TRUE(GetOrCreateGlobalStepRead().has_value());
}

// Reading before the variable is set fails (TensorFlow's initialized_value would give 0).
TEST(GlobalStepReadTest, FailsBeforeInitialization) {
  Graph g;
  DefaultGraphScope as_default(g);
  CreateGlobalStep();
  Output read = *GetOrCreateGlobalStepRead();
  Session session;
  EXPECT_THROW(session.Run(read), FailedPreconditionError);
}

// ---- IncrementGlobalStep ----------------------------------------------------------------------

// Incrementing needs a step.
TEST(IncrementGlobalStepTest, NeedsAStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THROW(IncrementGlobalStep(), ValueError);
}

// The increment lives in the step's scope and runs after the read.
TEST(IncrementGlobalStepTest, IsAnAssignAddAfterTheRead) {
  Graph g;
  DefaultGraphScope as_default(g);
  CreateGlobalStep();
  NameScope model("model");
  Output inc = IncrementGlobalStep();
  EXPECT_EQ(inc.op()->name(), "global_step/AssignAdd");
  EXPECT_EQ(inc.op()->type(), "AssignAdd");
  Output read = *GetOrCreateGlobalStepRead();
  const auto& controls = inc.op()->control_inputs();
  EXPECT_NE(std::find(controls.begin(), controls.end(), read.op()), controls.end());
}

// The heart of it: fetched with the train op, the read holds the step from before this run's
// increment, in either fetch order and when the increment is only a target.
TEST(IncrementGlobalStepTest, ReadInTheSameRunSeesTheValueBeforeTheIncrement) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step = GetOrCreateGlobalStep();
  Output train_op = IncrementGlobalStep();
  Output read = *GetOrCreateGlobalStepRead();
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> r = session.Run({read, train_op});
  EXPECT_EQ(r[0].scalar<int64_t>(), 0);
  EXPECT_EQ(r[1].scalar<int64_t>(), 1);
  r = session.Run({train_op, read});
  EXPECT_EQ(r[0].scalar<int64_t>(), 2);
  EXPECT_EQ(r[1].scalar<int64_t>(), 1);
  r = session.Run({read}, {}, {train_op.op()});
  EXPECT_EQ(r[0].scalar<int64_t>(), 2);
  // A read alone does not train, and sees every increment so far.
  EXPECT_EQ(session.Run(read).scalar<int64_t>(), 3);
  EXPECT_EQ(session.Run(read).scalar<int64_t>(), 3);
  EXPECT_EQ(GlobalStepValue(session, step), 3);
}

// Increments larger than one, and an int32 step, work too.
TEST(IncrementGlobalStepTest, AddsTheIncrementInTheStepDtype) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step(Tensor::Scalar<int32_t>(10), Options("global_step", {GraphKeys::kGlobalVariables,
                                                                     GraphKeys::kGlobalStep}));
  Output inc = IncrementGlobalStep(5);
  EXPECT_EQ(inc.dtype(), DataType::kInt32);
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(inc);
  EXPECT_EQ(GlobalStepValue(session, step), 15);
}

// The variable form (an optimizer's last op) is named in the caller's scope, runs after
// `after`, and after the read only when it increments the graph's global step.
TEST(IncrementGlobalStepTest, VariableFormWaitsForAfterAndForTheRead) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable step = CreateGlobalStep();
  Variable other(Tensor::Scalar<int64_t>(0), "other");
  Operation* update = NoOp("update");
  NameScope train("train");
  Output inc = IncrementGlobalStep(step, 1, {update}, "GradientDescent");
  EXPECT_EQ(inc.op()->name(), "train/GradientDescent");
  Output read = *GetOrCreateGlobalStepRead();
  const auto& controls = inc.op()->control_inputs();
  EXPECT_NE(std::find(controls.begin(), controls.end(), update), controls.end());
  EXPECT_NE(std::find(controls.begin(), controls.end(), read.op()), controls.end());

  Output inc_other = IncrementGlobalStep(other, 2);
  EXPECT_TRUE(inc_other.op()->control_inputs().empty());
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> r = session.Run({read, inc, inc_other});
  EXPECT_EQ(r[0].scalar<int64_t>(), 0);
  EXPECT_EQ(r[1].scalar<int64_t>(), 1);
  EXPECT_EQ(r[2].scalar<int64_t>(), 2);
}

// Only integer variables count steps.
TEST(IncrementGlobalStepTest, RefusesAFloatVariable) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Scalar(0.0f), "w");
  EXPECT_THROW(IncrementGlobalStep(w, 1), TypeError);
}

}  // namespace
}  // namespace mts
