// Tests of chief_session_creator.h and worker_session_creator.h, end to end on one graph:
// Scaffold::Finalize, then the SessionManager, behind the SessionCreator interface.
//
// What a worker can be tested for here is limited by where variable values live. Each
// Session keeps its own values, so a chief initialising *its* session does not make a worker
// session in the same process ready: the worker only ever sees what its own local init op
// set. So these tests check a worker whose model needs nothing but local variables (ready at
// once) and one whose global variables nobody initialises (it times out). A worker made
// ready by a chief in another process, through shared variables, is stage 07's test
// (session_manager_test.cc imitates it with a shared test op).
#include "src/02_chief_worker/session_creator.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::IsEmpty;
using ::testing::StartsWith;
using ::testing::Throws;

constexpr int64_t kSec = 1000000;

float ValueOf(SessionInterface& session, const Variable& v) {
  return session.Run(v.value()).scalar<float>();
}

// A model with a global variable w (3) and a local variable l (5), made the default graph.
class SessionCreatorTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable w_{Tensor::Scalar(3.0f), "w"};
  Variable l_ = LocalVariable(Tensor::Scalar(5.0f), "l");
  FakeClock clock_{FakeClock::Mode::kAutoAdvance};
};

// The chief with a default Scaffold initialises everything and freezes the graph.
TEST_F(SessionCreatorTest, ChiefWithDefaultScaffoldInitializes) {
  ChiefSessionCreator chief;
  std::unique_ptr<SessionInterface> session = chief.CreateSession();
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
  EXPECT_TRUE(graph_.finalized());
  EXPECT_EQ(chief.scaffold()->graph(), &graph_);
}

// The scaffold's init_fn runs with that scaffold, after its init_op.
TEST_F(SessionCreatorTest, ChiefRunsTheScaffoldsInitFn) {
  Operation* set_w = w_.Assign(Constant(4.0f)).op();
  const Scaffold* seen = nullptr;
  ScaffoldOptions options;
  options.init_fn = [&](const Scaffold& scaffold, SessionInterface& session) {
    seen = &scaffold;
    session.Run(set_w);
  };
  auto scaffold = std::make_shared<Scaffold>(options);
  ChiefSessionCreator chief(scaffold);
  auto session = chief.CreateSession();
  EXPECT_EQ(seen, scaffold.get());
  EXPECT_EQ(ValueOf(*session, w_), 4.0f);
}

// Every call makes a new, ready session; the scaffold is finalized again without harm.
TEST_F(SessionCreatorTest, ChiefMakesANewSessionEachCall) {
  ChiefSessionCreatorOptions options;
  options.clock = &clock_;
  ChiefSessionCreator chief(nullptr, options);
  auto first = chief.CreateSession();
  auto second = chief.CreateSession();
  EXPECT_NE(first.get(), second.get());
  EXPECT_EQ(ValueOf(*second, w_), 3.0f);
}

// A recreated chief resumes from the latest checkpoint in its directory.
TEST_F(SessionCreatorTest, ChiefRestoresFromItsCheckpointDir) {
  Operation* set_w = w_.Assign(Constant(9.0f)).op();
  const std::string dir = NewDir("chief_restores");

  auto scaffold = std::make_shared<Scaffold>();
  ChiefSessionCreatorOptions options;
  options.checkpoint_dir = dir;
  ChiefSessionCreator chief(scaffold, options);
  auto session = chief.CreateSession();  // Nothing to restore yet: initialised.
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
  session->Run(set_w);
  scaffold->saver()->Save(*session, JoinPath(dir, "model.ckpt"), 1);

  auto recreated = chief.CreateSession();
  EXPECT_EQ(ValueOf(*recreated, w_), 9.0f);
  EXPECT_EQ(ValueOf(*recreated, l_), 5.0f);
}

// A chief may restore from a checkpoint file named directly.
TEST_F(SessionCreatorTest, ChiefRestoresFromACheckpointFile) {
  Operation* set_w = w_.Assign(Constant(9.0f)).op();
  const std::string dir = NewDir("chief_restores_file");
  auto scaffold = std::make_shared<Scaffold>();
  auto session = ChiefSessionCreator(scaffold).CreateSession();
  session->Run(set_w);
  const std::string path = *scaffold->saver()->Save(*session, JoinPath(dir, "model.ckpt"), 1);

  ChiefSessionCreatorOptions options;
  options.checkpoint_filename_with_path = path;
  auto restored = ChiefSessionCreator(scaffold, options).CreateSession();
  EXPECT_EQ(ValueOf(*restored, w_), 9.0f);
}

// A worker whose model has only local variables is ready after its own local init, at once.
TEST(WorkerSessionCreatorTest, OnlyLocalVariablesAreReadyAtOnce) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable l = LocalVariable(Tensor::Scalar(5.0f), "l");
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  WorkerSessionCreator worker(nullptr, "", 1800, &clock);
  std::unique_ptr<SessionInterface> session = worker.CreateSession();
  EXPECT_EQ(ValueOf(*session, l), 5.0f);
  EXPECT_THAT(session->Run(*worker.scaffold()->ready_op()).ToVector<std::string>(), IsEmpty());
  EXPECT_EQ(clock.NowMicros(), 0);
  EXPECT_TRUE(graph.finalized());
}

// A worker never initialises global variables: with no chief to do it, it waits the default
// 1800 secs and gives up.
TEST_F(SessionCreatorTest, WorkerWithUninitializedGlobalsTimesOut) {
  WorkerSessionCreator worker(nullptr, "", 1800, &clock_);
  EXPECT_THAT([&] { worker.CreateSession(); },
              Throws<DeadlineExceededError>(
                  HasMessage(StartsWith("Session was not ready after waiting 1800 secs. "))));
  EXPECT_EQ(clock_.NowMicros(), 1800 * kSec);
}

// Both creators work through the interface the layers above hold.
TEST_F(SessionCreatorTest, CreatorsWorkThroughTheInterface) {
  auto scaffold = std::make_shared<Scaffold>();
  ChiefSessionCreatorOptions options;
  options.clock = &clock_;
  std::unique_ptr<SessionCreator> chief = std::make_unique<ChiefSessionCreator>(scaffold, options);
  std::unique_ptr<SessionCreator> worker =
      std::make_unique<WorkerSessionCreator>(scaffold, "", 60, &clock_);
  EXPECT_EQ(ValueOf(*chief->CreateSession(), w_), 3.0f);
  EXPECT_THROW(worker->CreateSession(), DeadlineExceededError);
}

}  // namespace
}  // namespace mts
