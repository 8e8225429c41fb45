// layer_stack_test.cc: decides whether the exercise of chapter 00 is done.
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

#include <gtest/gtest.h>

namespace mts {
namespace {

// The three stacks TensorFlow builds. A SingularMonitoredSession is always a chief (it makes
// its own ChiefSessionCreator), so there is no fourth, singular worker, stack.
constexpr StackOptions kMonitoredChief{/*is_chief=*/true, /*recoverable=*/true};
constexpr StackOptions kMonitoredWorker{/*is_chief=*/false, /*recoverable=*/true};
constexpr StackOptions kSingularChief{/*is_chief=*/true, /*recoverable=*/false};

// The chief of a MonitoredSession gets every layer, recovery outermost.
TEST(LayerStackTest, ChiefOfAMonitoredSessionGetsEveryLayer) {
  EXPECT_EQ(LayerStack(kMonitoredChief),
            (std::vector<Layer>{Layer::kRecoverable, Layer::kCoordinated, Layer::kHooked,
                                Layer::kChief}));
}

// A worker's stack differs from the chief's only at the bottom.
TEST(LayerStackTest, WorkerDiffersFromTheChiefOnlyAtTheBottom) {
  EXPECT_EQ(LayerStack(kMonitoredWorker),
            (std::vector<Layer>{Layer::kRecoverable, Layer::kCoordinated, Layer::kHooked,
                                Layer::kWorker}));
}

// A SingularMonitoredSession has no recovery layer; the rest stays the same.
TEST(LayerStackTest, SingularSessionHasNoRecoveryLayer) {
  EXPECT_EQ(LayerStack(kSingularChief),
            (std::vector<Layer>{Layer::kCoordinated, Layer::kHooked, Layer::kChief}));
}

// The hooked layer is always directly above the raw session.
TEST(LayerStackTest, HooksSitDirectlyAboveTheRawSession) {
  for (const StackOptions& options : {kMonitoredChief, kMonitoredWorker, kSingularChief}) {
    const std::vector<Layer> stack = LayerStack(options);
    ASSERT_GE(stack.size(), 2u);
    EXPECT_EQ(stack[stack.size() - 2], Layer::kHooked);
  }
}

// A lost machine costs everything below the recoverable layer: a new raw session (from the
// same creator, so a chief's is again a chief's), a new coordinator, a new hooked layer.
TEST(LayersRebuiltAfterTest, APreemptionRebuildsEveryLayerBelowRecovery) {
  EXPECT_EQ(LayersRebuiltAfter(kMonitoredChief, RunFailure::kPreemption),
            (std::vector<Layer>{Layer::kCoordinated, Layer::kHooked, Layer::kChief}));
  EXPECT_EQ(LayersRebuiltAfter(kMonitoredWorker, RunFailure::kPreemption),
            (std::vector<Layer>{Layer::kCoordinated, Layer::kHooked, Layer::kWorker}));
}

// Without a recoverable layer nobody catches the preemption: it reaches the caller.
TEST(LayersRebuiltAfterTest, ASingularSessionRebuildsNothing) {
  EXPECT_TRUE(LayersRebuiltAfter(kSingularChief, RunFailure::kPreemption).empty());
}

// The end of the input and a bug are not retried, even by a recoverable session.
TEST(LayersRebuiltAfterTest, OnlyAPreemptionIsRecovered) {
  for (const StackOptions& options : {kMonitoredChief, kMonitoredWorker, kSingularChief}) {
    EXPECT_TRUE(LayersRebuiltAfter(options, RunFailure::kOutOfRange).empty());
    EXPECT_TRUE(LayersRebuiltAfter(options, RunFailure::kOther).empty());
  }
}

// Every layer has the name the book gives it.
TEST(LayerStackTest, LayersHaveTheirBookNames) {
  EXPECT_EQ(LayerName(Layer::kRecoverable), "RecoverableSession");
  EXPECT_EQ(LayerName(Layer::kHooked), "HookedSession");
  EXPECT_EQ(LayerName(Layer::kWorker), "Worker");
}

}  // namespace
}  // namespace mts
