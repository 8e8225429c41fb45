// Tests of variables.h: the ops a Variable is made of, the collections it joins, why it
// must be initialised in every session, its updates, and the readiness reports.
#include "src/01_session/variables.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "tests/testing/expect_error.h"

// The Session, the variables and the ops' builders must not bring in Eigen: only a file that
// calls `flat<T>()` or `matrix<T>()` pays for parsing it, by including tensor_types.h (see
// that header). This file includes none of that, so it must not see Eigen's version macro.
#ifdef EIGEN_WORLD_VERSION
#error "Eigen is included by session.h, variables.h or array_ops.h: see tensor_types.h"
#endif

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// Each test builds in its own graph, made default for the test's duration.
class VariablesTest : public ::testing::Test {
 protected:
  Graph g_;
  DefaultGraphScope as_default_{g_};
};

// The names of `variables`, in order.
std::vector<std::string> Names(const std::vector<Variable>& variables) {
  std::vector<std::string> names;
  for (const Variable& v : variables) names.push_back(v.name());
  return names;
}

std::vector<float> Floats(const Tensor& t) { return t.ToVector<float>(); }

// ---- The ops of a variable ---------------------------------------------------------------

// A variable is four ops, named as TensorFlow names them.
TEST_F(VariablesTest, AVariableIsFourNamedOps) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  EXPECT_EQ(w.name(), "w");
  EXPECT_EQ(w.op()->type(), "VariableV2");
  EXPECT_EQ(w.initial_value().op()->name(), "w/initial_value");
  EXPECT_EQ(w.initial_value().op()->type(), "Const");
  EXPECT_EQ(w.initializer()->name(), "w/Assign");
  EXPECT_EQ(w.initializer()->type(), "Assign");
  EXPECT_EQ(w.value().name(), "w/read:0");
  EXPECT_EQ(w.value().op()->type(), "Identity");
  EXPECT_EQ(g_.num_ops(), 4);
  EXPECT_EQ(w.dtype(), DataType::kFloat);
  EXPECT_EQ(w.shape(), TensorShape({2}));
  EXPECT_EQ(w.graph(), &g_);
}

// Under a name scope all four ops sit under "scope/w".
TEST_F(VariablesTest, NamesFollowTheNameScope) {
  NameScope dense("dense");
  Variable w(Tensor::Scalar(1.0f), "w");
  EXPECT_EQ(w.name(), "dense/w");
  EXPECT_EQ(w.initial_value().op()->name(), "dense/w/initial_value");
  EXPECT_EQ(w.initializer()->name(), "dense/w/Assign");
  EXPECT_EQ(w.value().name(), "dense/w/read:0");
}

// A second variable of the same name gets a numbered name, helpers included.
TEST_F(VariablesTest, RepeatedNamesAreNumbered) {
  Variable first(Tensor::Scalar(1.0f), "w");
  Variable second(Tensor::Scalar(1.0f), "w");
  EXPECT_EQ(second.name(), "w_1");
  EXPECT_EQ(second.initializer()->name(), "w_1/Assign");
  EXPECT_EQ(second.value().name(), "w_1/read:0");
  EXPECT_EQ(Variable(Tensor::Scalar(1.0f)).name(), "Variable");  // The default base name.
}

// A Variable converts to its read value wherever a tensor is expected.
TEST_F(VariablesTest, AVariableStandsForItsValue) {
  Variable w(Tensor::Scalar(3.0f), "w");
  Output y = Identity(w);
  EXPECT_EQ(y.op()->input(0), w.value());
  Session session;
  session.Run(w.initializer());
  EXPECT_EQ(session.Run(y).scalar<float>(), 3.0f);
}

// ---- Collections -------------------------------------------------------------------------

// By default a variable is global and trainable; trainable=false keeps it out of training.
TEST_F(VariablesTest, DefaultCollectionsAreGlobalAndTrainable) {
  Variable w(Tensor::Scalar(1.0f), "w");
  VariableOptions frozen;
  frozen.name = "frozen";
  frozen.trainable = false;
  Variable f(Tensor::Scalar(1.0f), frozen);
  EXPECT_EQ(Names(GlobalVariables()), (std::vector<std::string>{"w", "frozen"}));
  EXPECT_EQ(Names(TrainableVariables()), (std::vector<std::string>{"w"}));
  EXPECT_TRUE(LocalVariables().empty());
  EXPECT_EQ(Names(GlobalVariables(&g_)), Names(GlobalVariables()));
}

// A local variable is neither global nor trainable.
TEST_F(VariablesTest, LocalVariablesAreOnlyLocal) {
  LocalVariable(Tensor::Scalar(int64_t{0}), "epoch");
  EXPECT_EQ(Names(LocalVariables()), (std::vector<std::string>{"epoch"}));
  EXPECT_TRUE(GlobalVariables().empty());
  EXPECT_TRUE(TrainableVariables().empty());
}

// Explicit collections replace the global one; trainable still adds the trainable one.
TEST_F(VariablesTest, CustomCollections) {
  VariableOptions options;
  options.name = "v";
  options.collections = {"mine", GraphKeys::kModelVariables};
  Variable v(Tensor::Scalar(1.0f), options);
  EXPECT_EQ(Names(g_.GetCollection<Variable>("mine")), (std::vector<std::string>{"v"}));
  EXPECT_EQ(g_.GetCollection<Variable>(GraphKeys::kModelVariables).size(), 1u);
  EXPECT_EQ(Names(TrainableVariables()), (std::vector<std::string>{"v"}));
  EXPECT_TRUE(GlobalVariables().empty());
}

// ---- Initialisation ----------------------------------------------------------------------

// Reading a variable no one initialised in this session names it.
TEST_F(VariablesTest, ReadingAnUninitialisedVariableRaisesNamingIt) {
  Variable w(Tensor::Scalar(1.0f), "w");
  Session session;
  EXPECT_THAT([&] { session.Run(w.value()); },
              Throws<FailedPreconditionError>(AllOf(
                  HasMessage("Attempting to use uninitialized value w"), HasOpName("w/read"))));
}

// Fetching the variable op itself, unset, fails the same way (not an empty tensor).
TEST_F(VariablesTest, FetchingTheUnsetVariableOpRaises) {
  Variable w(Tensor::Scalar(1.0f), "w");
  Session session;
  EXPECT_THAT(
      [&] { session.Run(w.op()->output(0)); },
      Throws<FailedPreconditionError>(HasMessage("Attempting to use uninitialized value w")));
  session.Run(w.initializer());
  EXPECT_EQ(session.Run(w.op()->output(0)).scalar<float>(), 1.0f);
}

// GlobalVariablesInitializer sets every global variable, and no local one.
TEST_F(VariablesTest, GlobalVariablesInitializerSetsGlobalsOnly) {
  Variable a(Tensor::Scalar(1.0f), "a");
  Variable b(Tensor::Vector<int32_t>({2, 3}), "b");
  Variable local = LocalVariable(Tensor::Scalar(4.0f), "local");
  Operation* init = GlobalVariablesInitializer();
  EXPECT_EQ(init->name(), "init");
  Session session;
  session.Run(init);
  EXPECT_EQ(session.Run(a.value()).scalar<float>(), 1.0f);
  EXPECT_EQ(session.Run(b.value()).ToVector<int32_t>(), (std::vector<int32_t>{2, 3}));
  EXPECT_THROW(session.Run(local.value()), FailedPreconditionError);
}

// LocalVariablesInitializer sets the local variables only.
TEST_F(VariablesTest, LocalVariablesInitializerSetsLocalsOnly) {
  Variable global(Tensor::Scalar(1.0f), "global");
  Variable local = LocalVariable(Tensor::Scalar(4.0f), "local");
  Session session;
  session.Run(LocalVariablesInitializer());
  EXPECT_EQ(session.Run(local.value()).scalar<float>(), 4.0f);
  EXPECT_THROW(session.Run(global.value()), FailedPreconditionError);
}

// VariablesInitializer sets exactly the listed variables; an empty list is a runnable no-op.
TEST_F(VariablesTest, VariablesInitializerSetsTheListedOnes) {
  Variable a(Tensor::Scalar(1.0f), "a");
  Variable b(Tensor::Scalar(2.0f), "b");
  Operation* init_b = VariablesInitializer({b}, "init_b");
  Operation* init_none = VariablesInitializer({}, "init_none");
  EXPECT_EQ(init_none->type(), "NoOp");
  Session session;
  session.Run(init_none);
  session.Run(init_b);
  EXPECT_EQ(session.Run(b.value()).scalar<float>(), 2.0f);
  EXPECT_THROW(session.Run(a.value()), FailedPreconditionError);
}

// IsVariableInitialized answers per session, without raising.
TEST_F(VariablesTest, IsVariableInitialized) {
  Variable w(Tensor::Scalar(1.0f), "w");
  Output is_set = IsVariableInitialized(w);
  Session session;
  EXPECT_FALSE(session.Run(is_set).scalar<bool>());
  session.Run(w.initializer());
  EXPECT_TRUE(session.Run(is_set).scalar<bool>());
  Session other;
  EXPECT_FALSE(other.Run(is_set).scalar<bool>());
}

// ReportUninitializedVariables names the unset variables in list order, and is empty once
// all are set.
TEST_F(VariablesTest, ReportUninitializedVariablesListsNamesInListOrder) {
  Variable a(Tensor::Scalar(1.0f), "a");
  Variable b(Tensor::Scalar(1.0f), "b");
  Variable c(Tensor::Scalar(1.0f), "c");
  Output report = ReportUninitializedVariables({c, a, b});
  Session session;
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (std::vector<std::string>{"c", "a", "b"}));
  session.Run(a.initializer());
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (std::vector<std::string>{"c", "b"}));
  session.Run(GlobalVariablesInitializer());
  Tensor none = session.Run(report);
  EXPECT_EQ(none.dtype(), DataType::kString);
  EXPECT_EQ(none.shape(), TensorShape({0}));
}

// Without a list, the report covers global then local variables.
TEST_F(VariablesTest, DefaultReportCoversGlobalAndLocalVariables) {
  LocalVariable(Tensor::Scalar(1.0f), "local");
  Variable global(Tensor::Scalar(1.0f), "global");
  Output report = ReportUninitializedVariables();
  Output empty_report = ReportUninitializedVariables({}, "nothing_to_report");
  Session session;
  EXPECT_EQ(session.Run(report).ToVector<std::string>(),
            (std::vector<std::string>{"global", "local"}));
  EXPECT_EQ(session.Run(empty_report).num_elements(), 0);
}

// ---- Updates -----------------------------------------------------------------------------

// Assign, AssignAdd and AssignSub set the variable and output its new value.
TEST_F(VariablesTest, AssignAssignAddAssignSub) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  Output set = w.Assign(Constant(Tensor::Vector<float>({10, 20})));
  Output add = w.AssignAdd(Constant(Tensor::Vector<float>({1, 1})));
  Output sub = w.AssignSub(Constant(Tensor::Vector<float>({0.5f, 4})));
  EXPECT_EQ(set.op()->name(), "Assign");
  EXPECT_EQ(add.op()->name(), "AssignAdd");
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_EQ(Floats(session.Run(set)), (std::vector<float>{10, 20}));
  EXPECT_EQ(Floats(session.Run(add)), (std::vector<float>{11, 21}));
  EXPECT_EQ(Floats(session.Run(sub)), (std::vector<float>{10.5f, 17}));
  EXPECT_EQ(Floats(session.Run(w.value())), (std::vector<float>{10.5f, 17}));
}

// Updates of every numeric dtype work.
TEST_F(VariablesTest, UpdatesWorkForEveryNumericDtype) {
  Variable d(Tensor::Scalar(1.0), "d");
  Variable i(Tensor::Scalar(int32_t{1}), "i");
  Variable l(Tensor::Scalar(int64_t{1}), "l");
  Output dd = d.AssignAdd(Constant(2.0));
  Output ii = i.AssignSub(Constant(int32_t{3}));
  Output ll = l.AssignAdd(Constant(int64_t{1} << 40));
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> v = session.Run({dd, ii, ll});
  EXPECT_EQ(v[0].scalar<double>(), 3.0);
  EXPECT_EQ(v[1].scalar<int32_t>(), -2);
  EXPECT_EQ(v[2].scalar<int64_t>(), (int64_t{1} << 40) + 1);
}

// A value of the wrong shape or dtype is refused while building the graph.
TEST_F(VariablesTest, UpdatesCheckShapeAndDtypeAtBuildTime) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  EXPECT_THROW(w.Assign(Constant(Tensor::Vector<float>({1, 2, 3}))), ValueError);
  EXPECT_THROW(w.AssignAdd(Constant(Tensor::Scalar(1.0f))), ValueError);
  EXPECT_THROW(w.AssignSub(Constant(Tensor::Matrix<float>({{1, 2}}))), ValueError);
  EXPECT_THROW(w.Assign(Constant(Tensor::Vector<double>({1, 2}))), TypeError);
  EXPECT_THROW(w.AssignAdd(Constant(Tensor::Vector<int32_t>({1, 2}))), TypeError);
  Variable flag(Tensor::Scalar(true), "flag");
  EXPECT_THROW(flag.AssignAdd(Constant(true)), TypeError);  // Not numeric.
  // No update op was added: the only Assign ops are the two initializers.
  int assign_ops = 0;
  for (Operation* op : g_.operations()) assign_ops += op->type().rfind("Assign", 0) == 0;
  EXPECT_EQ(assign_ops, 2);
}

// Assigning into something that is not a variable is a TypeError.
TEST_F(VariablesTest, AssignNeedsAVariable) {
  Output c = Constant(1.0f);
  EXPECT_THROW(g_.AddOperation("Assign", "bad", {c, c}), TypeError);
}

// A value of unknown static shape is checked when the update runs.
TEST_F(VariablesTest, UpdatesCheckShapeAtRunTimeWhenUnknownAtBuildTime) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim}, "x");
  Output set = w.Assign(x);
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_EQ(Floats(session.Run(set, {{x, Tensor::Vector<float>({5, 6})}})),
            (std::vector<float>{5, 6}));
  EXPECT_THAT(
      [&] {
        session.Run(set, {{x, Tensor::Vector<float>({5, 6, 7})}});
      },
      Throws<InvalidArgumentError>(HasOpName("Assign")));
  EXPECT_EQ(Floats(session.Run(w.value())), (std::vector<float>{5, 6}));  // Unchanged.
}

// Updating an unset variable names it.
TEST_F(VariablesTest, UpdatingAnUninitialisedVariableRaisesNamingIt) {
  Variable w(Tensor::Scalar(1.0f), "w");
  Output add = w.AssignAdd(Constant(1.0f));
  Session session;
  EXPECT_THAT([&] { session.Run(add); },
              Throws<FailedPreconditionError>(AllOf(
                  HasMessage("Attempting to use uninitialized value w"), HasOpName("AssignAdd"))));
  session.Run(w.Assign(Constant(5.0f)));  // Assign needs no prior value.
  EXPECT_EQ(session.Run(add).scalar<float>(), 6.0f);
}

// A fetched value is a snapshot: later in-place updates do not change it (copy-on-write).
TEST_F(VariablesTest, AFetchedValueIsNotChangedByLaterUpdates) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  Output add = w.AssignAdd(Constant(Tensor::Vector<float>({10, 10})));
  Session session;
  session.Run(GlobalVariablesInitializer());
  Tensor before = session.Run(w.value());
  Tensor after_first = session.Run(add);
  session.Run(add);
  EXPECT_EQ(Floats(before), (std::vector<float>{1, 2}));
  EXPECT_EQ(Floats(after_first), (std::vector<float>{11, 12}));
  EXPECT_EQ(Floats(session.Run(w.value())), (std::vector<float>{21, 22}));
  // The constant the variable was initialised from is untouched too.
  EXPECT_EQ(Floats(session.Run(w.initial_value())), (std::vector<float>{1, 2}));
}

// An update with no one else holding the buffer happens in place: no new allocation.
TEST_F(VariablesTest, AnUnsharedValueIsUpdatedInPlace) {
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  Output add = w.AssignAdd(Constant(Tensor::Vector<float>({1, 1})));
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(add.op());  // The first update copies away from the initial constant.
  const float* before = session.Run(w.value()).data<float>();
  session.Run(add.op());
  Tensor now = session.Run(w.value());
  EXPECT_EQ(now.data<float>(), before);
  EXPECT_EQ(Floats(now), (std::vector<float>{3, 4}));
}

// ---- Initial values ----------------------------------------------------------------------

// The initial value may be any tensor of fully defined shape, computed when initialising.
TEST_F(VariablesTest, InitialValueCanBeAComputedTensor) {
  Output flat = Constant(Tensor::Vector<int32_t>({1, 2, 3, 4}), "flat");
  Variable m(Reshape(Cast(flat, DataType::kFloat), {2, 2}), "m");
  EXPECT_EQ(m.shape(), TensorShape({2, 2}));
  EXPECT_EQ(m.dtype(), DataType::kFloat);
  Session session;
  session.Run(m.initializer());
  EXPECT_TRUE(TensorEqual(session.Run(m.value()), Tensor::Matrix<float>({{1, 2}, {3, 4}})));
}

// A variable can be initialised from another variable's value.
TEST_F(VariablesTest, InitialValueCanComeFromAnotherVariable) {
  Variable a(Tensor::Scalar(7.0f), "a");
  Variable b(a.value(), "b");
  Session session;
  session.Run(a.initializer());
  session.Run(b.initializer());
  EXPECT_EQ(session.Run(b.value()).scalar<float>(), 7.0f);
}

// An initial value whose shape is not fully known is refused, and no op is added.
TEST_F(VariablesTest, PartlyKnownInitialShapeRaisesValueError) {
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  EXPECT_THROW(Variable(x, "v"), ValueError);
  EXPECT_THROW(Variable(Placeholder(DataType::kFloat), "v"), ValueError);  // Unknown rank.
  EXPECT_EQ(g_.FindOperation("v"), nullptr);
  EXPECT_TRUE(GlobalVariables().empty());
}

// ---- CountUpTo ---------------------------------------------------------------------------

// Each run outputs the value before it and adds one; at the limit the run raises TF's
// OutOfRange "Reached limit of N" and the variable stays at the limit.
TEST_F(VariablesTest, CountUpToCountsThenRaisesOutOfRangeAtTheLimit) {
  Variable v(Tensor::Scalar<int64_t>(0), "v");
  Output count = v.CountUpTo(3);
  EXPECT_EQ(count.op()->type(), "CountUpTo");
  EXPECT_EQ(count.dtype(), DataType::kInt64);
  Session session;
  session.Run({}, {}, {v.initializer()});
  for (int64_t expected = 0; expected < 3; ++expected) {
    EXPECT_EQ(session.Run(count).scalar<int64_t>(), expected);
  }
  EXPECT_THAT([&] { session.Run(count); },
              Throws<OutOfRangeError>(
                  AllOf(HasMessage("Reached limit of 3"), HasOpName(count.op()->name()))));
  EXPECT_EQ(session.Run(v.value()).scalar<int64_t>(), 3);
}

// int32 works as int64 does; the free function is the method.
TEST_F(VariablesTest, CountUpToTakesInt32) {
  Variable v(Tensor::Scalar<int32_t>(5), "v");
  Output count = CountUpTo(v, 6, "count");
  Session session;
  session.Run({}, {}, {v.initializer()});
  EXPECT_EQ(session.Run(count).scalar<int32_t>(), 5);
  EXPECT_THROW(session.Run(count), OutOfRangeError);
}

// Only an int32 or int64 scalar variable counts, as in TensorFlow; an unset one raises.
TEST_F(VariablesTest, CountUpToRefusesOtherDtypesShapesAndUnsetVariables) {
  Variable f(Tensor::Scalar(1.0f), "f");
  EXPECT_THAT([&] { f.CountUpTo(2); },
              ThrowsMessage<TypeError>(::testing::HasSubstr("not in list of allowed values")));
  Variable vec(Tensor::Vector<int64_t>({1, 2}), "vec");
  EXPECT_THAT(
      [&] { vec.CountUpTo(2); },
      ThrowsMessage<ValueError>(::testing::HasSubstr("Shape must be rank 0 but is rank 1")));
  Variable unset(Tensor::Scalar<int64_t>(0), "unset");
  Output count = unset.CountUpTo(2);
  Session session;
  EXPECT_THROW(session.Run(count), FailedPreconditionError);
}

}  // namespace
}  // namespace mts
