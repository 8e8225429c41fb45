// Tests of the greedy placement exercise: sizes decide, ties go to the lowest task, placed
// variables count and stay where they are.
#include "chapters/07_distributed/exercises/greedy_placement/greedy_placement.h"

#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"

namespace mts {
namespace {

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

TEST(GreedyPlacementTest, LocalVariablesAreNotPlacedAndZeroTasksIsAnError) {
  Graph graph;
  DefaultGraphScope scope(graph);
  LocalVariable(Tensor::Scalar<float>(0), "mine");
  EXPECT_TRUE(PlaceGreedily(graph, 2).empty());
  EXPECT_THROW(PlaceGreedily(graph, 0), ValueError);
}

}  // namespace
}  // namespace mts
