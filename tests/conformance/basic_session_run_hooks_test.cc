// TensorFlow's basic_session_run_hooks_test.py, case by case: each TEST is named
// <TF test class>.<TF test method> and checks what that method checks, against mts's hooks.
// Cases TensorFlow's file has and this one lacks are listed, with the reason, in cases.txt.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/feed_fn_hook.h"
#include "src/03_hooked/hooks/final_ops_hook.h"
#include "src/03_hooked/hooks/global_step_waiter_hook.h"
#include "src/03_hooked/hooks/logging_tensor_hook.h"
#include "src/03_hooked/hooks/profiler_hook.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/hooks/step_counter_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/hooks/summary_saver_hook.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/06_monitored/monitored_session.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/conformance/conformance_support.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::ThrowsMessage;

constexpr int64_t kSec = 1000000;

// ---- SecondOrStepTimerTest ------------------------------------------------------------------

TEST(SecondOrStepTimerTest, test_raise_in_both_secs_and_steps) {
  EXPECT_THROW(SecondOrStepTimer(2.0, 10), ValueError);
}

TEST(SecondOrStepTimerTest, test_raise_in_none_secs_and_steps) {
  EXPECT_THROW(SecondOrStepTimer(std::nullopt, std::nullopt), ValueError);
}

TEST(SecondOrStepTimerTest, test_every_secs) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySecs(1.0, &clock);
  EXPECT_TRUE(timer.ShouldTriggerForStep(1));
  timer.UpdateLastTriggeredStep(1);
  EXPECT_FALSE(timer.ShouldTriggerForStep(1));
  EXPECT_FALSE(timer.ShouldTriggerForStep(2));
  clock.Advance(kSec);
  EXPECT_FALSE(timer.ShouldTriggerForStep(1));
  EXPECT_TRUE(timer.ShouldTriggerForStep(2));
}

TEST(SecondOrStepTimerTest, test_every_steps) {
  SecondOrStepTimer timer = SecondOrStepTimer::EverySteps(3);
  EXPECT_TRUE(timer.ShouldTriggerForStep(1));
  timer.UpdateLastTriggeredStep(1);
  EXPECT_FALSE(timer.ShouldTriggerForStep(1));
  EXPECT_FALSE(timer.ShouldTriggerForStep(2));
  EXPECT_FALSE(timer.ShouldTriggerForStep(3));
  EXPECT_TRUE(timer.ShouldTriggerForStep(4));
}

TEST(SecondOrStepTimerTest, test_update_last_triggered_step) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySteps(1, &clock);
  SecondOrStepTimer::Elapsed first = timer.UpdateLastTriggeredStep(1);
  EXPECT_EQ(first.secs, std::nullopt);
  EXPECT_EQ(first.steps, std::nullopt);
  clock.Advance(10);
  SecondOrStepTimer::Elapsed second = timer.UpdateLastTriggeredStep(5);
  EXPECT_LT(0, *second.secs);
  EXPECT_EQ(second.steps, 4);
  clock.Advance(10);
  SecondOrStepTimer::Elapsed third = timer.UpdateLastTriggeredStep(7);
  EXPECT_LT(0, *third.secs);
  EXPECT_EQ(third.steps, 2);
}

// ---- StopAtStepTest -------------------------------------------------------------------------

// A graph with a global step, a no-op, an op that sets the step, and a raw session with the
// step initialised: what TensorFlow's hook tests build by hand around _HookedSession.
class HookedGraph : public ::testing::Test {
 protected:
  void SetStep(int64_t step) { session_->Run(set_step_, {{new_step_, Tensor::Scalar(step)}}); }
  void StartSession() {
    session_ = std::make_unique<Session>(&graph_);
    session_->Run(GlobalVariablesInitializer());
  }
  // A HookedSession over the raw session (which it does not own).
  std::unique_ptr<HookedSession> Hooked(std::vector<std::shared_ptr<SessionRunHook>> hooks) {
    return std::make_unique<HookedSession>(Borrow(*session_), std::move(hooks));
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Operation* no_op_ = NoOp("no_op");
  Output new_step_ = Placeholder(DataType::kInt64, TensorShape{}, "new_step");
  Operation* set_step_ = global_step_.Assign(new_step_).op();
  std::unique_ptr<Session> session_;
};

class StopAtStepTest : public HookedGraph {};

TEST_F(StopAtStepTest, test_raise_in_both_last_step_and_num_steps) {
  EXPECT_THROW(StopAtStepHook(10, 20), ValueError);
}

TEST_F(StopAtStepTest, test_stop_based_on_last_step) {
  auto hook = StopAtStepHook::AtLastStep(10);
  hook->Begin();
  StartSession();
  auto hooked = Hooked({hook});
  SetStep(5);
  hook->AfterCreateSession(*session_, nullptr);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(9);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(10);
  hooked->Run(no_op_);
  EXPECT_TRUE(hooked->ShouldStop());
  SetStep(11);
  hooked = Hooked({hook});  // TensorFlow resets _should_stop; a fresh wrapper does that here.
  hooked->Run(no_op_);
  EXPECT_TRUE(hooked->ShouldStop());
}

TEST_F(StopAtStepTest, test_stop_based_on_num_step) {
  auto hook = StopAtStepHook::ForNumSteps(10);
  hook->Begin();
  StartSession();
  auto hooked = Hooked({hook});
  SetStep(5);
  hook->AfterCreateSession(*session_, nullptr);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(13);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(14);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(15);
  hooked->Run(no_op_);
  EXPECT_TRUE(hooked->ShouldStop());
  SetStep(16);
  hooked = Hooked({hook});
  hooked->Run(no_op_);
  EXPECT_TRUE(hooked->ShouldStop());
}

TEST_F(StopAtStepTest, test_stop_based_with_multiple_steps) {
  auto hook = StopAtStepHook::ForNumSteps(10);
  hook->Begin();
  StartSession();
  auto hooked = Hooked({hook});
  SetStep(5);
  hook->AfterCreateSession(*session_, nullptr);
  hooked->Run(no_op_);
  EXPECT_FALSE(hooked->ShouldStop());
  SetStep(15);
  hooked->Run(no_op_);
  EXPECT_TRUE(hooked->ShouldStop());
}

// ---- LoggingTensorHookTest ------------------------------------------------------------------

class LoggingTensorHookTest : public ::testing::Test {
 protected:
  std::shared_ptr<LoggingTensorHook> MakeHook(LoggingTensorHookOptions options) {
    options.clock = &clock_;
    return std::make_shared<LoggingTensorHook>(std::vector<Output>{t_}, options);
  }
  void Start(const std::shared_ptr<LoggingTensorHook>& hook) {
    hook->Begin();
    hooked_ = std::make_unique<HookedSession>(Borrow(session_),
                                              std::vector<std::shared_ptr<SessionRunHook>>{hook});
  }
  // Whether a run (or End) logged the tensor's name.
  bool RunLogs() {
    ScopedLogCapture capture;
    hooked_->Run(train_op_);
    return capture.Contains(t_.name());
  }
  bool EndLogs(const std::shared_ptr<LoggingTensorHook>& hook) {
    ScopedLogCapture capture;
    hook->End(session_);
    return capture.Contains(t_.name());
  }
  void ValidateEveryNSteps(bool at_end) {
    LoggingTensorHookOptions options;
    options.every_n_iter = 10;
    options.at_end = at_end;
    auto hook = MakeHook(options);
    Start(hook);
    EXPECT_TRUE(RunLogs());
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 9; ++i) EXPECT_FALSE(RunLogs());
      EXPECT_TRUE(RunLogs());
    }
    EXPECT_FALSE(RunLogs());
    EXPECT_EQ(EndLogs(hook), at_end);
  }
  void ValidateEveryNSecs(bool at_end) {
    LoggingTensorHookOptions options;
    options.every_n_secs = 1.0;
    options.at_end = at_end;
    auto hook = MakeHook(options);
    Start(hook);
    EXPECT_TRUE(RunLogs());
    EXPECT_FALSE(RunLogs());
    clock_.Advance(kSec);
    EXPECT_TRUE(RunLogs());
    EXPECT_EQ(EndLogs(hook), at_end);
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Output t_ = Constant(42.0f, "foo");
  Output train_op_ = Constant(3, "train_op");
  FakeClock clock_;
  Session session_{&graph_};
  std::unique_ptr<HookedSession> hooked_;
};

TEST_F(LoggingTensorHookTest, test_illegal_args) {
  LoggingTensorHookOptions zero;
  zero.every_n_iter = 0;
  EXPECT_THAT([&] { MakeHook(zero); }, ThrowsMessage<ValueError>(HasSubstr("nvalid every_n_iter")));
  LoggingTensorHookOptions negative;
  negative.every_n_iter = -10;
  EXPECT_THAT([&] { MakeHook(negative); },
              ThrowsMessage<ValueError>(HasSubstr("nvalid every_n_iter")));
  LoggingTensorHookOptions both;
  both.every_n_iter = 5;
  both.every_n_secs = 5;
  EXPECT_THAT([&] { MakeHook(both); }, ThrowsMessage<ValueError>(HasSubstr("xactly one of")));
  EXPECT_THAT([&] { MakeHook({}); }, ThrowsMessage<ValueError>(HasSubstr("xactly one of")));
}

TEST_F(LoggingTensorHookTest, test_print_at_end_only) {
  LoggingTensorHookOptions options;
  options.at_end = true;
  auto hook = MakeHook(options);
  Start(hook);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(RunLogs());
  EXPECT_TRUE(EndLogs(hook));
}

TEST_F(LoggingTensorHookTest, test_print_every_n_steps) {
  ValidateEveryNSteps(/*at_end=*/false);
  ValidateEveryNSteps(/*at_end=*/false);  // Begin resets the count.
}

TEST_F(LoggingTensorHookTest, test_print_every_n_steps_and_end) {
  ValidateEveryNSteps(/*at_end=*/true);
  ValidateEveryNSteps(/*at_end=*/true);
}

TEST_F(LoggingTensorHookTest, test_print_first_step) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 1;
  auto hook =
      std::make_shared<LoggingTensorHook>(std::map<std::string, Output>{{"foo", t_}}, options);
  Start(hook);
  ScopedLogCapture capture;
  hooked_->Run(train_op_);
  EXPECT_TRUE(capture.Contains("foo"));
  EXPECT_FALSE(capture.Contains("sec"));  // The first line has no elapsed time.
}

TEST_F(LoggingTensorHookTest, test_print_every_n_secs) {
  ValidateEveryNSecs(/*at_end=*/false);
  ValidateEveryNSecs(/*at_end=*/false);
}

TEST_F(LoggingTensorHookTest, test_print_every_n_secs_and_end) {
  ValidateEveryNSecs(/*at_end=*/true);
  ValidateEveryNSecs(/*at_end=*/true);
}

TEST_F(LoggingTensorHookTest, test_print_formatter) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 10;
  const std::string name = t_.name();
  options.formatter = [name](const std::map<std::string, Tensor>& items) {
    return "qqq=" + items.at(name).ToString();
  };
  auto hook = MakeHook(options);
  Start(hook);
  ScopedLogCapture capture;
  hooked_->Run(train_op_);
  // The formatter's line is logged as it made it. TensorFlow's formatter prints a numpy
  // float32, "42.0"; Tensor::ToString prints "42" (a listed difference).
  EXPECT_TRUE(capture.Contains("qqq=42"));
  EXPECT_FALSE(capture.Contains(t_.name()));
}

// ---- CheckpointSaverHookTest ----------------------------------------------------------------

// TensorFlow's setUp: a model directory, a scaffold, a global step and a train op.
class CheckpointSaverHookTest : public ::testing::Test {
 protected:
  ~CheckpointSaverHookTest() override { SummaryWriterCache::Clear(); }

  std::shared_ptr<CheckpointSaverHook> MakeHook(CheckpointSaverHookOptions options) {
    if (!options.saver) options.scaffold = scaffold_;
    options.clock = &clock_;
    return std::make_shared<CheckpointSaverHook>(model_dir_, options);
  }
  std::shared_ptr<CheckpointSaverHook> StepsHook(int64_t save_steps) {
    CheckpointSaverHookOptions options;
    options.save_steps = save_steps;
    return MakeHook(options);
  }
  std::shared_ptr<CheckpointSaverHook> SecsHook(double save_secs) {
    CheckpointSaverHookOptions options;
    options.save_secs = save_secs;
    return MakeHook(options);
  }
  // begin, finalize, a session with init_op run, and a HookedSession over it.
  void Start(const std::shared_ptr<CheckpointSaverHook>& hook, bool after_create = false) {
    hook->Begin();
    scaffold_->Finalize();
    session_ = std::make_unique<Session>(&graph_);
    session_->Run(scaffold_->init_op());
    if (after_create) hook->AfterCreateSession(*session_, nullptr);
    hooked_ = std::make_unique<HookedSession>(Borrow(*session_),
                                              std::vector<std::shared_ptr<SessionRunHook>>{hook});
  }
  void Step() { hooked_->Run(train_op_); }

  std::string model_dir_ = NewDir();
  FakeClock clock_;
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  std::shared_ptr<Scaffold> scaffold_ = std::make_shared<Scaffold>();
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_op_ = IncrementGlobalStep(1);
  std::unique_ptr<Session> session_;
  std::unique_ptr<HookedSession> hooked_;
};

TEST_F(CheckpointSaverHookTest, test_saves_when_saver_and_scaffold_both_missing) {
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  auto hook = std::make_shared<CheckpointSaverHook>(model_dir_, options);
  Start(hook);
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 1);
}

TEST_F(CheckpointSaverHookTest, test_raise_when_saver_and_scaffold_both_present) {
  scaffold_->Finalize();
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.saver = scaffold_->saver();
  options.scaffold = scaffold_;
  EXPECT_THROW(CheckpointSaverHook(model_dir_, options), ValueError);
}

TEST_F(CheckpointSaverHookTest, test_raise_in_both_secs_and_steps) {
  CheckpointSaverHookOptions options;
  options.save_secs = 10;
  options.save_steps = 20;
  EXPECT_THROW(CheckpointSaverHook(model_dir_, options), ValueError);
}

TEST_F(CheckpointSaverHookTest, test_raise_in_none_secs_and_steps) {
  EXPECT_THROW(CheckpointSaverHook(model_dir_, {}), ValueError);
}

TEST_F(CheckpointSaverHookTest, test_save_secs_saves_in_first_step) {
  Start(SecsHook(2));
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 1);
}

TEST_F(CheckpointSaverHookTest, test_save_secs_calls_listeners_at_begin_and_end) {
  auto listener = std::make_shared<CountingListener>();
  CheckpointSaverHookOptions options;
  options.save_secs = 2;
  options.listeners = {listener};
  auto hook = MakeHook(options);
  Start(hook);
  Step();  // Saves.
  Step();  // Does not save, so End does.
  hook->End(*session_);
  EXPECT_EQ(listener->counts,
            (std::map<std::string, int>{
                {"after_save", 2}, {"before_save", 2}, {"begin", 1}, {"end", 1}}));
}

TEST_F(CheckpointSaverHookTest, test_listener_with_monitored_session) {
  auto listener = std::make_shared<CountingListener>();
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.listeners = {listener};
  auto hook = MakeHook(options);
  int64_t step = 0;
  {
    SingularMonitoredSessionOptions session_options;
    session_options.hooks = {hook};
    session_options.scaffold = scaffold_;
    session_options.checkpoint_dir = model_dir_;
    SingularMonitoredSession session(session_options);
    session.Run(train_op_);
    session.Run(train_op_);
    step = session.raw_session()->Run(global_step_.value()).scalar<int64_t>();
    session.Close();
  }
  EXPECT_EQ(step, 2);
  EXPECT_EQ(listener->counts,
            (std::map<std::string, int>{
                {"after_save", 3}, {"before_save", 3}, {"begin", 1}, {"end", 1}}));
}

TEST_F(CheckpointSaverHookTest, test_listener_stops_training_in_after_save) {
  auto listener = std::make_shared<CountingListener>();
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.listeners = {listener};
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {MakeHook(options)};
  session_options.scaffold = scaffold_;
  session_options.checkpoint_dir = model_dir_;
  SingularMonitoredSession session(session_options);
  session.Run(train_op_);
  EXPECT_FALSE(session.ShouldStop());
  session.Run(train_op_);
  EXPECT_FALSE(session.ShouldStop());
  listener->ask_for_stop = true;
  session.Run(train_op_);
  EXPECT_TRUE(session.ShouldStop());
  session.Close();
}

// With no saver and no scaffold, the hook saves with the graph's default saver, and a new
// session in the same directory restores it.
void CheckListenersWithDefaultSaver(int num_listeners) {
  const std::string model_dir = NewDir();
  std::vector<std::shared_ptr<CountingListener>> listeners;
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  for (int i = 0; i < num_listeners; ++i) {
    listeners.push_back(std::make_shared<CountingListener>());
    options.listeners.push_back(listeners.back());
  }
  {
    Graph graph;
    DefaultGraphScope as_default(graph);
    Variable global_step = GetOrCreateGlobalStep();
    Output train_op = IncrementGlobalStep(1);
    auto hook = std::make_shared<CheckpointSaverHook>(model_dir, options);
    SingularMonitoredSessionOptions session_options;
    session_options.hooks = {hook};
    session_options.checkpoint_dir = model_dir;
    SingularMonitoredSession session(session_options);
    session.Run(train_op);
    session.Run(train_op);
    EXPECT_EQ(session.raw_session()->Run(global_step.value()).scalar<int64_t>(), 2);
    session.Close();
  }
  for (const auto& listener : listeners) {
    EXPECT_EQ(listener->counts,
              (std::map<std::string, int>{
                  {"after_save", 3}, {"before_save", 3}, {"begin", 1}, {"end", 1}}));
  }
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable global_step = GetOrCreateGlobalStep();
  SingularMonitoredSessionOptions session_options;
  session_options.checkpoint_dir = model_dir;
  SingularMonitoredSession restored(session_options);
  EXPECT_EQ(restored.Run(global_step.value()).scalar<int64_t>(), 2);
  restored.Close();
  SummaryWriterCache::Clear();
}

TEST(CheckpointSaverHookDefaultSaverTest, test_listener_with_default_saver) {
  CheckListenersWithDefaultSaver(1);
}

TEST(CheckpointSaverHookDefaultSaverTest, test_two_listeners_with_default_saver) {
  CheckListenersWithDefaultSaver(2);
}

TEST_F(CheckpointSaverHookTest, test_save_secs_saves_periodically) {
  Start(SecsHook(2));
  Step();  // Saved.
  clock_.Advance(kSec / 2);
  Step();  // Not saved.
  EXPECT_EQ(SavedStep(model_dir_), 1);
  clock_.Advance(2 * kSec);  // 2.5 s from the start.
  Step();                    // Saved.
  clock_.Advance(kSec / 10);
  Step();  // Not saved.
  clock_.Advance(kSec / 10);
  Step();  // Not saved.
  EXPECT_EQ(SavedStep(model_dir_), 3);
  clock_.Advance(7 * kSec + 3 * kSec / 10);  // 10 s from the start.
  Step();                                    // Saved.
  EXPECT_EQ(SavedStep(model_dir_), 6);
}

TEST_F(CheckpointSaverHookTest, test_save_secs_calls_listeners_periodically) {
  auto listener = std::make_shared<CountingListener>();
  CheckpointSaverHookOptions options;
  options.save_secs = 2;
  options.listeners = {listener};
  auto hook = MakeHook(options);
  Start(hook);
  auto at = [&](double secs) {
    clock_.Advance(static_cast<int64_t>(secs * kSec) - clock_.NowMicros());
  };
  at(0.5);
  Step();  // Saves.
  Step();
  at(3.0);
  Step();  // Saves.
  at(3.5);
  Step();
  at(4.0);
  Step();
  at(6.5);
  Step();  // Saves.
  at(7.0);
  Step();  // Does not save, so End does.
  at(7.5);
  hook->End(*session_);
  EXPECT_EQ(listener->counts,
            (std::map<std::string, int>{
                {"after_save", 4}, {"before_save", 4}, {"begin", 1}, {"end", 1}}));
}

TEST_F(CheckpointSaverHookTest, test_save_steps_saves_in_first_step) {
  Start(StepsHook(2));
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 1);
}

TEST_F(CheckpointSaverHookTest, test_save_steps_saves_periodically) {
  Start(StepsHook(2));
  Step();
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 1);  // Not saved.
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 3);  // Saved.
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 3);
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 5);
}

TEST_F(CheckpointSaverHookTest, test_save_saves_at_end) {
  auto hook = SecsHook(2);
  Start(hook);
  Step();
  Step();
  hook->End(*session_);
  EXPECT_EQ(SavedStep(model_dir_), 2);
}

TEST_F(CheckpointSaverHookTest, test_save_checkpoint_before_first_train_step) {
  auto hook = StepsHook(2);
  Start(hook, /*after_create=*/true);
  EXPECT_EQ(SavedStep(model_dir_), 0);  // Saved at step 0 by AfterCreateSession.
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 0);
  Step();
  EXPECT_EQ(SavedStep(model_dir_), 2);
}

// ---- StepCounterHookTest --------------------------------------------------------------------

class StepCounterHookTest : public HookedGraph {
 protected:
  ~StepCounterHookTest() override { SummaryWriterCache::Clear(); }
  std::shared_ptr<StepCounterHook> MakeHook(std::optional<int64_t> every_n_steps,
                                            std::optional<double> every_n_secs) {
    StepCounterHookOptions options;
    options.every_n_steps = every_n_steps;
    options.every_n_secs = every_n_secs;
    options.summary_writer = writer_;
    options.clock = &clock_;
    return std::make_shared<StepCounterHook>(options);
  }
  std::map<int64_t, std::map<std::string, float>> Summaries() {
    writer_->Flush();
    return ScalarsIn(log_dir_);
  }

  std::string log_dir_ = NewDir();
  FakeClock clock_;
  std::shared_ptr<FileWriter> writer_ = std::make_shared<FileWriter>(log_dir_);
  Output train_op_ = IncrementGlobalStep(1);
};

TEST_F(StepCounterHookTest, test_step_counter_every_n_steps) {
  auto hook = MakeHook(10, std::nullopt);
  hook->Begin();
  StartSession();
  auto hooked = Hooked({hook});
  {
    ScopedLogCapture capture;
    for (int i = 0; i < 30; ++i) {
      clock_.Advance(kSec / 100);
      hooked->Run(train_op_);
    }
    EXPECT_FALSE(capture.Contains("has not been increased"));
  }
  hook->End(*session_);
  const auto summaries = Summaries();
  ASSERT_EQ(summaries.size(), 2u);
  for (int64_t step : {11, 21}) {
    ASSERT_EQ(summaries.count(step), 1u) << step;
    EXPECT_GT(summaries.at(step).at("global_step/sec"), 0);
  }
}

TEST_F(StepCounterHookTest, test_step_counter_every_n_secs) {
  auto hook = MakeHook(std::nullopt, 0.1);
  hook->Begin();
  StartSession();
  auto hooked = Hooked({hook});
  hooked->Run(train_op_);
  clock_.Advance(kSec / 5);
  hooked->Run(train_op_);
  clock_.Advance(kSec / 5);
  hooked->Run(train_op_);
  hook->End(*session_);
  const auto summaries = Summaries();
  ASSERT_EQ(summaries.size(), 2u);
  for (int64_t step : {2, 3}) {
    ASSERT_EQ(summaries.count(step), 1u) << step;
    EXPECT_GT(summaries.at(step).at("global_step/sec"), 0);
  }
}

TEST(StepCounterHookNameTest, test_global_step_name) {
  SummaryWriterCache::Clear();
  const std::string log_dir = NewDir();
  Graph graph;
  DefaultGraphScope as_default(graph);
  {
    NameScope bar(graph, "bar");
    VariableOptions options;
    options.name = "foo";
    options.trainable = false;
    options.collections = {GraphKeys::kGlobalStep, GraphKeys::kGlobalVariables};
    Variable foo(Tensor::Scalar<int64_t>(0), options);
  }
  Output train_op = IncrementGlobalStep(1);
  FakeClock clock;
  auto writer = std::make_shared<FileWriter>(log_dir);
  StepCounterHookOptions options;
  options.every_n_steps = 1;
  options.summary_writer = writer;
  options.clock = &clock;
  auto hook = std::make_shared<StepCounterHook>(options);
  hook->Begin();
  Session session(&graph);
  session.Run(GlobalVariablesInitializer());
  HookedSession hooked(Borrow(session), {hook});
  hooked.Run(train_op);
  clock.Advance(kSec);
  hooked.Run(train_op);
  hook->End(session);
  writer->Flush();
  const auto summaries = ScalarsIn(log_dir);
  ASSERT_EQ(summaries.size(), 1u);
  ASSERT_EQ(summaries.count(2), 1u);
  EXPECT_EQ(summaries.at(2).begin()->first, "bar/foo/sec");
}

TEST_F(StepCounterHookTest, test_log_warning_if_global_step_not_increased) {
  Output keep_same = IncrementGlobalStep(0);
  StartSession();
  auto hook = MakeHook(1, std::nullopt);
  hook->Begin();
  auto hooked = Hooked({hook});
  hooked->Run(keep_same);  // Records the step.
  ScopedLogCapture capture;
  for (int i = 0; i < 30; ++i) hooked->Run(keep_same);
  EXPECT_TRUE(capture.Contains("global step (tf.train.get_global_step) has not been increased"));
  hook->End(*session_);
}

// ---- SummarySaverHookTest -------------------------------------------------------------------

class SummarySaverHookTest : public HookedGraph {
 protected:
  ~SummarySaverHookTest() override { SummaryWriterCache::Clear(); }
  std::shared_ptr<SummarySaverHook> MakeHook(std::optional<int64_t> save_steps,
                                             std::optional<double> save_secs,
                                             std::vector<Output> summary_op) {
    SummarySaverHookOptions options;
    options.save_steps = save_steps;
    options.save_secs = save_secs;
    options.summary_writer = writer_;
    options.summary_op = std::move(summary_op);
    options.clock = &clock_;
    return std::make_shared<SummarySaverHook>(options);
  }
  // Runs the train op `n` times through `hook`, advancing the clock `secs_per_step` after
  // each, then End; returns the summaries written.
  std::map<int64_t, std::map<std::string, float>> RunSteps(
      const std::shared_ptr<SummarySaverHook>& hook, int n, double secs_per_step = 0) {
    hook->Begin();
    StartSession();
    auto hooked = Hooked({hook});
    for (int i = 0; i < n; ++i) {
      hooked->Run(train_op_);
      clock_.Advance(static_cast<int64_t>(secs_per_step * kSec));
    }
    hook->End(*session_);
    writer_->Flush();
    return ScalarsIn(log_dir_);
  }

  std::string log_dir_ = NewDir();
  FakeClock clock_;
  std::shared_ptr<FileWriter> writer_ = std::make_shared<FileWriter>(log_dir_);
  Variable var_{Tensor::Scalar(0.0f), "var"};
  Output tensor_ = var_.AssignAdd(Constant(1.0f));
  Output tensor2_ = Mul(tensor_, Constant(2.0f));
  Output summary_op_ = ScalarSummary("my_summary", tensor_);
  Output summary_op2_ = ScalarSummary("my_summary2", tensor2_);
  Output train_op_ = IncrementGlobalStep(1);
};

using Summaries = std::map<int64_t, std::map<std::string, float>>;

TEST_F(SummarySaverHookTest, test_raise_when_scaffold_and_summary_op_both_missing) {
  SummarySaverHookOptions options;
  options.save_steps = 1;
  options.summary_writer = writer_;
  EXPECT_THROW(SummarySaverHook{options}, ValueError);
}

TEST_F(SummarySaverHookTest, test_raise_when_scaffold_and_summary_op_both_present) {
  SummarySaverHookOptions options;
  options.save_steps = 1;
  options.summary_writer = writer_;
  options.scaffold = std::make_shared<Scaffold>();
  options.summary_op = {summary_op_};
  EXPECT_THROW(SummarySaverHook{options}, ValueError);
}

TEST_F(SummarySaverHookTest, test_raise_in_both_secs_and_steps) {
  EXPECT_THROW(MakeHook(20, 10.0, {summary_op_}), ValueError);
}

TEST_F(SummarySaverHookTest, test_raise_in_none_secs_and_steps) {
  EXPECT_THROW(MakeHook(std::nullopt, std::nullopt, {summary_op_}), ValueError);
}

TEST_F(SummarySaverHookTest, test_save_steps) {
  EXPECT_EQ(RunSteps(MakeHook(8, std::nullopt, {summary_op_}), 30),
            (Summaries{{1, {{"my_summary", 1.0f}}},
                       {9, {{"my_summary", 2.0f}}},
                       {17, {{"my_summary", 3.0f}}},
                       {25, {{"my_summary", 4.0f}}}}));
}

TEST_F(SummarySaverHookTest, test_multiple_summaries) {
  EXPECT_EQ(RunSteps(MakeHook(8, std::nullopt, {summary_op_, summary_op2_}), 10),
            (Summaries{{1, {{"my_summary", 1.0f}, {"my_summary2", 2.0f}}},
                       {9, {{"my_summary", 2.0f}, {"my_summary2", 4.0f}}}}));
}

TEST_F(SummarySaverHookTest, test_save_secs_saving_once_every_step) {
  EXPECT_EQ(RunSteps(MakeHook(std::nullopt, 0.5, {summary_op_}), 4, 0.5),
            (Summaries{{1, {{"my_summary", 1.0f}}},
                       {2, {{"my_summary", 2.0f}}},
                       {3, {{"my_summary", 3.0f}}},
                       {4, {{"my_summary", 4.0f}}}}));
}

TEST_F(SummarySaverHookTest, test_save_secs_saving_once_every_three_steps) {
  EXPECT_EQ(
      RunSteps(MakeHook(std::nullopt, 9.0, {summary_op_}), 8, 3.1),
      (Summaries{
          {1, {{"my_summary", 1.0f}}}, {4, {{"my_summary", 2.0f}}}, {7, {{"my_summary", 3.0f}}}}));
}

// ---- GlobalStepWaiterHookTest ---------------------------------------------------------------

// A clock whose sleeps run a side effect, as TensorFlow's test mocks time.sleep.
class SideEffectClock : public Clock {
 public:
  int64_t NowMicros() const override { return 0; }
  int64_t WallTimeMicros() const override { return 0; }
  void SleepForMicros(int64_t) override { on_sleep(); }
  bool WaitFor(std::unique_lock<std::mutex>&, std::condition_variable&, int64_t,
               const std::function<bool()>& done) override {
    return done();
  }
  std::function<void()> on_sleep;
};

class GlobalStepWaiterHookTest : public HookedGraph {};

TEST_F(GlobalStepWaiterHookTest, test_not_wait_for_step_zero) {
  SideEffectClock clock;
  int sleeps = 0;
  clock.on_sleep = [&] { ++sleeps; };
  GlobalStepWaiterHook hook(0, &clock);
  hook.Begin();
  StartSession();
  SessionRunArgs original;
  SessionRunContext context(original, *session_);
  hook.BeforeRun(context);
  EXPECT_EQ(sleeps, 0);
}

TEST_F(GlobalStepWaiterHookTest, test_wait_for_step) {
  SideEffectClock clock;
  int sleeps = 0;
  clock.on_sleep = [&] {
    ++sleeps;
    if (sleeps == 1) SetStep(500);
    if (sleeps == 2) SetStep(1100);
    ASSERT_LE(sleeps, 2) << "BeforeRun should return after the second sleep";
  };
  GlobalStepWaiterHook hook(1000, &clock);
  hook.Begin();
  StartSession();
  SessionRunArgs original;
  SessionRunContext context(original, *session_);
  hook.BeforeRun(context);
  EXPECT_EQ(sleeps, 2);
}

// ---- FinalOpsHookTest -----------------------------------------------------------------------

TEST(FinalOpsHookTest, test_final_ops_is_scalar_tensor) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  FinalOpsHook hook({Constant(4)});
  hook.Begin();
  Session session(&graph);
  hook.End(session);
  EXPECT_EQ(hook.final_ops_values()->at(0).scalar<int32_t>(), 4);
}

TEST(FinalOpsHookTest, test_final_ops_is_tensor) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  const std::vector<int32_t> expected = {1, 6, 3, 5, 2, 4};
  FinalOpsHook hook({Constant(Tensor::Vector<int32_t>(expected))});
  hook.Begin();
  Session session(&graph);
  hook.End(session);
  EXPECT_EQ(hook.final_ops_values()->at(0).ToVector<int32_t>(), expected);
}

// TensorFlow reads past the end of a one-element dataset; a closed, drained queue is mts's
// exhausted input.
TEST(FinalOpsHookTest, test_final_ops_triggers_out_of_range_error) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Queue queue = FIFOQueue(1, {DataType::kInt64}, {TensorShape{}});
  Operation* enqueue = queue.Enqueue({Constant(int64_t{0})});
  Operation* close = queue.Close();
  Output read = queue.Dequeue()[0];
  FinalOpsHook hook({read});
  hook.Begin();
  Session session(&graph);
  session.Run(enqueue);
  session.Run(close);
  session.Run(read);
  ScopedLogCapture capture;
  EXPECT_THROW(hook.End(session), OutOfRangeError);
  EXPECT_TRUE(capture.Contains("dependency back to some input source"));
}

TEST(FinalOpsHookTest, test_final_ops_with_dictionary) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output final_op = Placeholder(DataType::kFloat);
  FinalOpsHook hook({final_op}, {{final_op, Tensor::Vector<float>({4, -3})}});
  hook.Begin();
  Session session(&graph);
  hook.End(session);
  EXPECT_EQ(hook.final_ops_values()->at(0).ToVector<float>(), (std::vector<float>{4, -3}));
}

// ---- FeedFnHookTest -------------------------------------------------------------------------

TEST(FeedFnHookTest, test_feeding_placeholder) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat);
  Output y = Add(x, Constant(1.0f));
  auto hook = std::make_shared<FeedFnHook>([x] { return FeedDict{{x, Tensor::Scalar(1.0f)}}; });
  hook->Begin();
  Session session(&graph);
  HookedSession hooked(Borrow(session), {hook});
  EXPECT_EQ(hooked.Run(y).scalar<float>(), 2.0f);
}

// ---- ProfilerHookTest -----------------------------------------------------------------------

class ProfilerHookTest : public ::testing::Test {
 protected:
  ~ProfilerHookTest() override { SummaryWriterCache::Clear(); }
  std::shared_ptr<ProfilerHook> MakeHook(std::optional<int64_t> save_steps,
                                         std::optional<double> save_secs) {
    ProfilerHookOptions options;
    options.save_steps = save_steps;
    options.save_secs = save_secs;
    options.output_dir = output_dir_;
    options.clock = &clock_;
    return std::make_shared<ProfilerHook>(options);
  }
  int CountTimelineFiles() {
    int n = 0;
    for (const std::string& name : DefaultFileSystem()->ListDirectory(output_dir_)) {
      if (name.rfind("timeline-", 0) == 0) ++n;
    }
    return n;
  }

  std::string output_dir_ = NewDir();
  FakeClock clock_;
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_op_ = global_step_.AssignAdd(Constant(int64_t{1}));
};

TEST_F(ProfilerHookTest, test_raise_in_both_secs_and_steps) {
  EXPECT_THROW(MakeHook(20, 10.0), ValueError);
}

TEST_F(ProfilerHookTest, test_raise_in_none_secs_and_steps) {
  EXPECT_THROW(MakeHook(std::nullopt, std::nullopt), ValueError);
}

TEST_F(ProfilerHookTest, test_save_secs_does_not_save_in_first_step) {
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {MakeHook(std::nullopt, 2.0)};
  SingularMonitoredSession session(session_options);
  session.Run(train_op_);
  EXPECT_EQ(CountTimelineFiles(), 0);
  session.Close();
}

TEST_F(ProfilerHookTest, test_save_secs_saves_periodically) {
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {MakeHook(std::nullopt, 2.0)};
  SingularMonitoredSession session(session_options);
  session.Run(train_op_);  // Not saved.
  EXPECT_EQ(CountTimelineFiles(), 0);
  clock_.Advance(5 * kSec / 2);  // 2.5 s.
  session.Run(train_op_);        // Saved.
  EXPECT_EQ(CountTimelineFiles(), 1);
  clock_.Advance(kSec / 10);       // 2.6 s.
  session.Run(train_op_);          // Not saved.
  clock_.Advance(18 * kSec / 10);  // 4.4 s: just before the next save.
  session.Run(train_op_);          // Not saved.
  EXPECT_EQ(CountTimelineFiles(), 1);
  clock_.Advance(kSec / 10);  // 4.5 s.
  session.Run(train_op_);     // Saved.
  EXPECT_EQ(CountTimelineFiles(), 2);
  session.Close();
}

TEST_F(ProfilerHookTest, test_save_steps_does_not_save_in_first_step) {
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {MakeHook(1, std::nullopt)};
  SingularMonitoredSession session(session_options);
  session.Run(train_op_);
  EXPECT_EQ(CountTimelineFiles(), 0);
  session.Close();
}

TEST_F(ProfilerHookTest, test_save_steps_saves_periodically) {
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {MakeHook(2, std::nullopt)};
  SingularMonitoredSession session(session_options);
  EXPECT_EQ(CountTimelineFiles(), 0);
  const int expected[] = {0, 1, 1, 2, 2};
  for (int files : expected) {
    session.Run(train_op_);
    EXPECT_EQ(CountTimelineFiles(), files);
  }
  session.Close();
}

// The traced run's RunMetadata reaches the output directory's writer, tagged by its step:
// every step is traced except the first, which only arms the timer.
TEST_F(ProfilerHookTest, test_run_metadata_saves) {
  {
    SingularMonitoredSessionOptions session_options;
    session_options.hooks = {MakeHook(1, std::nullopt)};
    SingularMonitoredSession session(session_options);
    session.Run(train_op_);  // Not saved.
    session.Run(train_op_);  // Saved.
    session.Close();
  }
  SummaryWriterCache::Get(output_dir_)->Flush();
  std::vector<std::string> tags;
  for (const tensorflow::Event& event : ReadEventDirectory(output_dir_)) {
    if (event.what_case() == tensorflow::Event::kTaggedRunMetadata) {
      tags.push_back(event.tagged_run_metadata().tag());
    }
  }
  EXPECT_THAT(tags, ::testing::ElementsAre("step_2"));
}

}  // namespace
}  // namespace mts
