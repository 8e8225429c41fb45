// Tests of optimizer.h, gradient_descent_optimizer.h and adam_optimizer.h: each update equals
// the one computed by hand; slots are ordinary global variables; Minimize's train op.
//
// Every update test trains one float64 variable w = [1, -2] on loss = sum(w^2), whose
// gradient is 2w, and replays the optimizer's rule with plain C++ arithmetic beside it, so
// the expected numbers never come from the library under test.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variable_resource.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr int kSteps = 3;
const std::vector<double> kInitialW = {1.0, -2.0};

// A hand-written update rule: changes w (and whatever state it captured) for gradient g.
using HandRule = std::function<void(std::vector<double>& w, const std::vector<double>& g)>;

// Minimizes sum(w^2) with `optimizer` for kSteps steps in a fresh graph and session, and
// returns w after each step.
std::vector<std::vector<double>> TrainWithLibrary(Optimizer& optimizer) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<std::vector<double>> trajectory;
  for (int step = 0; step < kSteps; ++step) {
    session.Run(train_op);
    trajectory.push_back(session.Run(w.value()).ToVector<double>());
  }
  return trajectory;
}

// The same kSteps steps, by hand.
std::vector<std::vector<double>> TrainByHand(const HandRule& rule) {
  std::vector<double> w = kInitialW;
  std::vector<std::vector<double>> trajectory;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<double> grad(w.size());
    for (size_t i = 0; i < w.size(); ++i) grad[i] = 2.0 * w[i];  // d sum(w^2) / dw.
    rule(w, grad);
    trajectory.push_back(w);
  }
  return trajectory;
}

void ExpectSameTrajectory(const std::vector<std::vector<double>>& library,
                          const std::vector<std::vector<double>>& by_hand) {
  ASSERT_EQ(library.size(), by_hand.size());
  for (size_t step = 0; step < library.size(); ++step) {
    ASSERT_EQ(library[step].size(), by_hand[step].size());
    for (size_t i = 0; i < library[step].size(); ++i) {
      EXPECT_NEAR(library[step][i], by_hand[step][i], 1e-12)
          << "after step " << step + 1 << ", element " << i;
    }
  }
}

// ---- Updates equal hand-computed values --------------------------------------------------------

// Gradient descent: w -= lr * g.
TEST(OptimizerUpdateTest, GradientDescentMatchesTheRuleByHand) {
  const double lr = 0.1;
  GradientDescentOptimizer sgd(lr);
  ExpectSameTrajectory(TrainWithLibrary(sgd),
                       TrainByHand([&](std::vector<double>& w, const std::vector<double>& g) {
                         for (size_t i = 0; i < w.size(); ++i) w[i] -= lr * g[i];
                       }));
}

// The first step by hand on paper, for the reader: w = [1, -2], g = [2, -4], w' = [0.8, -1.6].
TEST(OptimizerUpdateTest, GradientDescentFirstStepOnPaper) {
  GradientDescentOptimizer sgd(0.1);
  std::vector<std::vector<double>> trajectory = TrainWithLibrary(sgd);
  EXPECT_NEAR(trajectory[0][0], 0.8, 1e-12);
  EXPECT_NEAR(trajectory[0][1], -1.6, 1e-12);
}

// Momentum: accum = momentum * accum + g; w -= lr * accum.
TEST(OptimizerUpdateTest, MomentumMatchesTheRuleByHand) {
  const double lr = 0.1, momentum = 0.9;
  MomentumOptimizer optimizer(lr, momentum);
  std::vector<double> accum(kInitialW.size(), 0.0);
  ExpectSameTrajectory(TrainWithLibrary(optimizer),
                       TrainByHand([&](std::vector<double>& w, const std::vector<double>& g) {
                         for (size_t i = 0; i < w.size(); ++i) {
                           accum[i] = momentum * accum[i] + g[i];
                           w[i] -= lr * accum[i];
                         }
                       }));
}

// Nesterov momentum looks ahead: w -= lr * g + lr * momentum * accum (accum already updated).
TEST(OptimizerUpdateTest, NesterovMomentumMatchesTheRuleByHand) {
  const double lr = 0.1, momentum = 0.9;
  MomentumOptimizer optimizer(lr, momentum, /*use_nesterov=*/true);
  std::vector<double> accum(kInitialW.size(), 0.0);
  ExpectSameTrajectory(TrainWithLibrary(optimizer),
                       TrainByHand([&](std::vector<double>& w, const std::vector<double>& g) {
                         for (size_t i = 0; i < w.size(); ++i) {
                           accum[i] = momentum * accum[i] + g[i];
                           w[i] -= lr * g[i] + lr * momentum * accum[i];
                         }
                       }));
}

// Adam, as in the paper with TensorFlow's placement of epsilon: at step t,
// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// w -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon).
TEST(OptimizerUpdateTest, AdamMatchesTheRuleByHand) {
  const double lr = 0.1, b1 = 0.9, b2 = 0.999, epsilon = 1e-8;
  AdamOptimizer optimizer(lr, b1, b2, epsilon);
  std::vector<double> m(kInitialW.size(), 0.0), v(kInitialW.size(), 0.0);
  int t = 0;
  ExpectSameTrajectory(TrainWithLibrary(optimizer),
                       TrainByHand([&](std::vector<double>& w, const std::vector<double>& g) {
                         ++t;
                         const double lr_t =
                             lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
                         for (size_t i = 0; i < w.size(); ++i) {
                           m[i] = b1 * m[i] + (1 - b1) * g[i];
                           v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
                           w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + epsilon);
                         }
                       }));
}

// Adam's first step moves every element by almost exactly lr, whatever its gradient: the
// bias-corrected m / sqrt(v) is g / |g|.
TEST(OptimizerUpdateTest, AdamFirstStepMovesEachElementByTheLearningRate) {
  AdamOptimizer optimizer(0.1);
  std::vector<std::vector<double>> trajectory = TrainWithLibrary(optimizer);
  EXPECT_NEAR(trajectory[0][0], 1.0 - 0.1, 1e-7);
  EXPECT_NEAR(trajectory[0][1], -2.0 + 0.1, 1e-7);
}

// ---- Slots --------------------------------------------------------------------------------------

bool HasVariableNamed(const std::vector<Variable>& vars, const std::string& name) {
  return std::any_of(vars.begin(), vars.end(),
                     [&](const Variable& v) { return v.name() == name; });
}

// A slot or non-slot variable of an optimizer: named as TensorFlow names it, saved by a
// checkpoint (global), and never itself optimised (not trainable).
struct SlotCase {
  std::string optimizer;
  std::function<std::unique_ptr<Optimizer>()> make;
  std::vector<std::string> variables;  // The names the optimizer must create.
  std::vector<std::string> slot_names;  // GetSlotNames().
};

class OptimizerSlotTest : public ::testing::TestWithParam<SlotCase> {};

void PrintTo(const SlotCase& c, std::ostream* os) { *os << c.optimizer; }

// Each optimizer's state is global and not trainable, under TensorFlow's names.
TEST_P(OptimizerSlotTest, StateIsGlobalNonTrainableAndNamedLikeTensorFlows) {
  const SlotCase& c = GetParam();
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  std::unique_ptr<Optimizer> optimizer = c.make();
  optimizer->Minimize(ReduceSum(Square(w)));
  for (const std::string& name : c.variables) {
    EXPECT_TRUE(HasVariableNamed(GlobalVariables(), name)) << name << " is not global";
    EXPECT_FALSE(HasVariableNamed(TrainableVariables(), name)) << name << " is trainable";
  }
  EXPECT_EQ(TrainableVariables().size(), 1u);  // Only w.
  EXPECT_EQ(optimizer->GetSlotNames(), c.slot_names);
}

INSTANTIATE_TEST_SUITE_P(
    AllOptimizers, OptimizerSlotTest,
    ::testing::Values(
        SlotCase{"GradientDescent",
                 [] { return std::make_unique<GradientDescentOptimizer>(0.1); },
                 {},
                 {}},
        SlotCase{"Momentum", [] { return std::make_unique<MomentumOptimizer>(0.1, 0.9); },
                 {"w/Momentum"}, {"momentum"}},
        SlotCase{"Adam", [] { return std::make_unique<AdamOptimizer>(0.1); },
                 {"w/Adam", "w/Adam_1", "beta1_power", "beta2_power"}, {"m", "v"}}),
    [](const ::testing::TestParamInfo<SlotCase>& info) { return info.param.optimizer; });

// GetSlot finds a slot by its short name and the variable, and is a real variable: it holds
// the state the update rule keeps (here momentum's accumulator after one step is g).
TEST(OptimizerSlotTest, GetSlotReturnsTheStateTheRuleKeeps) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  MomentumOptimizer optimizer(0.1, 0.9);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Variable accum = optimizer.GetSlot(w, "momentum");
  EXPECT_EQ(accum.name(), "w/Momentum");
  EXPECT_THROW(optimizer.GetSlot(w, "m"), NotFoundError);
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  EXPECT_EQ(session.Run(accum.value()).ToVector<double>(), (std::vector<double>{2.0, -4.0}));
}

// Adam's beta powers start at beta1 and beta2 and advance once per step, after the update.
TEST(OptimizerSlotTest, AdamBetaPowersAdvanceOncePerStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  AdamOptimizer optimizer(0.1, 0.9, 0.999);
  EXPECT_FALSE(optimizer.beta1_power().has_value());
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_DOUBLE_EQ(session.Run(optimizer.beta1_power()->value()).scalar<double>(), 0.9);
  session.Run(train_op);
  session.Run(train_op);
  EXPECT_NEAR(session.Run(optimizer.beta1_power()->value()).scalar<double>(), 0.9 * 0.9 * 0.9,
              1e-15);
  EXPECT_NEAR(session.Run(optimizer.beta2_power()->value()).scalar<double>(),
              0.999 * 0.999 * 0.999, 1e-15);
}

// ---- Minimize and the train op -------------------------------------------------------------------

// With a global step, every run of the train op adds exactly one to it.
TEST(MinimizeTest, IncrementsTheGlobalStepByOnePerRun) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Variable step = GetOrCreateGlobalStep();
  GradientDescentOptimizer sgd(0.1);
  Operation* train_op = sgd.Minimize(ReduceSum(Square(w)), step);
  Session session;
  session.Run(GlobalVariablesInitializer());
  for (int64_t expected = 1; expected <= 5; ++expected) {
    session.Run(train_op);
    EXPECT_EQ(GlobalStepValue(session, step), expected);
  }
}

// A hook fetches the step's read tensor alongside the train op; it must see the step as it
// was before this run's increment (training_util.h), on every run, whether the read was
// made before the train op or, as a hook's Begin() makes it, after.
TEST(MinimizeTest, HookReadInTheSameRunSeesTheStepBeforeTheIncrement) {
  for (bool read_first : {true, false}) {
    SCOPED_TRACE(read_first ? "read made first" : "read made after Minimize");
    Graph g;
    DefaultGraphScope as_default(g);
    Variable w(Tensor::Vector<double>(kInitialW), "w");
    Variable step = GetOrCreateGlobalStep();
    if (read_first) GetOrCreateGlobalStepRead();
    GradientDescentOptimizer sgd(0.1);
    Operation* train_op = sgd.Minimize(ReduceSum(Square(w)), step);
    Output read = *GetOrCreateGlobalStepRead();
    Session session;
    session.Run(GlobalVariablesInitializer());
    for (int64_t before = 0; before < 5; ++before) {
      EXPECT_EQ(session.Run({read}, {}, {train_op})[0].scalar<int64_t>(), before);
    }
  }
}

// The train op is named after the optimizer and is what the train-op collection holds, with
// or without a global step.
TEST(MinimizeTest, TrainOpIsNamedAfterTheOptimizerAndCollected) {
  for (bool with_step : {true, false}) {
    SCOPED_TRACE(with_step ? "with a global step" : "without a global step");
    Graph g;
    DefaultGraphScope as_default(g);
    Variable w(Tensor::Vector<double>(kInitialW), "w");
    std::optional<Variable> step;
    if (with_step) step = GetOrCreateGlobalStep();
    GradientDescentOptimizer sgd(0.1);
    Operation* train_op = sgd.Minimize(ReduceSum(Square(w)), step);
    EXPECT_EQ(train_op->name(), "GradientDescent");
    EXPECT_EQ(g.GetCollection<Operation*>(GraphKeys::kTrainOp),
              (std::vector<Operation*>{train_op}));
  }
}

// Minimize's `name` renames the train op.
TEST(MinimizeTest, NameRenamesTheTrainOp) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  AdamOptimizer adam(0.1);
  EXPECT_EQ(adam.Minimize(ReduceSum(Square(w)), std::nullopt, {}, "train")->name(), "train");
}

// The update happens only after the gradient was computed from the old value: the loss
// fetched in the same run as the train op is the loss before the step.
TEST(MinimizeTest, LossFetchedWithTheTrainOpIsTheLossBeforeTheStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Output loss = ReduceSum(Square(w));
  GradientDescentOptimizer sgd(0.1);
  Operation* train_op = sgd.Minimize(loss);
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> fetched = session.Run({loss}, {}, {train_op});
  EXPECT_DOUBLE_EQ(fetched[0].scalar<double>(), 1.0 + 4.0);
  EXPECT_NEAR(session.Run(loss).scalar<double>(), 0.64 + 2.56, 1e-12);
}

// A loss that no variable influences has no gradient to apply: ValueError, naming the
// variables, as TensorFlow says "No gradients provided for any variable".
TEST(MinimizeTest, NoGradientsIsAValueError) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Output unrelated = ReduceSum(Square(Constant(Tensor::Vector<double>({3.0}))));
  GradientDescentOptimizer sgd(0.1);
  EXPECT_THAT([&] { sgd.Minimize(unrelated); },
              ThrowsMessage<ValueError>(AllOf(HasSubstr("No gradients provided"), HasSubstr("w"))));
}

// A path only through a non-differentiable op (ArgMax) also leaves no gradient.
TEST(MinimizeTest, APathThroughArgMaxGivesNoGradient) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Matrix<double>({{1.0, -2.0}}), "w");
  Output loss = Cast(ArgMax(w, 1), DataType::kDouble);
  GradientDescentOptimizer sgd(0.1);
  EXPECT_THROW(sgd.Minimize(ReduceSum(loss)), ValueError);
}

// Without trainable variables there is nothing to optimise.
TEST(MinimizeTest, NoTrainableVariablesIsAValueError) {
  Graph g;
  DefaultGraphScope as_default(g);
  GradientDescentOptimizer sgd(0.1);
  EXPECT_THROW(sgd.Minimize(ReduceSum(Square(Constant(2.0)))), ValueError);
}

// ---- In-place updates -----------------------------------------------------------------------------

// The train op changes the variable's buffer in place: after the first step (which copies
// the buffer away from the initial-value constant it shared), a thousand more steps never
// allocate a new one. A value fetched earlier is a snapshot: copy-on-write keeps it unchanged.
TEST(InPlaceUpdateTest, UpdatesReuseTheBufferAndLeaveFetchedValuesAlone) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  GradientDescentOptimizer sgd(0.01);
  Operation* train_op = sgd.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  auto* resource = static_cast<VariableResource*>(session.resources().Find(*w.op()));
  ASSERT_NE(resource, nullptr);
  const double* buffer = resource->value.data<double>();
  for (int i = 0; i < 1000; ++i) session.Run(train_op);
  EXPECT_EQ(resource->value.data<double>(), buffer) << "a step allocated a new buffer";

  // Fetching shares the buffer; the next update must copy rather than change the snapshot.
  Tensor before = session.Run(w.value());
  const std::vector<double> snapshot = before.ToVector<double>();
  session.Run(train_op);
  EXPECT_EQ(before.ToVector<double>(), snapshot);
  EXPECT_NE(session.Run(w.value()).ToVector<double>(), snapshot);
}

}  // namespace
}  // namespace mts
