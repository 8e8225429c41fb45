// Pitfalls of stage 02 that TF1 users reported, each reproduced as the book's appendix
// (chapters/appendix_pitfalls) tells it: what a user did, and what mts answers. The
// appendix cites each case by name; //docs:pitfalls_test checks that every name exists.
#include <filesystem>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

// A model with two global variables, w (3) and b (4), made the default graph.
class PitfallsTest : public ::testing::Test {
 protected:
  // A chief's session on `scaffold`, restoring from dir_ when it holds a checkpoint.
  std::unique_ptr<SessionInterface> Chief(const std::shared_ptr<Scaffold>& scaffold) {
    ChiefSessionCreatorOptions options;
    options.checkpoint_dir = dir_;
    return ChiefSessionCreator(scaffold, options).CreateSession();
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable w_{Tensor::Scalar(3.0f), "w"};
  Variable b_{Tensor::Scalar(4.0f), "b"};
  std::string dir_ = NewDir("run");
};

// #12859: state that a checkpoint does not hold (TF: an iterator; mts: a local variable),
// initialised by init_op. The first run works; once a checkpoint exists, the chief restores
// and skips init_op, and the state stays unset. mts's error says why and where it belongs.
TEST_F(PitfallsTest, StateInitialisedOnlyByInitOpIsUnsetAfterARestore) {
  Variable position = LocalVariable(Tensor::Scalar(int64_t{0}), "position");
  ScaffoldOptions options;
  options.init_op = Group({GlobalVariablesInitializer(), position.initializer()});
  options.local_init_op = NoOp("my_local_init");  // The user's own, without `position`.
  auto scaffold = std::make_shared<Scaffold>(options);
  {
    std::unique_ptr<SessionInterface> first = Chief(scaffold);  // Nothing to restore: init_op.
    scaffold->saver()->Save(*first, JoinPath(dir_, "model.ckpt"), 1);
  }
  EXPECT_THAT([&] { Chief(scaffold); },
              ThrowsMessage<RuntimeError>(
                  AllOf(StartsWith("Init operations did not make model ready."),
                        HasSubstr("Variables not initialized: position"),
                        HasSubstr("init_op and init_fn did not run"), HasSubstr("local_init_op"))));
}

// ... and in local_init_op, which every session runs, restored or not, it is set each time.
TEST_F(PitfallsTest, StateEverySessionNeedsBelongsInLocalInitOp) {
  Variable position = LocalVariable(Tensor::Scalar(int64_t{0}), "position");
  ScaffoldOptions options;
  options.local_init_op = Group({position.initializer()}, "my_local_init");
  auto scaffold = std::make_shared<Scaffold>(options);
  {
    std::unique_ptr<SessionInterface> first = Chief(scaffold);
    scaffold->saver()->Save(*first, JoinPath(dir_, "model.ckpt"), 1);
  }
  std::unique_ptr<SessionInterface> restored = Chief(scaffold);
  EXPECT_EQ(restored->Run(position.value()).scalar<int64_t>(), 0);
}

// #14391, #17969: a Scaffold whose Saver covers w only. Restoring sets w and skips init_op,
// so b is never set: the chief fails its ready check (here the one before local_init_op,
// since b is global), and a worker would wait on it.
TEST_F(PitfallsTest, ASaverOverPartOfTheModelLeavesTheRestUnsetAfterARestore) {
  ScaffoldOptions options;
  options.saver = std::make_shared<Saver>(std::vector<Variable>{w_});
  auto scaffold = std::make_shared<Scaffold>(options);
  {
    std::unique_ptr<SessionInterface> first = Chief(scaffold);
    scaffold->saver()->Save(*first, JoinPath(dir_, "model.ckpt"), 1);
  }
  EXPECT_THAT([&] { Chief(scaffold); },
              ThrowsMessage<RuntimeError>(
                  AllOf(StartsWith("Init operations did not make model ready"),
                        HasSubstr("Variables not initialized: b"), HasSubstr("was restored from"),
                        HasSubstr("the Scaffold's saver"))));
}

// benchmarks#145, TensorFlowOnSpark#206: a worker whose model no chief initialises (started
// first, or its variables on the worker, where no chief reaches them) waits, saying for
// what, until max_wait_secs, then gives up naming what to check.
TEST_F(PitfallsTest, AWorkerNoChiefInitialisesWaitsUpToMaxWaitSecs) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  WorkerSessionCreator worker(nullptr, "", /*max_wait_secs=*/90, &clock);
  ScopedLogCapture log;
  EXPECT_THAT([&] { worker.CreateSession(); },
              ThrowsMessage<DeadlineExceededError>(
                  AllOf(HasSubstr("Session was not ready after waiting 90 secs"),
                        HasSubstr("Check that the chief is running"))));
  EXPECT_TRUE(log.Contains("Waiting for model to be ready."));
  EXPECT_TRUE(log.Contains("Worker still waiting for 2 uninitialized variables: w, b"));
}

// #9146, #25795: the state file names checkpoints by absolute path (as TensorFlow's, unless
// save_relative_paths); after the directory is moved those paths lead nowhere. mts resumes
// from the checkpoint of that name in the moved directory.
TEST_F(PitfallsTest, AMovedCheckpointDirectoryResumes) {
  Operation* set_w = w_.Assign(Constant(7.0f)).op();
  auto scaffold = std::make_shared<Scaffold>();
  {
    std::unique_ptr<SessionInterface> first = Chief(scaffold);
    first->Run(set_w);
    scaffold->saver()->Save(*first, JoinPath(dir_, "model.ckpt"), 1);
  }
  EXPECT_THAT(GetCheckpointState(dir_)->model_checkpoint_path, StartsWith(dir_));
  const std::string moved = dir_ + "_moved";
  std::filesystem::rename(dir_, moved);
  dir_ = moved;
  std::unique_ptr<SessionInterface> resumed = Chief(scaffold);
  EXPECT_EQ(resumed->Run(w_.value()).scalar<float>(), 7.0f);
}

}  // namespace
}  // namespace mts
