// Tests of the greedy placement exercise: sizes decide, ties go to the lowest task, placed
// variables count and stay where they are.
#include "chapters/07_distributed/exercises/greedy_placement/greedy_placement.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

Variable Floats(int64_t n, const std::string& name) {
  return Variable(Tensor::Zeros(DataType::kFloat, {n}), name);
}

TEST(GreedyPlacementTest, EachVariableGoesToTheLeastLoadedTask) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Floats(1000, "embedding");
  Floats(10, "b1");
  Floats(10, "b2");
  Floats(500, "w");
  Floats(600, "w2");
  const std::map<std::string, int> placement = PlaceGreedily(graph, 2);
  // 0: embedding (4000 bytes); 1: b1, b2, w (2080), then w2 (4480).
  EXPECT_EQ(placement, (std::map<std::string, int>{
                           {"embedding", 0}, {"b1", 1}, {"b2", 1}, {"w", 1}, {"w2", 1}}));
}

TEST(GreedyPlacementTest, TiesGoToTheLowestTask) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Floats(4, "a");
  Floats(4, "b");
  Floats(4, "c");
  EXPECT_EQ(PlaceGreedily(graph, 3), (std::map<std::string, int>{{"a", 0}, {"b", 1}, {"c", 2}}));
}

TEST(GreedyPlacementTest, PlacedVariablesCountAndStay) {
  Graph graph;
  DefaultGraphScope scope(graph);
  {
    ReplicaDeviceSetter on_ps(2);
    Floats(100, "big");  // Task 0 by round-robin.
  }
  Floats(1, "small");
  Floats(1, "tiny");
  const std::map<std::string, int> placement = PlaceGreedily(graph, 2);
  EXPECT_EQ(placement, (std::map<std::string, int>{{"big", 0}, {"small", 1}, {"tiny", 1}}));
  EXPECT_EQ(DeviceOf(graph, "tiny"), "/job:ps/task:1");
}

// A model placed for a bigger cluster: the variable on task 2 of a 2-task cluster is named,
// and nothing is placed.
TEST(GreedyPlacementTest, AVariablePlacedOnAMissingTaskIsAnError) {
  Graph graph;
  DefaultGraphScope scope(graph);
  {
    ReplicaDeviceSetter on_ps(3);
    Floats(1, "x");
    Floats(1, "y");
    Floats(1, "z");  // Task 2.
  }
  Floats(1, "new");
  EXPECT_THAT([&] { PlaceGreedily(graph, 2); },
              ThrowsMessage<ValueError>(AllOf(HasSubstr("z"), HasSubstr("task 2"))));
  EXPECT_EQ(PsPlacement(graph).count("new"), 0u);
}

// Creation order, not size order: a variable's task depends only on the ones made before
// it, so adding a variable at the end of a model never moves the others.
TEST(GreedyPlacementTest, AddingAVariableMovesNoOther) {
  Graph small;
  {
    DefaultGraphScope scope(small);
    Floats(30, "a");
    Floats(10, "b");
    Floats(10, "c");
  }
  Graph bigger;
  {
    DefaultGraphScope scope(bigger);
    Floats(30, "a");
    Floats(10, "b");
    Floats(10, "c");
    Floats(1000, "d");
  }
  std::map<std::string, int> before = PlaceGreedily(small, 2);
  std::map<std::string, int> after = PlaceGreedily(bigger, 2);
  after.erase("d");
  EXPECT_EQ(before, after);
  EXPECT_EQ(before, (std::map<std::string, int>{{"a", 0}, {"b", 1}, {"c", 1}}));
}

TEST(GreedyPlacementTest, LocalVariablesAreNotPlacedAndZeroTasksIsAnError) {
  Graph graph;
  DefaultGraphScope scope(graph);
  LocalVariable(Tensor::Scalar<float>(0), "mine");
  EXPECT_TRUE(PlaceGreedily(graph, 2).empty());
  EXPECT_THROW(PlaceGreedily(graph, 0), ValueError);
}

}  // namespace
}  // namespace mts
