// Tests of checkpoint_saver_hook.h and checkpoint_saver_listener.h: saves at creation,
// every N steps or seconds (FakeClock) with the two-stage check, once more at End; the
// listener calls around each save and their stop request; the Saver lookup; the CHECKPOINT
// events in checkpoint_dir's event file.
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kSecond = 1000000;

// Writes every call it gets into a shared journal, noting whether the checkpoint file is on
// disk at that moment; AfterSave asks to stop from step `stop_from` on.
class JournalListener : public CheckpointSaverListener {
 public:
  JournalListener(std::string name, std::string save_path, std::vector<std::string>* journal,
                  int64_t stop_from = INT64_MAX)
      : name_(std::move(name)),
        save_path_(std::move(save_path)),
        journal_(journal),
        stop_from_(stop_from) {}

  void Begin() override { Note("begin"); }
  void BeforeSave(SessionInterface&, int64_t step) override { Note("before_save", step); }
  bool AfterSave(SessionInterface&, int64_t step) override {
    Note("after_save", step);
    return step >= stop_from_;
  }
  void End(SessionInterface&, int64_t step) override { Note("end", step); }

 private:
  void Note(const std::string& what, std::optional<int64_t> step = std::nullopt) {
    std::string line = name_ + " " + what;
    if (step) {
      const bool on_disk =
          DefaultFileSystem()->Exists(save_path_ + "-" + std::to_string(*step));
      line += " " + std::to_string(*step) + (on_disk ? " (on disk)" : "");
    }
    journal_->push_back(line);
  }

  std::string name_;
  std::string save_path_;
  std::vector<std::string>* journal_;
  int64_t stop_from_;
};

// A harness with a Saver, a fresh checkpoint directory per test, and helpers to see what
// was saved. The shared writers are closed after each test.
class CheckpointSaverHookTest : public ::testing::Test {
 protected:
  CheckpointSaverHookTest() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("ckpt_") + info->name());
    saver_ = GetSaverOrDefault();
  }
  ~CheckpointSaverHookTest() override { SummaryWriterCache::Clear(); }

  std::string Prefix() const { return JoinPath(dir_, "model.ckpt"); }

  // The steps of the checkpoint saves, from the "before_save" lines of a journal.
  static std::vector<int64_t> SavedSteps(const std::vector<std::string>& journal) {
    std::vector<int64_t> steps;
    for (const std::string& line : journal) {
      const size_t at = line.find("before_save ");
      if (at != std::string::npos) steps.push_back(std::stoll(line.substr(at + 12)));
    }
    return steps;
  }

  // A hook saving every `save_steps` steps, journaling into journal_.
  std::shared_ptr<CheckpointSaverHook> StepsHook(int64_t save_steps) {
    CheckpointSaverHookOptions options;
    options.save_steps = save_steps;
    options.listeners = {std::make_shared<JournalListener>("L", Prefix(), &journal_)};
    return std::make_shared<CheckpointSaverHook>(dir_, options);
  }

  HookTestHarness harness_;
  FakeClock clock_;
  std::string dir_;
  std::shared_ptr<Saver> saver_;
  std::vector<std::string> journal_;
};

// The ValueErrors of the constructor: saver with scaffold, and the timer's.
TEST_F(CheckpointSaverHookTest, RefusesInvalidSettings) {
  CheckpointSaverHookOptions both_savers;
  both_savers.save_steps = 1;
  both_savers.saver = saver_;
  both_savers.scaffold = std::make_shared<Scaffold>();
  EXPECT_THAT([&] { CheckpointSaverHook(dir_, both_savers); },
              ThrowsMessage<ValueError>(StrEq("You cannot provide both saver and scaffold.")));
  EXPECT_THROW(CheckpointSaverHook(dir_, CheckpointSaverHookOptions{}), ValueError);
  CheckpointSaverHookOptions both_frequencies;
  both_frequencies.save_secs = 10.0;
  both_frequencies.save_steps = 5;
  EXPECT_THROW(CheckpointSaverHook(dir_, both_frequencies), ValueError);
}

// Without a global step, Begin refuses, naming the hook.
TEST(CheckpointSaverHookBeginTest, NeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  CheckpointSaverHook hook(JoinPath(::testing::TempDir(), "no_step"), options);
  EXPECT_THAT([&] { hook.Begin(); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Global step should be created to use CheckpointSaverHook.")));
  SummaryWriterCache::Clear();
}

// save_steps=2 over five steps from 0: at creation (0), at 2 and 4, and at End (5, not yet
// saved). The state file names the last; all four files are there (max_to_keep is 5).
TEST_F(CheckpointSaverHookTest, SavesAtCreationEveryNStepsAndAtEnd) {
  harness_.Start({StepsHook(2)});
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0}));
  for (int i = 0; i < 5; ++i) harness_.Step();
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 2, 4}));
  harness_.End();
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 2, 4, 5}));
  EXPECT_EQ(LatestCheckpoint(dir_), Prefix() + "-5");
  for (const char* step : {"0", "2", "4", "5"}) {
    EXPECT_TRUE(DefaultFileSystem()->Exists(Prefix() + "-" + step)) << step;
  }
}

// End does not save again when the last step was just saved.
TEST_F(CheckpointSaverHookTest, EndSavesOnlyIfTheLastStepWasNotSaved) {
  harness_.Start({StepsHook(2)});
  for (int i = 0; i < 4; ++i) harness_.Step();
  harness_.End();
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 2, 4}));
}

// save_secs=10 on a FakeClock: creation at t=0 saves and starts the interval; the first run
// ending at or after t=10 saves, and the interval restarts there.
TEST_F(CheckpointSaverHookTest, SavesEveryNSeconds) {
  CheckpointSaverHookOptions options;
  options.save_secs = 10.0;
  options.listeners = {std::make_shared<JournalListener>("L", Prefix(), &journal_)};
  options.clock = &clock_;
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  clock_.Advance(9 * kSecond);
  harness_.Step();  // t=9, step 1: not yet.
  clock_.Advance(1 * kSecond);
  harness_.Step();  // t=10, step 2: saves.
  harness_.Step();  // t=10, step 3: the interval restarted.
  clock_.Advance(15 * kSecond);
  harness_.Step();  // t=25, step 4: saves.
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 2, 4}));
}

// Each listener is told in order: Begin at the hook's Begin; around every save BeforeSave
// (file not yet there) and AfterSave (file on disk), listener by listener; End with the
// final step after the final save.
TEST_F(CheckpointSaverHookTest, ListenersAreCalledAroundEachSaveInOrder) {
  CheckpointSaverHookOptions options;
  options.save_steps = 2;
  options.listeners = {std::make_shared<JournalListener>("A", Prefix(), &journal_),
                       std::make_shared<JournalListener>("B", Prefix(), &journal_)};
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  harness_.Step();
  harness_.End();
  EXPECT_THAT(journal_,
              ElementsAre("A begin", "B begin",                                     //
                          "A before_save 0", "B before_save 0",                     //
                          "A after_save 0 (on disk)", "B after_save 0 (on disk)",   //
                          "A before_save 1", "B before_save 1",                     //
                          "A after_save 1 (on disk)", "B after_save 1 (on disk)",   //
                          "A end 1 (on disk)", "B end 1 (on disk)"));
}

// A listener whose AfterSave returns true stops training after the run that saved; the
// other listeners still hear of that save. At creation there is no run to stop.
TEST_F(CheckpointSaverHookTest, AfterSaveReturningTrueRequestsAStop) {
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.listeners = {
      std::make_shared<JournalListener>("A", Prefix(), &journal_, /*stop_from=*/0),
      std::make_shared<JournalListener>("B", Prefix(), &journal_)};
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  EXPECT_FALSE(harness_.hooked().ShouldStop());  // Asked at step 0: ignored.
  EXPECT_EQ(harness_.RunUntilStop(), 1);
  EXPECT_EQ(journal_.back(), "B after_save 1 (on disk)");
}

// The two-stage check: a run that does not train looks due from its stale step, but the real
// step is the one already saved, so nothing is saved twice.
TEST_F(CheckpointSaverHookTest, ARunThatDidNotTrainDoesNotSaveAgain) {
  harness_.Start({StepsHook(1)});
  harness_.hooked().Run(harness_.step().value());  // Stale 0 says "1 is due"; real step 0.
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0}));
  harness_.Step();
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 1}));
}

// A recovery creates a new session: it is saved at once, at the step it starts at.
TEST_F(CheckpointSaverHookTest, SavesAgainWhenASessionIsRecreated) {
  harness_.Start({StepsHook(100)});
  harness_.Step();
  harness_.Recreate(/*initial_step=*/7);  // As if restored at step 7.
  EXPECT_EQ(SavedSteps(journal_), (std::vector<int64_t>{0, 7}));
}

// Every save adds SessionLog{CHECKPOINT, checkpoint_path: the prefix without the step} at
// the step to checkpoint_dir's event file, through the shared writer; End flushes it, so the
// final save's event is on disk when End returns.
TEST_F(CheckpointSaverHookTest, WritesACheckpointSessionLogPerSave) {
  harness_.Start({StepsHook(2)});
  for (int i = 0; i < 3; ++i) harness_.Step();
  harness_.End();
  std::vector<int64_t> steps;
  for (const tensorflow::Event& event : ReadEventDirectory(dir_)) {
    if (!event.has_session_log()) continue;
    EXPECT_EQ(event.session_log().status(), tensorflow::SessionLog::CHECKPOINT);
    EXPECT_EQ(event.session_log().checkpoint_path(), Prefix());
    steps.push_back(event.step());
  }
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 2, 3}));
}

// The log line of each save, as TensorFlow writes it.
TEST_F(CheckpointSaverHookTest, LogsEachSave) {
  ScopedLogCapture capture;
  harness_.Start({StepsHook(2)});
  EXPECT_THAT(LoggedMessages(capture),
              ::testing::Contains("Saving checkpoints for 0 into " + Prefix() + "."));
}

// checkpoint_basename names the files; the given Saver is used.
TEST_F(CheckpointSaverHookTest, UsesTheGivenSaverAndBasename) {
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.saver = saver_;
  options.checkpoint_basename = "net";
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  harness_.Step();
  EXPECT_EQ(LatestCheckpoint(dir_), JoinPath(dir_, "net-1"));
  EXPECT_EQ(saver_->last_checkpoints(),
            (std::vector<std::string>{JoinPath(dir_, "net-0"), JoinPath(dir_, "net-1")}));
}

// A Scaffold's Saver is used when one is given instead of a Saver.
TEST_F(CheckpointSaverHookTest, UsesTheScaffoldsSaver) {
  ScaffoldOptions options;
  options.saver = std::make_shared<Saver>(std::vector<Variable>{harness_.step()});
  auto scaffold = std::make_shared<Scaffold>(options);
  CheckpointSaverHookOptions saving;
  saving.save_steps = 1;
  saving.scaffold = scaffold;
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, saving);
  harness_.Start({hook});
  EXPECT_EQ(options.saver->last_checkpoints(), (std::vector<std::string>{Prefix() + "-0"}));
  EXPECT_TRUE(saver_->last_checkpoints().empty());
}

// Without a Saver or Scaffold, the graph's savers collection must hold exactly one.
TEST(CheckpointSaverHookLookupTest, NeedsExactlyOneSaverInTheGraph) {
  const std::string dir = JoinPath(::testing::TempDir(), "ckpt_lookup");
  CheckpointSaverHookOptions every_step;  // No saver, no scaffold: the graph's.
  every_step.save_steps = 1;
  {
    HookTestHarness harness;
    auto hook = std::make_shared<CheckpointSaverHook>(dir, every_step);
    EXPECT_THAT([&] { harness.Start({hook}); },
                ThrowsMessage<RuntimeError>(StartsWith("No items in collection savers.")));
  }
  {
    HookTestHarness harness;
    harness.graph().AddToCollection(GraphKeys::kSavers, std::make_shared<Saver>());
    harness.graph().AddToCollection(GraphKeys::kSavers, std::make_shared<Saver>());
    auto hook = std::make_shared<CheckpointSaverHook>(dir, every_step);
    EXPECT_THAT(
        [&] { harness.Start({hook}); },
        ThrowsMessage<RuntimeError>(StartsWith("More than one item in collection savers.")));
  }
  SummaryWriterCache::Clear();
}

}  // namespace
}  // namespace mts
