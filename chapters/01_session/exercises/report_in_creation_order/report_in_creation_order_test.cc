// Tests of the creation-order report exercise.
#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

#include "gtest/gtest.h"
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

}  // namespace
}  // namespace mts
