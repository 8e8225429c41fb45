// Tests of graph.h: unique hierarchical names, lookup by name, collections, control
// dependencies, Finalize, and what a failed AddOperation leaves behind (nothing).
#include "src/01_session/graph.h"

#include <any>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Each test builds in its own graph, made default for the test's duration.
class GraphTest : public ::testing::Test {
 protected:
  Graph g_;
  DefaultGraphScope as_default_{g_};
};

// ---- Names -------------------------------------------------------------------------------

// The first op of a type takes the type's name; later ones get "_1", "_2".
TEST_F(GraphTest, RepeatedNamesGetNumberedSuffixes) {
  Output x = Constant(1.0f);
  EXPECT_EQ(x.op()->name(), "Const");
  EXPECT_EQ(Constant(2.0f).op()->name(), "Const_1");
  EXPECT_EQ(Identity(x, "MatMul").op()->name(), "MatMul");
  EXPECT_EQ(Identity(x, "MatMul").op()->name(), "MatMul_1");
  EXPECT_EQ(Identity(x, "MatMul").op()->name(), "MatMul_2");
  EXPECT_EQ(x.name(), "Const:0");
}

// A name scope prefixes the ops made inside it; reopening it makes a new, numbered scope.
TEST_F(GraphTest, NameScopesPrefixAndReopeningNumbersThem) {
  {
    NameScope dense("dense");
    EXPECT_EQ(dense.name(), "dense");
    EXPECT_EQ(g_.current_name_scope(), "dense");
    EXPECT_EQ(Constant(1.0f).op()->name(), "dense/Const");
    EXPECT_EQ(Constant(1.0f).op()->name(), "dense/Const_1");
  }
  EXPECT_EQ(g_.current_name_scope(), "");
  {
    NameScope dense("dense");
    EXPECT_EQ(dense.name(), "dense_1");
    EXPECT_EQ(Constant(1.0f).op()->name(), "dense_1/Const");
  }
  EXPECT_EQ(Constant(1.0f).op()->name(), "Const");  // The root scope is untouched.
}

// Scopes nest, and each level numbers its own names.
TEST_F(GraphTest, NestedNameScopesBuildPaths) {
  NameScope outer("outer");
  {
    NameScope inner("inner");
    EXPECT_EQ(inner.name(), "outer/inner");
    EXPECT_EQ(NoOp()->name(), "outer/inner/NoOp");
  }
  {
    NameScope inner("inner");
    EXPECT_EQ(inner.name(), "outer/inner_1");
    {
      NameScope dense("dense");
      EXPECT_EQ(Constant(1.0f, "w").op()->name(), "outer/inner_1/dense/w");
    }
  }
  EXPECT_EQ(g_.current_name_scope(), "outer");
}

// An empty scope name returns to the root while it is open, as tf.name_scope("") does.
TEST_F(GraphTest, EmptyNameScopeReturnsToTheRoot) {
  NameScope outer("outer");
  {
    NameScope root("");
    EXPECT_EQ(Constant(1.0f).op()->name(), "Const");
  }
  EXPECT_EQ(Constant(1.0f).op()->name(), "outer/Const");
}

// Ops and scopes share one namespace: a scope named after an op is numbered, and so is an
// op named after a scope.
TEST_F(GraphTest, OpsAndScopesShareNames) {
  Constant(1.0f, "dense");
  {
    NameScope dense("dense");
    EXPECT_EQ(dense.name(), "dense_1");
  }
  { NameScope layer("layer"); }
  EXPECT_EQ(Constant(1.0f, "layer").op()->name(), "layer_1");
}

// An explicit name that collides with a generated one is numbered past it, as TensorFlow
// does: "a", "a" -> "a_1", then an explicit "a_1" -> "a_1_1", then "a" -> "a_2".
TEST_F(GraphTest, ExplicitNamesThatCollideAreNumberedToo) {
  EXPECT_EQ(Constant(1.0f, "a").op()->name(), "a");
  EXPECT_EQ(Constant(1.0f, "a").op()->name(), "a_1");
  EXPECT_EQ(Constant(1.0f, "a_1").op()->name(), "a_1_1");
  EXPECT_EQ(Constant(1.0f, "a").op()->name(), "a_2");
}

// A suffix taken explicitly first is skipped when numbering later.
TEST_F(GraphTest, NumberingSkipsSuffixesTakenExplicitly) {
  EXPECT_EQ(Constant(1.0f, "b_1").op()->name(), "b_1");
  EXPECT_EQ(Constant(1.0f, "b").op()->name(), "b");
  EXPECT_EQ(Constant(1.0f, "b").op()->name(), "b_2");
}

// UniqueName reserves a name without making an op.
TEST_F(GraphTest, UniqueNameReservesNames) {
  EXPECT_EQ(g_.UniqueName("x"), "x");
  EXPECT_EQ(g_.UniqueName("x"), "x_1");
  EXPECT_EQ(Constant(1.0f, "x").op()->name(), "x_2");
}

// Ops are numbered in creation order, which is a topological order.
TEST_F(GraphTest, OperationsAreKeptInCreationOrder) {
  Output a = Constant(1.0f);
  Output b = Identity(a);
  Operation* c = NoOp();
  std::vector<Operation*> ops = g_.operations();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0], a.op());
  EXPECT_EQ(ops[1], b.op());
  EXPECT_EQ(ops[2], c);
  EXPECT_EQ(b.op()->id(), 1);
  EXPECT_EQ(g_.num_ops(), 3);
}

// An op records its type, inputs, dtypes, static shapes and attributes.
TEST_F(GraphTest, AnOperationRecordsWhatItWasBuiltWith) {
  Output p = Placeholder(DataType::kInt32, {TensorShape::kUnknownDim, 3}, "p");
  Output r = Reshape(p, {-1}, "flat");
  Operation* op = r.op();
  EXPECT_EQ(op->type(), "Reshape");
  EXPECT_EQ(op->graph(), &g_);
  ASSERT_EQ(op->num_inputs(), 1);
  EXPECT_EQ(op->input(0), p);
  EXPECT_EQ(op->num_outputs(), 1);
  EXPECT_EQ(r.dtype(), DataType::kInt32);
  EXPECT_EQ(r.shape(), TensorShape({-1}));
  EXPECT_EQ(op->attr<std::vector<int64_t>>("shape"), (std::vector<int64_t>{-1}));
  EXPECT_TRUE(op->HasAttr("shape"));
  EXPECT_THROW(op->attr<DataType>("shape"), InvalidArgumentError);  // Wrong type.
  EXPECT_THROW(op->attr<DataType>("nope"), InvalidArgumentError);   // Absent.
}

// ---- Lookup by name ----------------------------------------------------------------------

// "op:index" finds an output; a bare name finds an op.
TEST_F(GraphTest, LookupByName) {
  NameScope dense("dense");
  Output c = Constant(1.0f, "w");
  EXPECT_EQ(g_.GetTensorByName("dense/w:0"), c);
  EXPECT_EQ(g_.GetOperationByName("dense/w"), c.op());
  EXPECT_EQ(g_.FindOperation("dense/w"), c.op());
  EXPECT_EQ(g_.FindOperation("w"), nullptr);
}

// A missing op is a ValueError with TensorFlow's wording.
TEST_F(GraphTest, MissingNamesRaiseValueErrorWithTensorFlowsWording) {
  Constant(1.0f, "c");
  EXPECT_THAT([&] { g_.GetOperationByName("nope"); },
              ThrowsMessage<ValueError>(
                  HasSubstr("The name 'nope' refers to an Operation not in the graph.")));
  EXPECT_THAT(
      [&] { g_.GetTensorByName("nope:0"); },
      ThrowsMessage<ValueError>(HasSubstr(
          "The name 'nope:0' refers to a Tensor which does not exist. The operation, 'nope', "
          "does not exist in the graph.")));
  EXPECT_THAT(
      [&] { g_.GetTensorByName("c:1"); },
      ThrowsMessage<ValueError>(HasSubstr(
          "The name 'c:1' refers to a Tensor which does not exist. The operation, 'c', exists "
          "but only has 1 outputs.")));
}

// Tensor names must have the form "<op_name>:<output_index>".
TEST_F(GraphTest, MalformedTensorNamesRaiseValueError) {
  Constant(1.0f, "c");
  for (const char* name : {"c", "c:", "c:x", "c:1x", "c:1:0", ":0"}) {
    SCOPED_TRACE(name);
    EXPECT_THROW(g_.GetTensorByName(name), ValueError);
  }
}

// ---- Collections -------------------------------------------------------------------------

// GetCollection returns the items of the requested type, in insertion order.
TEST_F(GraphTest, CollectionsAreTypedAndOrdered) {
  g_.AddToCollection("things", 1);
  g_.AddToCollection("things", std::string("a"));
  g_.AddToCollection("things", 2);
  g_.AddToCollection("things", 3);
  EXPECT_EQ(g_.GetCollection<int>("things"), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(g_.GetCollection<std::string>("things"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(g_.GetCollection<double>("things").empty());
  EXPECT_EQ(g_.CollectionSize("things"), 4);
  EXPECT_TRUE(g_.GetCollection<int>("missing").empty());
  EXPECT_EQ(g_.CollectionSize("missing"), 0);
}

// Collections hold ops and tensors too, which is how later stages find a model's parts.
TEST_F(GraphTest, CollectionsHoldOpsAndTensors) {
  Output c = Constant(1.0f);
  Operation* init = NoOp("init");
  g_.AddToCollection(GraphKeys::kInitOp, init);
  g_.AddToCollection(GraphKeys::kLosses, c);
  EXPECT_EQ(g_.GetCollection<Operation*>(GraphKeys::kInitOp), std::vector<Operation*>{init});
  EXPECT_EQ(g_.GetCollection<Output>(GraphKeys::kLosses), std::vector<Output>{c});
}

// ClearCollection empties one collection; collection_keys lists the non-empty ones, sorted.
TEST_F(GraphTest, ClearCollectionAndKeys) {
  g_.AddToCollection("zeta", 1);
  g_.AddToCollection("alpha", 1);
  g_.AddToCollection("mid", 1);
  EXPECT_EQ(g_.collection_keys(), (std::vector<std::string>{"alpha", "mid", "zeta"}));
  g_.ClearCollection("mid");
  EXPECT_EQ(g_.CollectionSize("mid"), 0);
  EXPECT_EQ(g_.collection_keys(), (std::vector<std::string>{"alpha", "zeta"}));
  g_.ClearCollection("never-existed");  // Clearing an absent collection is fine.
}

// ---- Control dependencies ----------------------------------------------------------------

// Ops made inside a ControlDependencies scope get its ops as control inputs; ops made
// after it do not.
TEST_F(GraphTest, ControlDependenciesScopeAddsControlInputs) {
  Operation* a = NoOp("a");
  Operation* inside;
  {
    ControlDependencies deps({a});
    inside = Constant(1.0f).op();
  }
  Operation* after = Constant(1.0f).op();
  EXPECT_EQ(inside->control_inputs(), std::vector<Operation*>{a});
  EXPECT_TRUE(after->control_inputs().empty());
}

// Nested scopes accumulate; closing the inner one restores the outer set.
TEST_F(GraphTest, ControlDependenciesNest) {
  Operation* a = NoOp("a");
  Operation* b = NoOp("b");
  ControlDependencies outer({a});
  {
    ControlDependencies inner({b, a});
    EXPECT_EQ(NoOp("both")->control_inputs(), (std::vector<Operation*>{a, b}));  // No dups.
  }
  EXPECT_EQ(NoOp("outer_only")->control_inputs(), std::vector<Operation*>{a});
}

// Explicit control inputs and scope ones combine, without duplicates.
TEST_F(GraphTest, ExplicitControlInputsCombineWithTheScope) {
  Operation* a = NoOp("a");
  Operation* b = NoOp("b");
  ControlDependencies deps({a});
  Operation* g = Group({b, a}, "g");
  EXPECT_EQ(g->control_inputs(), (std::vector<Operation*>{b, a}));
}

// An op that already takes data from a control dependency gets no redundant control edge,
// as in TensorFlow.
TEST_F(GraphTest, ControlDependencyAlreadyReachedByDataIsNotRepeated) {
  Output c = Constant(1.0f, "c");
  Operation* other = NoOp("other");
  ControlDependencies deps({c.op(), other});
  EXPECT_EQ(Identity(c).op()->control_inputs(), std::vector<Operation*>{other});
}

// ---- Finalize ----------------------------------------------------------------------------

// After Finalize, adding ops or collection items raises RuntimeError and changes nothing.
TEST_F(GraphTest, FinalizedGraphRejectsChangesAndStaysUnchanged) {
  Output c = Constant(1.0f, "c");
  g_.AddToCollection("k", 1);
  EXPECT_FALSE(g_.finalized());
  g_.Finalize();
  EXPECT_TRUE(g_.finalized());

  EXPECT_THAT([&] { Constant(2.0f, "d"); },
              ThrowsMessage<RuntimeError>(HasSubstr("Graph is finalized")));
  EXPECT_THAT([&] { Identity(c); }, ThrowsMessage<RuntimeError>(HasSubstr("Graph is finalized")));
  EXPECT_THROW(g_.AddToCollection("k", 2), RuntimeError);
  EXPECT_THROW(g_.ClearCollection("k"), RuntimeError);

  EXPECT_EQ(g_.num_ops(), 1);
  EXPECT_EQ(g_.FindOperation("d"), nullptr);
  EXPECT_EQ(g_.GetCollection<int>("k"), std::vector<int>{1});
  // Reading is still allowed.
  EXPECT_EQ(g_.GetTensorByName("c:0"), c);
}

// ---- Failed construction -----------------------------------------------------------------

// A shape error leaves no op behind and does not use up the name.
TEST_F(GraphTest, FailedAddOperationLeavesNoOpAndKeepsTheName) {
  Output four = Constant(Tensor::Vector<float>({1, 2, 3, 4}), "four");
  EXPECT_THROW(Reshape(four, {3}, "r"), ValueError);
  EXPECT_EQ(g_.num_ops(), 1);
  EXPECT_EQ(g_.FindOperation("r"), nullptr);
  EXPECT_EQ(Reshape(four, {2, 2}, "r").op()->name(), "r");  // Not "r_1".
}

// A dtype error (TypeError) leaves the graph unchanged too.
TEST_F(GraphTest, FailedDtypeCheckLeavesTheGraphUnchanged) {
  Output s = Constant(Tensor::Scalar(std::string("x")), "s");
  EXPECT_THROW(Cast(s, DataType::kFloat, "cast"), TypeError);
  EXPECT_EQ(g_.num_ops(), 1);
  EXPECT_EQ(Identity(s, "cast").op()->name(), "cast");
}

// An unknown op type is NotFoundError naming the type.
TEST_F(GraphTest, UnregisteredOpTypeRaisesNotFound) {
  EXPECT_THROW(g_.AddOperation("NoSuchOp", "", {}), NotFoundError);
  EXPECT_EQ(g_.num_ops(), 0);
}

// An op that declares its number of inputs (as the update ops a parameter server re-makes
// from a message do) refuses another number before its shape function sees them.
TEST_F(GraphTest, AnOpWithAFixedNumberOfInputsRefusesAnotherNumber) {
  Output c = Constant(1.0f, "c");
  EXPECT_THAT([&] { g_.AddOperation("Assign", "a", {c}); },
              ThrowsMessage<ValueError>(HasSubstr("Op 'a' (Assign) takes 2 inputs, got 1")));
  EXPECT_THAT(
      [&] {
        g_.AddOperation("Assign", "a", {c, c, c});
      },
      ThrowsMessage<ValueError>(HasSubstr("takes 2 inputs, got 3")));
  EXPECT_EQ(g_.num_ops(), 1);
}

// ---- Graph membership --------------------------------------------------------------------

// An input from another graph raises ValueError, and the graph is unchanged.
TEST_F(GraphTest, InputsFromAnotherGraphRaiseValueError) {
  Graph other;
  Output foreign;
  {
    DefaultGraphScope in_other(other);
    foreign = Constant(1.0f, "foreign");
  }
  EXPECT_THAT(
      [&] { g_.AddOperation("Identity", "id", {foreign}); },
      ThrowsMessage<ValueError>(HasSubstr("the tensor's graph is different from this op's graph")));
  EXPECT_THROW(g_.AddOperation("NoOp", "n", {}, {}, {foreign.op()}), ValueError);
  EXPECT_EQ(g_.num_ops(), 0);
  EXPECT_EQ(other.num_ops(), 1);
}

// An op function places its op in the graph of its inputs, not the default graph.
TEST_F(GraphTest, OpsGoToTheGraphOfTheirInputs) {
  Graph other;
  Output foreign;
  {
    DefaultGraphScope in_other(other);
    foreign = Constant(1.0f);
  }
  Output id = Identity(foreign);  // g_ is the default graph here.
  EXPECT_EQ(id.graph(), &other);
  EXPECT_EQ(g_.num_ops(), 0);
}

// GraphOf refuses inputs from two graphs.
TEST_F(GraphTest, GraphOfRejectsMixedGraphs) {
  Graph other;
  Output mine = Constant(1.0f);
  Output foreign;
  {
    DefaultGraphScope in_other(other);
    foreign = Constant(1.0f);
  }
  EXPECT_EQ(&GraphOf({mine}, "op"), &g_);
  EXPECT_EQ(&GraphOf({}, "op"), &g_);
  EXPECT_THROW(GraphOf({mine, foreign}, "op"), ValueError);
}

}  // namespace
}  // namespace mts
