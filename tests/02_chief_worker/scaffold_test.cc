// Tests of scaffold.h: where each piece comes from (given, found in its collection, or built
// and recorded there), what the built ops do in a session, and Finalize's graph freeze.
#include "src/02_chief_worker/scaffold.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

std::vector<std::string> Names(Session& session, const Output& report) {
  return session.Run(report).ToVector<std::string>();
}

// A graph with one global variable "w" and one local variable "l", made the default graph.
class ScaffoldTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable w_{Tensor::Scalar(3.0f), "w"};
  Variable l_ = LocalVariable(Tensor::Scalar(5.0f), "l");
};

// With nothing given, Finalize builds every piece, records it in its collection, and the
// ops do what their names say.
TEST_F(ScaffoldTest, FinalizeBuildsEveryMissingPiece) {
  Scaffold scaffold;
  scaffold.Finalize();

  ASSERT_NE(scaffold.init_op(), nullptr);
  ASSERT_TRUE(scaffold.ready_op().has_value());
  ASSERT_TRUE(scaffold.ready_for_local_init_op().has_value());
  ASSERT_NE(scaffold.local_init_op(), nullptr);
  EXPECT_NE(scaffold.saver(), nullptr);
  EXPECT_FALSE(scaffold.summary_op().has_value());  // The graph has no summaries.
  EXPECT_EQ(scaffold.graph(), &graph_);

  EXPECT_THAT(graph_.GetCollection<Operation*>(GraphKeys::kInitOp),
              ElementsAre(scaffold.init_op()));
  EXPECT_THAT(graph_.GetCollection<Output>(GraphKeys::kReadyOp), ElementsAre(*scaffold.ready_op()));
  EXPECT_THAT(graph_.GetCollection<Output>(GraphKeys::kReadyForLocalInitOp),
              ElementsAre(*scaffold.ready_for_local_init_op()));
  EXPECT_THAT(graph_.GetCollection<Operation*>(GraphKeys::kLocalInitOp),
              ElementsAre(scaffold.local_init_op()));
  EXPECT_EQ(graph_.CollectionSize(GraphKeys::kSummaryOp), 0);  // nullopt is not recorded.

  Session session(&graph_);
  EXPECT_THAT(Names(session, *scaffold.ready_op()), ElementsAre("w", "l"));
  EXPECT_THAT(Names(session, *scaffold.ready_for_local_init_op()), ElementsAre("w"));
  session.Run(scaffold.init_op());
  EXPECT_THAT(Names(session, *scaffold.ready_op()), ElementsAre("l"));
  EXPECT_THAT(Names(session, *scaffold.ready_for_local_init_op()), IsEmpty());
  session.Run(scaffold.local_init_op());
  EXPECT_THAT(Names(session, *scaffold.ready_op()), IsEmpty());
  EXPECT_EQ(session.Run(l_.value()).scalar<float>(), 5.0f);
}

// A piece a model put in its collection is used instead of a new op.
TEST_F(ScaffoldTest, FinalizeTakesTheOnlyItemOfEachCollection) {
  Operation* my_init = NoOp("my_init");
  Operation* my_local_init = NoOp("my_local_init");
  Output my_ready = Constant(Tensor::Vector<std::string>({}), "my_ready");
  Output my_ready_for_local = Constant(Tensor::Vector<std::string>({}), "my_ready_local");
  Output my_summary = Constant(Tensor::Scalar(std::string("s")), "my_summary");
  graph_.AddToCollection(GraphKeys::kInitOp, my_init);
  graph_.AddToCollection(GraphKeys::kLocalInitOp, my_local_init);
  graph_.AddToCollection(GraphKeys::kReadyOp, my_ready);
  graph_.AddToCollection(GraphKeys::kReadyForLocalInitOp, my_ready_for_local);
  graph_.AddToCollection(GraphKeys::kSummaryOp, my_summary);

  Scaffold scaffold;
  scaffold.Finalize();

  EXPECT_EQ(scaffold.init_op(), my_init);
  EXPECT_EQ(scaffold.local_init_op(), my_local_init);
  EXPECT_EQ(scaffold.ready_op(), my_ready);
  EXPECT_EQ(scaffold.ready_for_local_init_op(), my_ready_for_local);
  EXPECT_EQ(scaffold.summary_op(), my_summary);
}

// Pieces given to the constructor are used as they are and never recorded in collections.
TEST_F(ScaffoldTest, PiecesPassedInAreUsedAndNotRecorded) {
  ScaffoldOptions options;
  options.init_op = NoOp("my_init");
  options.ready_op = Constant(Tensor::Vector<std::string>({}), "my_ready");
  options.local_init_op = NoOp("my_local_init");
  Scaffold scaffold(options);
  scaffold.Finalize();

  EXPECT_EQ(scaffold.init_op(), options.init_op);
  EXPECT_EQ(scaffold.ready_op(), options.ready_op);
  EXPECT_EQ(scaffold.local_init_op(), options.local_init_op);
  EXPECT_EQ(graph_.CollectionSize(GraphKeys::kInitOp), 0);
  EXPECT_EQ(graph_.CollectionSize(GraphKeys::kReadyOp), 0);
  EXPECT_EQ(graph_.CollectionSize(GraphKeys::kLocalInitOp), 0);
  // The ones not given were still built and recorded.
  EXPECT_EQ(graph_.CollectionSize(GraphKeys::kReadyForLocalInitOp), 1);
}

// Each collection Finalize reads, paired with a way to put a second item in it.
struct CollectionCase {
  const char* key;
  bool holds_operations;  // Operation* items (else Output items).
};

class ScaffoldSeveralItemsTest : public ScaffoldTest,
                                 public ::testing::WithParamInterface<CollectionCase> {};

// Two items in a collection raise a RuntimeError that names the collection and the option to
// use (TensorFlow's message leaves its "%s" placeholders unfilled).
TEST_P(ScaffoldSeveralItemsTest, SeveralItemsRaiseNamingTheCollection) {
  const CollectionCase& c = GetParam();
  for (int i = 0; i < 2; ++i) {
    if (c.holds_operations) {
      graph_.AddToCollection(c.key, NoOp());
    } else {
      graph_.AddToCollection(c.key, Constant(Tensor::Vector<std::string>({})));
    }
  }
  Scaffold scaffold;
  EXPECT_THAT(
      [&] { scaffold.Finalize(); },
      ThrowsMessage<RuntimeError>(AllOf(
          StrEq("More than one item in collection " + std::string(c.key) +
                " (2). Pass the one to use to the Scaffold as ScaffoldOptions::" + c.key + "."),
          Not(HasSubstr("%s")))))
      << "two items in " << c.key;
  EXPECT_FALSE(graph_.finalized());
}

INSTANTIATE_TEST_SUITE_P(EveryCollection, ScaffoldSeveralItemsTest,
                         ::testing::Values(CollectionCase{GraphKeys::kInitOp, true},
                                           CollectionCase{GraphKeys::kReadyOp, false},
                                           CollectionCase{GraphKeys::kReadyForLocalInitOp, false},
                                           CollectionCase{GraphKeys::kLocalInitOp, true},
                                           CollectionCase{GraphKeys::kSummaryOp, false}),
                         [](const ::testing::TestParamInfo<CollectionCase>& info) {
                           return std::string(info.param.key);
                         });

// An item of the wrong kind (an Output where an Operation* belongs) is a TypeError.
TEST_F(ScaffoldTest, AnItemOfTheWrongKindIsATypeError) {
  graph_.AddToCollection(GraphKeys::kInitOp, Constant(1.0f));
  Scaffold scaffold;
  EXPECT_THROW(scaffold.Finalize(), TypeError);
}

// Finalize freezes the graph and says so in the log.
TEST_F(ScaffoldTest, FinalizeFinalizesTheGraphAndLogs) {
  ScopedLogCapture capture;
  Scaffold scaffold;
  EXPECT_FALSE(scaffold.finalized());
  EXPECT_EQ(&scaffold.Finalize(), &scaffold);
  EXPECT_TRUE(scaffold.finalized());
  EXPECT_TRUE(graph_.finalized());
  EXPECT_TRUE(capture.Contains("Graph was finalized."));
  EXPECT_THROW(NoOp("late"), RuntimeError);
}

// Creators finalize on every session (re)creation: the second call adds nothing and
// changes no piece.
TEST_F(ScaffoldTest, FinalizeTwiceIsHarmless) {
  Scaffold scaffold;
  scaffold.Finalize();
  const int num_ops = graph_.num_ops();
  Operation* init_op = scaffold.init_op();
  auto saver = scaffold.saver();
  EXPECT_NO_THROW(scaffold.Finalize());
  EXPECT_EQ(graph_.num_ops(), num_ops);
  EXPECT_EQ(scaffold.init_op(), init_op);
  EXPECT_EQ(scaffold.saver(), saver);
}

// A second Scaffold on a finalized graph finds every piece the first one recorded, so it
// needs no new ops either (what a recreated chief does with a fresh scaffold).
TEST_F(ScaffoldTest, ASecondScaffoldReusesTheRecordedPieces) {
  Scaffold first;
  first.Finalize();
  Scaffold second;
  EXPECT_NO_THROW(second.Finalize());
  EXPECT_EQ(second.init_op(), first.init_op());
  EXPECT_EQ(second.ready_op(), first.ready_op());
  EXPECT_EQ(second.ready_for_local_init_op(), first.ready_for_local_init_op());
  EXPECT_EQ(second.local_init_op(), first.local_init_op());
  EXPECT_EQ(second.saver(), first.saver());
}

// A piece that must be built cannot be, once someone else has finalized the graph.
TEST_F(ScaffoldTest, BuildingOnAFinalizedGraphRaises) {
  graph_.Finalize();
  Scaffold scaffold;
  EXPECT_THROW(scaffold.Finalize(), RuntimeError);
}

// With summaries in the graph, summary_op merges them and is recorded.
TEST_F(ScaffoldTest, SummaryOpMergesAllSummaries) {
  ScalarSummary("loss", Constant(0.5f));
  Scaffold scaffold;
  scaffold.Finalize();
  ASSERT_TRUE(scaffold.summary_op().has_value());
  EXPECT_THAT(graph_.GetCollection<Output>(GraphKeys::kSummaryOp),
              ElementsAre(*scaffold.summary_op()));
  Session session(&graph_);
  EXPECT_FALSE(session.Run(*scaffold.summary_op()).scalar<std::string>().empty());
}

// The default local init op also runs the table initializers.
TEST_F(ScaffoldTest, DefaultLocalInitOpRunsTableInitializers) {
  Variable table(Tensor::Scalar(7.0f), "table");
  graph_.AddToCollection(GraphKeys::kTableInitializers, table.initializer());
  Operation* local_init = Scaffold::DefaultLocalInitOp();
  Session session(&graph_);
  session.Run(local_init);
  EXPECT_EQ(session.Run(table.value()).scalar<float>(), 7.0f);
  EXPECT_EQ(session.Run(l_.value()).scalar<float>(), 5.0f);
}

// init_fn receives the scaffold it is bound to.
TEST_F(ScaffoldTest, BoundInitFnPassesTheScaffold) {
  const Scaffold* seen = nullptr;
  ScaffoldOptions options;
  options.init_fn = [&](const Scaffold& s, SessionInterface&) { seen = &s; };
  Scaffold scaffold(options);
  Session session(&graph_);
  scaffold.BoundInitFn()(session);
  EXPECT_EQ(seen, &scaffold);
  EXPECT_FALSE(Scaffold().BoundInitFn());  // No init_fn: an empty function.
}

// copy_from_scaffold fills what is unset, and the copied init_fn is bound to the copy.
TEST_F(ScaffoldTest, CopyFromScaffoldFillsUnsetPieces) {
  const Scaffold* seen = nullptr;
  ScaffoldOptions source_options;
  source_options.init_op = NoOp("source_init");
  source_options.local_init_op = NoOp("source_local_init");
  source_options.init_feed_dict = {{Placeholder(DataType::kFloat), Tensor::Scalar(1.0f)}};
  source_options.local_init_feed_dict = {{Placeholder(DataType::kFloat), Tensor::Scalar(2.0f)}};
  source_options.init_fn = [&](const Scaffold& s, SessionInterface&) { seen = &s; };
  Scaffold source(source_options);

  ScaffoldOptions options;
  options.local_init_op = NoOp("own_local_init");
  options.copy_from_scaffold = &source;
  Scaffold copy(options);

  EXPECT_EQ(copy.init_op(), source_options.init_op);
  EXPECT_EQ(copy.local_init_op(), options.local_init_op);  // Given pieces win.
  EXPECT_EQ(copy.init_feed_dict().size(), 1u);
  EXPECT_EQ(copy.local_init_feed_dict().size(), 1u);
  Session session(&graph_);
  copy.BoundInitFn()(session);
  EXPECT_EQ(seen, &copy);
}

// ScaffoldOptions::graph builds in that graph even when another one is the default.
TEST(ScaffoldGraphTest, UsesTheGraphGivenNotTheDefault) {
  Graph model;
  Variable w;
  {
    DefaultGraphScope as_default(model);
    w = Variable(Tensor::Scalar(1.0f), "w");
  }
  Graph other;
  DefaultGraphScope other_default(other);
  ScaffoldOptions options;
  options.graph = &model;
  Scaffold scaffold(options);
  scaffold.Finalize();
  EXPECT_TRUE(model.finalized());
  EXPECT_FALSE(other.finalized());
  EXPECT_EQ(other.num_ops(), 0);
  EXPECT_EQ(scaffold.init_op()->graph(), &model);
  Session session(&model);
  session.Run(scaffold.init_op());
  EXPECT_EQ(session.Run(w.value()).scalar<float>(), 1.0f);
}

// Without ScaffoldOptions::graph, the graph of a piece given is used: a creator may call
// Finalize on a thread whose default graph is another one.
TEST(ScaffoldGraphTest, UsesTheGraphOfAPieceGiven) {
  Graph model;
  ScaffoldOptions options;
  {
    DefaultGraphScope as_default(model);
    Variable w(Tensor::Scalar(1.0f), "w");
    options.init_op = GlobalVariablesInitializer();
  }
  Scaffold scaffold(options);
  EXPECT_EQ(scaffold.graph(), &model);
  Graph other;
  DefaultGraphScope other_default(other);
  scaffold.Finalize();
  EXPECT_TRUE(model.finalized());
  EXPECT_EQ(other.num_ops(), 0);
  EXPECT_EQ(scaffold.ready_op()->op()->graph(), &model);
}

}  // namespace
}  // namespace mts
