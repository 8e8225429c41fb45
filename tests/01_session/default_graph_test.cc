// Tests of the default graph (graph.h): a per-thread stack of graphs opened by
// DefaultGraphScope (TensorFlow's `with g.as_default():`) over one process-wide graph.
#include <future>
#include <thread>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"

namespace mts {
namespace {

// Inside a scope its graph is the default; on exit the previous default returns.
TEST(DefaultGraphTest, ScopeMakesItsGraphTheDefaultUntilItEnds) {
  Graph* global = &GetDefaultGraph();
  Graph g;
  {
    DefaultGraphScope as_default(g);
    EXPECT_EQ(&GetDefaultGraph(), &g);
  }
  EXPECT_EQ(&GetDefaultGraph(), global);
}

// Scopes nest: the innermost wins, and each exit restores the one around it.
TEST(DefaultGraphTest, InnermostScopeWins) {
  Graph outer, inner;
  DefaultGraphScope as_outer(outer);
  {
    DefaultGraphScope as_inner(inner);
    EXPECT_EQ(&GetDefaultGraph(), &inner);
    {
      DefaultGraphScope outer_again(outer);  // Re-entering a graph already on the stack.
      EXPECT_EQ(&GetDefaultGraph(), &outer);
    }
    EXPECT_EQ(&GetDefaultGraph(), &inner);
  }
  EXPECT_EQ(&GetDefaultGraph(), &outer);
}

// Op functions without inputs build in the default graph.
TEST(DefaultGraphTest, OpsWithoutInputsGoToTheDefaultGraph) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output c = Constant(1.0f);
  Output p = Placeholder(DataType::kFloat);
  Operation* n = NoOp();
  Output z = Zeros({2});
  EXPECT_EQ(c.graph(), &g);
  EXPECT_EQ(p.graph(), &g);
  EXPECT_EQ(n->graph(), &g);
  EXPECT_EQ(z.graph(), &g);
  EXPECT_EQ(g.num_ops(), 4);
}

// A scope opened on one thread is invisible on another, which sees the global default.
TEST(DefaultGraphTest, ScopesArePerThread) {
  Graph* global = &GetDefaultGraph();
  Graph mine;
  DefaultGraphScope as_default(mine);
  Graph* seen_by_other = nullptr;
  std::thread([&] { seen_by_other = &GetDefaultGraph(); }).join();
  EXPECT_EQ(seen_by_other, global);
  EXPECT_EQ(&GetDefaultGraph(), &mine);
}

// Two threads with their own scopes open at the same time each see their own graph.
TEST(DefaultGraphTest, ConcurrentScopesOnTwoThreadsDoNotInterfere) {
  Graph main_graph, thread_graph;
  DefaultGraphScope as_default(main_graph);
  std::promise<void> opened, checked;
  Graph* seen_inside = nullptr;
  std::thread other([&] {
    DefaultGraphScope theirs(thread_graph);
    opened.set_value();
    checked.get_future().wait();  // Keep the scope open while the main thread looks.
    seen_inside = &GetDefaultGraph();
  });
  opened.get_future().wait();
  EXPECT_EQ(&GetDefaultGraph(), &main_graph);  // The other thread's scope is open now.
  Constant(1.0f);
  checked.set_value();
  other.join();
  EXPECT_EQ(seen_inside, &thread_graph);
  EXPECT_EQ(main_graph.num_ops(), 1);
  EXPECT_EQ(thread_graph.num_ops(), 0);
}

// ResetDefaultGraph inside a scope raises, as tf.reset_default_graph does in a `with`.
TEST(DefaultGraphTest, ResetInsideAScopeRaisesRuntimeError) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THROW(ResetDefaultGraph(), RuntimeError);
  EXPECT_EQ(&GetDefaultGraph(), &g);
}

// ResetDefaultGraph outside any scope gives a new, empty global graph.
TEST(DefaultGraphTest, ResetGivesAnEmptyGlobalGraph) {
  Constant(1.0f);  // Into the global default graph.
  EXPECT_GE(GetDefaultGraph().num_ops(), 1);
  ResetDefaultGraph();
  EXPECT_EQ(GetDefaultGraph().num_ops(), 0);
  EXPECT_EQ(Constant(1.0f).op()->name(), "Const");  // Names start afresh.
}

}  // namespace
}  // namespace mts
