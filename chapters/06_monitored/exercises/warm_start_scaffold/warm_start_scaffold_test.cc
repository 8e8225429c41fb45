// Tests of the WarmStartScaffold exercise: model A is trained and saved; model B (the same
// w and b, and a new c) starts from A's w only, through a MonitoredSession.
#include "chapters/06_monitored/exercises/warm_start_scaffold/warm_start_scaffold.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/06_monitored/monitored_session.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/fault_injection.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// What model A left behind: its checkpoint and the values it holds.
struct TrainedModel {
  std::string checkpoint_path;
  std::vector<float> w;
  std::vector<float> b;
};

// Model A: y = x w + b, trained for 20 steps in its own graph with a raw Session, then
// saved with a Saver over all its variables (w, b, the global step).
TrainedModel TrainAndSaveModelA(const std::string& dir) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Output x = Constant(Tensor::Matrix<float>({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}));
  Output y = Constant(Tensor::Matrix<float>({{1}, {2}, {3}, {6}}));
  Variable w(Tensor::Zeros(DataType::kFloat, {3, 1}), "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
  Output loss = ReduceMean(Square(Sub(Add(MatMul(x, w), b), y)));
  Operation* train_op = GradientDescentOptimizer(0.1f).Minimize(loss, GetOrCreateGlobalStep());
  Saver saver;
  Session session(&graph);
  session.Run(GlobalVariablesInitializer());
  for (int i = 0; i < 20; ++i) session.Run({}, {}, {train_op});
  std::vector<Tensor> values = session.Run({w.value(), b.value()});
  return {*saver.Save(session, JoinPath(dir, "model.ckpt"), 20), values[0].ToVector<float>(),
          values[1].ToVector<float>()};
}

// Model B, in the default graph of the test: w and b as in A (b starts at 0.5), and c.
class WarmStartScaffoldTest : public ::testing::Test {
 protected:
  // Reads w, b and c through `session`.
  std::vector<std::vector<float>> Values(SessionInterface& session) {
    std::vector<Tensor> values = session.Run({w_.value(), b_.value(), c_.value()});
    return {values[0].ToVector<float>(), values[1].ToVector<float>(), values[2].ToVector<float>()};
  }

  TrainedModel a_ = TrainAndSaveModelA(NewDir("model_a"));
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable w_{Tensor::Zeros(DataType::kFloat, {3, 1}), "w"};
  Variable b_{Tensor::Vector<float>({0.5f}), "b"};
  Variable c_{Tensor::Vector<float>({7, 7}), "c"};
};

// The new session has A's w; b and c keep the values init_op gave them.
TEST_F(WarmStartScaffoldTest, RestoresOnlyTheGivenVariables) {
  ASSERT_NE(a_.w, (std::vector<float>{0, 0, 0}));  // A's training moved w.
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {w_});
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {});
  std::vector<std::vector<float>> values = Values(session);
  EXPECT_EQ(values[0], a_.w);
  EXPECT_EQ(values[1], (std::vector<float>{0.5f}));
  EXPECT_NE(values[1], a_.b);
  EXPECT_EQ(values[2], (std::vector<float>{7, 7}));
  session.Close();
}

// Several variables can be warm-started at once.
TEST_F(WarmStartScaffoldTest, RestoresEveryVariableListed) {
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {w_, b_});
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {});
  std::vector<std::vector<float>> values = Values(session);
  EXPECT_EQ(values[0], a_.w);
  EXPECT_EQ(values[1], a_.b);
  EXPECT_EQ(values[2], (std::vector<float>{7, 7}));
  session.Close();
}

// The warm-start Saver is not the scaffold's: the one that saves model B covers all of it.
TEST_F(WarmStartScaffoldTest, TheScaffoldsOwnSaverCoversEveryVariable) {
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {w_});
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {});
  ASSERT_NE(scaffold->saver(), nullptr);
  EXPECT_EQ(scaffold->saver()->variables().size(), 3u);
  session.Close();
}

// With no list, the trainable variables are warm-started, not everything the old checkpoint
// holds: model A's global step (20) stays behind, and model B starts at step 0.
TEST_F(WarmStartScaffoldTest, AnEmptyListMeansTheTrainableVariables) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Variable w(Tensor::Zeros(DataType::kFloat, {3, 1}), "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
  Variable step = GetOrCreateGlobalStep();
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {});
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {});
  EXPECT_EQ(session.Run(w.value()).ToVector<float>(), a_.w);
  EXPECT_EQ(session.Run(b.value()).ToVector<float>(), a_.b);
  EXPECT_EQ(GlobalStepValue(session, step.value()), 0);
  session.Close();
}

// A graph with nothing trainable has nothing to warm-start: said at once, not at the
// creation (where a Saver over no list would restore every variable, the step included).
TEST_F(WarmStartScaffoldTest, NothingTrainableToWarmStartIsAnError) {
  Graph graph;
  DefaultGraphScope scope(graph);
  GetOrCreateGlobalStep();
  EXPECT_THAT([&] { WarmStartScaffold(a_.checkpoint_path, {}); },
              ThrowsMessage<ValueError>(HasSubstr("nothing to warm-start")));
}

// The caller's options are kept: their saver is the scaffold's, and their init_fn runs
// after the warm start, so it sees A's w (and may build on it).
TEST_F(WarmStartScaffoldTest, TheCallersInitFnRunsAfterTheWarmStart) {
  auto own_saver = std::make_shared<Saver>();
  std::vector<float> seen;
  ScaffoldOptions options;
  options.saver = own_saver;
  options.init_fn = [&](const Scaffold&, SessionInterface& session) {
    seen = session.Run(w_.value()).ToVector<float>();
  };
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {w_}, options);
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {});
  EXPECT_EQ(seen, a_.w);
  EXPECT_EQ(scaffold->saver(), own_saver);
  EXPECT_EQ(Values(session)[0], a_.w);
  session.Close();
}

// Without a checkpoint of its own, a recovered session is initialised again, warm start
// included: w is A's again, whatever model B had done to it.
TEST_F(WarmStartScaffoldTest, ARecoveredSessionIsWarmStartedAgain) {
  Operation* bump_w = w_.AssignAdd(Constant(Tensor::Matrix<float>({{1}, {1}, {1}}))).op();
  auto scaffold = WarmStartScaffold(a_.checkpoint_path, {w_});
  auto counting =
      std::make_shared<CountingSessionCreator>(std::make_shared<ChiefSessionCreator>(scaffold));
  auto faulty = std::make_shared<FaultySessionCreator>(
      counting, FaultSchedule::Never(), FaultSchedule::AtCall(2, ErrorCode::kAborted),
      FaultTiming::kAfterRun);
  MonitoredSession session(faulty, {});
  session.Run({}, {}, {bump_w});
  session.Run({}, {}, {bump_w});  // Bumped twice, then preempted; the retry bumps once.
  EXPECT_EQ(counting->created(), 2);
  std::vector<float> expected = a_.w;
  for (float& v : expected) v += 1;
  EXPECT_EQ(Values(session)[0], expected);
  session.Close();
}

// A checkpoint that is not there fails the session's creation, naming the path.
TEST_F(WarmStartScaffoldTest, AMissingCheckpointIsAnErrorNamingThePath) {
  const std::string missing = JoinPath(NewDir("empty"), "model.ckpt-100");
  auto scaffold = WarmStartScaffold(missing, {w_});
  EXPECT_THAT(
      [&] { MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold), {}); },
      ThrowsMessage<ValueError>(HasSubstr(missing)));
}

// The Saver adds ops: once the graph is finalized it is too late to ask for a warm start.
TEST_F(WarmStartScaffoldTest, MustBeCalledWhileTheGraphIsBuilt) {
  graph_.Finalize();
  EXPECT_THROW(WarmStartScaffold(a_.checkpoint_path, {w_}), RuntimeError);
}

}  // namespace
}  // namespace mts
