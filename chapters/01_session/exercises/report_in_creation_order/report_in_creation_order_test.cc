// Tests of the creation-order report exercise.
#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"

namespace mts {
namespace {

using Names = std::vector<std::string>;

class ReportInCreationOrderTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable a_{Tensor::Scalar(1.0f), "a"};
  Variable b_{Tensor::Scalar(2.0f), "b"};
  Variable c_{Tensor::Scalar(3.0f), "c"};
};

// A list given out of order is reported in creation order.
TEST_F(ReportInCreationOrderTest, NamesFollowCreationOrderNotListOrder) {
  Output report = ReportUninitializedInCreationOrder({c_, a_, b_});
  Session session;
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"a", "b", "c"}));
}

// A variable listed twice is named once.
TEST_F(ReportInCreationOrderTest, DuplicatesAreReportedOnce) {
  Output report = ReportUninitializedInCreationOrder({b_, a_, b_});
  Session session;
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"a", "b"}));
}

// Initialised variables drop out of the report, which ends empty.
TEST_F(ReportInCreationOrderTest, InitialisedVariablesDropOut) {
  Output report = ReportUninitializedInCreationOrder({c_, b_, a_});
  Session session;
  session.Run(b_.initializer());
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"a", "c"}));
  session.Run(GlobalVariablesInitializer());
  EXPECT_EQ(session.Run(report).num_elements(), 0);
}

// An empty list stands for the global and local variables, in creation order; a variable
// in neither collection is not among them.
TEST_F(ReportInCreationOrderTest, AnEmptyListMeansTheGlobalAndLocalVariables) {
  VariableOptions local;
  local.name = "l";
  local.trainable = false;
  local.collections = {GraphKeys::kLocalVariables};
  Variable l(Tensor::Scalar(4.0f), local);
  VariableOptions hidden;
  hidden.name = "hidden";
  hidden.collections = {"my_own_collection"};
  Variable h(Tensor::Scalar(5.0f), hidden);
  Variable d(Tensor::Scalar(6.0f), "d");
  Output report = ReportUninitializedInCreationOrder({});
  EXPECT_EQ(report.graph(), &graph_);
  Session session;
  session.Run(b_.initializer());
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"a", "c", "l", "d"}));
}

// When no collection holds a variable (a graph imported without its collections, say), an
// empty list falls back to every variable op of the graph, in creation order, and to
// nothing else.
TEST(ReportInCreationOrderFallbackTest, WithoutCollectionsEveryVariableOpIsReported) {
  Graph graph;
  DefaultGraphScope scope(graph);
  VariableOptions options;
  options.collections = {"my_own_collection"};
  options.name = "y";
  Variable y(Tensor::Scalar(1.0f), options);
  Constant(Tensor::Scalar(2.0f), "not_a_variable");
  options.name = "x";
  Variable x(Tensor::Scalar(3.0f), options);
  Output report = ReportUninitializedInCreationOrder({});
  Session session;
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"y", "x"}));
  session.Run(x.initializer());
  EXPECT_EQ(session.Run(report).ToVector<std::string>(), (Names{"y"}));
}

}  // namespace
}  // namespace mts
