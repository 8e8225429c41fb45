// MonitoredTrainingSession: TensorFlow's defaults and the USE_DEFAULT rules for the two
// frequency pairs, the default hooks and their order, chief versus worker, summaries in
// the checkpoint directory, and a second session resuming from the first one's checkpoint.
#include "src/06_monitored/monitored_training_session.h"

#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/step_counter_hook.h"
#include "src/03_hooked/hooks/summary_saver_hook.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/failing_file_system.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

class NamedHook : public SessionRunHook {};

// Records the step of every checkpoint it is told of.
class RecordingListener : public CheckpointSaverListener {
 public:
  bool AfterSave(SessionInterface&, int64_t step) override {
    steps.push_back(step);
    return false;
  }
  std::vector<int64_t> steps;
};

// The class name of each hook, in order.
std::vector<std::string> Kinds(const MonitoredSession::Hooks& hooks) {
  std::vector<std::string> kinds;
  for (const auto& hook : hooks) {
    const SessionRunHook& h = *hook;
    if (typeid(h) == typeid(StepCounterHook)) {
      kinds.push_back("StepCounter");
    } else if (typeid(h) == typeid(SummarySaverHook)) {
      kinds.push_back("SummarySaver");
    } else if (typeid(h) == typeid(CheckpointSaverHook)) {
      kinds.push_back("CheckpointSaver");
    } else if (typeid(h) == typeid(NamedHook)) {
      kinds.push_back("user");
    } else {
      kinds.push_back("other");
    }
  }
  return kinds;
}

class MonitoredTrainingSessionTest : public ::testing::Test {
 protected:
  MonitoredTrainingSessionTest() {
    options_.stop_on_signals = false;  // The order tests list only TensorFlow's hooks.
    options_.chief_only_hooks = {chief_only_};
    options_.hooks = {user_};
  }
  ~MonitoredTrainingSessionTest() override { SummaryWriterCache::Clear(); }

  MonitoredSession::Hooks DefaultHooks() {
    return MonitoredTrainingSessionHooks(options_, std::make_shared<Scaffold>());
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
  std::shared_ptr<NamedHook> chief_only_ = std::make_shared<NamedHook>();
  std::shared_ptr<NamedHook> user_ = std::make_shared<NamedHook>();
  MonitoredTrainingSessionOptions options_;
};

// §14: the chief's hooks in TensorFlow's order, each default hook present by default when
// checkpoint_dir is set (summary_dir defaults to it).
TEST_F(MonitoredTrainingSessionTest, ChiefGetsDefaultHooksInOrder) {
  options_.checkpoint_dir = NewDir("order");
  MonitoredSession::Hooks hooks = DefaultHooks();
  EXPECT_EQ(Kinds(hooks), (std::vector<std::string>{"user", "StepCounter", "SummarySaver",
                                                     "CheckpointSaver", "user"}));
  EXPECT_EQ(hooks.front(), chief_only_);
  EXPECT_EQ(hooks.back(), user_);
}

// Without directories there is nowhere to write: only the caller's hooks.
TEST_F(MonitoredTrainingSessionTest, NoDirectoriesNoDefaultHooks) {
  EXPECT_EQ(Kinds(DefaultHooks()), (std::vector<std::string>{"user", "user"}));
}

// summary_dir alone gives the step counter and summaries, not checkpoints.
TEST_F(MonitoredTrainingSessionTest, SummaryDirAloneGivesNoCheckpoints) {
  options_.summary_dir = NewDir("summaries");
  EXPECT_EQ(Kinds(DefaultHooks()),
            (std::vector<std::string>{"user", "StepCounter", "SummarySaver", "user"}));
}

// §18.17: a non-chief gets no default hooks, and its chief_only_hooks are ignored.
TEST_F(MonitoredTrainingSessionTest, WorkerGetsOnlyItsHooks) {
  options_.is_chief = false;
  options_.checkpoint_dir = NewDir("worker");
  MonitoredSession::Hooks hooks = DefaultHooks();
  ASSERT_EQ(hooks.size(), 1u);
  EXPECT_EQ(hooks[0], user_);
}

// A value <= 0 turns a hook off; log_step_count_steps <= 0 turns the step counter off.
TEST_F(MonitoredTrainingSessionTest, NonPositiveFrequenciesTurnHooksOff) {
  options_.checkpoint_dir = NewDir("off");
  options_.save_checkpoint_secs = 0;
  options_.save_summaries_steps = -1;
  options_.log_step_count_steps = 0;
  EXPECT_EQ(Kinds(DefaultHooks()), (std::vector<std::string>{"user", "user"}));
}

// §18.17: both frequencies of a pair raise ValueError, for checkpoints and summaries.
TEST_F(MonitoredTrainingSessionTest, BothSecsAndStepsRaise) {
  options_.checkpoint_dir = NewDir("both");
  options_.save_checkpoint_secs = 60;
  options_.save_checkpoint_steps = 10;
  EXPECT_THROW(DefaultHooks(), ValueError);
  options_.save_checkpoint_secs.reset();
  options_.save_summaries_steps = 10;
  options_.save_summaries_secs = 5;
  EXPECT_THROW(MonitoredTrainingSession(options_), ValueError);
}

// Setting the steps of a pair turns its seconds off: a checkpoint every 5 steps (plus the
// one at creation and the final one), whatever the clock says.
TEST_F(MonitoredTrainingSessionTest, CheckpointEveryNSteps) {
  options_.checkpoint_dir = NewDir("steps");
  options_.save_checkpoint_steps = 5;
  options_.hooks.clear();
  options_.chief_only_hooks.clear();
  auto session = MonitoredTrainingSession(options_);
  for (int i = 0; i < 12; ++i) session->Run(train_);
  session->Close();
  auto state = GetCheckpointState(options_.checkpoint_dir);
  ASSERT_TRUE(state.has_value());
  std::vector<std::string> names;
  for (const auto& path : state->all_model_checkpoint_paths) {
    names.push_back(path.substr(path.find_last_of('/') + 1));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"model.ckpt-0", "model.ckpt-5", "model.ckpt-10",
                                             "model.ckpt-12"}));
}

// The chief writes summaries (the step counter's) into checkpoint_dir, and a second
// session on the same directory resumes from the first one's final checkpoint.
TEST_F(MonitoredTrainingSessionTest, ChiefWritesEventsAndASecondSessionResumes) {
  options_.checkpoint_dir = NewDir("resume");
  options_.log_step_count_steps = 2;
  options_.hooks.clear();
  options_.chief_only_hooks.clear();
  {
    auto session = MonitoredTrainingSession(options_);
    for (int i = 0; i < 5; ++i) session->Run(train_);
    session->Close();
  }
  bool has_events = false;
  for (const std::string& name : DefaultFileSystem()->ListDirectory(options_.checkpoint_dir)) {
    has_events |= name.find("tfevents") != std::string::npos;
  }
  EXPECT_TRUE(has_events);
  auto session = MonitoredTrainingSession(options_);
  EXPECT_EQ(session->Run(train_).scalar<int64_t>(), 6);
  session->Close();
}

// checkpoint_saver_listeners hear of every save of the default hook, the final one included.
TEST_F(MonitoredTrainingSessionTest, ListenersHearEverySaveOfTheDefaultHook) {
  options_.checkpoint_dir = NewDir("listeners");
  options_.save_checkpoint_steps = 5;
  auto listener = std::make_shared<RecordingListener>();
  options_.checkpoint_saver_listeners = {listener};
  auto session = MonitoredTrainingSession(options_);
  for (int i = 0; i < 7; ++i) session->Run(train_);
  session->Close();
  EXPECT_EQ(listener->steps, (std::vector<int64_t>{0, 5, 7}));
}

// A waiting worker checks again every recovery_wait_secs (TensorFlow's 30 s by default):
// 90 seconds of waiting are 9 checks at 10 s, 3 at the default.
TEST_F(MonitoredTrainingSessionTest, WorkerChecksForTheModelEveryRecoveryWaitSecs) {
  options_.is_chief = false;
  options_.max_wait_secs = 90;
  for (const auto& [recovery_wait_secs, checks] : {std::pair<double, size_t>{10, 9}, {30, 3}}) {
    FakeClock clock(FakeClock::Mode::kAutoAdvance);
    options_.clock = &clock;
    options_.recovery_wait_secs = recovery_wait_secs;
    ScopedLogCapture log;
    EXPECT_THROW(MonitoredTrainingSession(options_), DeadlineExceededError);
    size_t waits = 0;
    for (const std::string& line : log.lines()) {
      waits += line.find("Worker still waiting") != std::string::npos;
    }
    EXPECT_EQ(waits, checks) << "recovery_wait_secs " << recovery_wait_secs;
  }
}

// A hook whose End raises.
class FailingEndHook : public SessionRunHook {
 public:
  void End(SessionInterface&) override { throw InternalError("the hook failed in End"); }
};

// A full disk under the event file costs events, not the run: the writer logs the failure
// and carries on, as TensorFlow's does, so Close raises nothing and the CheckpointSaverHook
// writes the final checkpoint (issue 32, item 11: it used to raise after it, exit 1).
TEST_F(MonitoredTrainingSessionTest, AFullDiskForEventsDoesNotCostTheFinalCheckpoint) {
  options_.checkpoint_dir = NewDir("full_disk");
  options_.hooks.clear();
  options_.chief_only_hooks.clear();
  FailingWritesFileSystem disk("tfevents", ENOSPC);
  FileWriterOptions on_disk;
  on_disk.fs = &disk;
  // The hooks' writer: the cache hands them this one, over the full disk.
  SummaryWriterCache::Insert(std::make_shared<FileWriter>(options_.checkpoint_dir, on_disk));
  ScopedLogCapture log;
  auto session = MonitoredTrainingSession(options_);
  for (int i = 0; i < 30; ++i) session->Run(train_);
  EXPECT_NO_THROW(session->Close());
  EXPECT_TRUE(log.Contains("No space left on device"));
  EXPECT_EQ(LatestCheckpoint(options_.checkpoint_dir),
            JoinPath(options_.checkpoint_dir, "model.ckpt-30"));
  // The cached writer writes through `disk`: close it before `disk` goes out of scope, not
  // in the fixture's destructor after.
  SummaryWriterCache::Clear();
}

// A chief-only hook comes before the default hooks; its failing End does not stop the
// CheckpointSaverHook's End from writing the final checkpoint.
TEST_F(MonitoredTrainingSessionTest, AChiefOnlyHookFailingInEndDoesNotCostTheFinalCheckpoint) {
  options_.checkpoint_dir = NewDir("failing_end");
  options_.hooks.clear();
  options_.chief_only_hooks = {std::make_shared<FailingEndHook>()};
  auto session = MonitoredTrainingSession(options_);
  for (int i = 0; i < 7; ++i) session->Run(train_);
  EXPECT_THROW(session->Close(), InternalError);
  EXPECT_EQ(LatestCheckpoint(options_.checkpoint_dir),
            JoinPath(options_.checkpoint_dir, "model.ckpt-7"));
}

// Training in a copy of a checkpoint directory (whose state file holds the original's
// absolute paths) restores from the copy and rotates only the copy's files: the original
// keeps every checkpoint and still resumes. TensorFlow deletes the original's files here.
TEST_F(MonitoredTrainingSessionTest, TrainingInACopiedDirectoryLeavesTheOriginalWhole) {
  const std::string original = NewDir("original");
  options_.checkpoint_dir = original;
  options_.save_checkpoint_steps = 1;
  options_.hooks.clear();
  options_.chief_only_hooks.clear();
  {
    auto session = MonitoredTrainingSession(options_);
    for (int i = 0; i < 4; ++i) session->Run(train_);
    session->Close();
  }
  SummaryWriterCache::Clear();
  const std::vector<std::string> original_files = DefaultFileSystem()->ListDirectory(original);
  const std::string copy = NewDir("copy");
  std::filesystem::copy(original, copy, std::filesystem::copy_options::recursive |
                                            std::filesystem::copy_options::overwrite_existing);
  options_.checkpoint_dir = copy;
  {
    auto session = MonitoredTrainingSession(options_);
    EXPECT_EQ(session->Run(train_).scalar<int64_t>(), 5);  // Resumed from the copy.
    for (int i = 0; i < 9; ++i) session->Run(train_);      // Rotates many times.
    session->Close();
  }
  EXPECT_EQ(DefaultFileSystem()->ListDirectory(original), original_files);
  const std::optional<CheckpointState> copy_state = GetCheckpointState(copy);
  ASSERT_TRUE(copy_state);
  for (const std::string& path : copy_state->all_model_checkpoint_paths) {
    EXPECT_TRUE(IsInDirectory(path, copy)) << path;
  }
  options_.checkpoint_dir = original;
  auto session = MonitoredTrainingSession(options_);
  EXPECT_EQ(session->Run(train_).scalar<int64_t>(), 5);  // The original resumes where it was.
  session->Close();
}

// A worker waits for the chief's model; alone, it gives up after max_wait_secs.
TEST_F(MonitoredTrainingSessionTest, WorkerWithoutAChiefTimesOut) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  options_.is_chief = false;
  options_.max_wait_secs = 90;
  options_.clock = &clock;
  EXPECT_THROW(MonitoredTrainingSession(options_), DeadlineExceededError);
}

}  // namespace
}  // namespace mts
