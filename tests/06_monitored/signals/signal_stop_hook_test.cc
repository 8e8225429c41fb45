// SignalStopHook in this process: the signal is raised here (raise runs the handler before
// it returns), so each test knows exactly which run the signal preceded. Every test leaves
// the dispositions of SIGTERM and SIGINT as it found them (the fixture checks), since a
// signal handler belongs to the whole test binary.
#include "src/06_monitored/signal_stop_hook.h"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

// The disposition of `sig` now: its handler (SIG_DFL, SIG_IGN or a function).
sighandler_t HandlerOf(int sig) {
  struct sigaction current;
  sigaction(sig, nullptr, &current);
  return current.sa_handler;
}

void SetHandler(int sig, sighandler_t handler) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}

// A handler of the test's own, standing for one the program had before the hook.
std::atomic<int> g_previous_handler_calls{0};
extern "C" void CountingHandler(int) { ++g_previous_handler_calls; }

// A graph with a global step and its increment, the training step of these tests.
class SignalStopHookTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    ASSERT_EQ(HandlerOf(SIGTERM), SIG_DFL);
    ASSERT_EQ(HandlerOf(SIGINT), SIG_DFL);
    CreateGlobalStep();
    increment_ = IncrementGlobalStep();
    g_previous_handler_calls = 0;
  }
  void TearDown() override {
    EXPECT_EQ(HandlerOf(SIGTERM), SIG_DFL) << "the test left a SIGTERM handler behind";
    EXPECT_EQ(HandlerOf(SIGINT), SIG_DFL) << "the test left a SIGINT handler behind";
    SetHandler(SIGTERM, SIG_DFL);
    SetHandler(SIGINT, SIG_DFL);
  }

  // A chief without checkpoints: the only default hook is the SignalStopHook.
  std::unique_ptr<MonitoredSession> NewSession(bool stop_on_signals = true) {
    MonitoredTrainingSessionOptions options;
    options.stop_on_signals = stop_on_signals;
    return MonitoredTrainingSession(options);
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Output increment_;
};

// The signal asks for a stop; the hook sees it around the next run, after which the loop
// ends. The log line names the signal.
TEST_P(SignalStopHookTest, SignalStopsTheLoopAfterTheNextRun) {
  const int sig = GetParam();
  ScopedLogCapture capture;
  std::unique_ptr<MonitoredSession> session = NewSession();
  session->Run({increment_});
  EXPECT_FALSE(session->ShouldStop());

  ASSERT_EQ(raise(sig), 0);  // The process survives: the hook's handler only sets a flag.
  EXPECT_EQ(SignalStopHook::ReceivedSignal(), sig);
  EXPECT_FALSE(session->ShouldStop()) << "no hook has run since the signal";
  session->Run({increment_});
  EXPECT_TRUE(session->ShouldStop());

  // This chief saves no checkpoints, and the log line does not promise one.
  const std::string name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
  EXPECT_TRUE(capture.Contains("Received " + name +
                               ": stopping after this step; this task writes no checkpoint."))
      << ::testing::PrintToString(capture.lines());
  EXPECT_FALSE(capture.Contains("final checkpoint"));
  session->Close();
}

// With a checkpoint directory the chief has a CheckpointSaverHook, and the line promises
// the final checkpoint that its End writes.
TEST_P(SignalStopHookTest, TheLogPromisesAFinalCheckpointOnlyWhenOneIsWritten) {
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir =  // One per signal: a second run would resume the first's.
      JoinPath(std::getenv("TEST_TMPDIR"), "final_checkpoint_" + std::to_string(GetParam()));
  ScopedLogCapture capture;
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  session->Run({increment_});
  ASSERT_EQ(raise(GetParam()), 0);
  session->Run({increment_});
  EXPECT_TRUE(
      capture.Contains("stopping after this step; the final checkpoint is written at "
                       "close."))
      << ::testing::PrintToString(capture.lines());
  session->Close();
  EXPECT_EQ(LatestCheckpoint(options.checkpoint_dir),
            JoinPath(options.checkpoint_dir, "model.ckpt-2"));
}

// The loop of a program: it ends after the step the signal arrived in, with a clean close.
TEST_P(SignalStopHookTest, SignalDuringALoopEndsItAfterThatStep) {
  std::unique_ptr<MonitoredSession> session = NewSession();
  int64_t steps = 0;
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) {
      sess.Run({increment_});
      if (++steps == 5) raise(GetParam());
      ASSERT_LT(steps, 100) << "the signal did not stop the loop";
    }
  });
  EXPECT_EQ(steps, 6);  // The signal came after step 5's run; step 6's hooks saw it.
}

// The handlers go when the session goes; the next session starts without the old signal.
TEST_P(SignalStopHookTest, HandlersAndTheSignalAreForgottenWhenTheSessionGoes) {
  {
    std::unique_ptr<MonitoredSession> session = NewSession();
    EXPECT_NE(HandlerOf(GetParam()), SIG_DFL);
    raise(GetParam());
    session->Run({increment_});
    EXPECT_TRUE(session->ShouldStop());
  }
  EXPECT_EQ(HandlerOf(GetParam()), SIG_DFL);
  EXPECT_EQ(SignalStopHook::ReceivedSignal(), 0);

  std::unique_ptr<MonitoredSession> next = NewSession();
  next->Run({increment_});
  EXPECT_FALSE(next->ShouldStop());
}

// A second signal puts back the previous disposition and raises again: here a handler of
// the program's own, which is called (with the default disposition the process would end;
// see SecondSignalWithDefaultDispositionKills).
TEST_P(SignalStopHookTest, SecondSignalGoesToThePreviousHandler) {
  SetHandler(GetParam(), CountingHandler);
  {
    std::unique_ptr<MonitoredSession> session = NewSession();
    raise(GetParam());
    EXPECT_EQ(g_previous_handler_calls, 0);
    raise(GetParam());
    EXPECT_EQ(g_previous_handler_calls, 1);
    EXPECT_EQ(HandlerOf(GetParam()), &CountingHandler);
  }
  EXPECT_EQ(HandlerOf(GetParam()), &CountingHandler);  // Still the program's own.
  SetHandler(GetParam(), SIG_DFL);
}

// The previous handler, whatever it was, is back after the session.
TEST_P(SignalStopHookTest, PreviousHandlerIsRestored) {
  SetHandler(GetParam(), CountingHandler);
  {
    std::unique_ptr<MonitoredSession> session = NewSession();
    EXPECT_NE(HandlerOf(GetParam()), &CountingHandler);
  }
  EXPECT_EQ(HandlerOf(GetParam()), &CountingHandler);
  raise(GetParam());
  EXPECT_EQ(g_previous_handler_calls, 1);
  SetHandler(GetParam(), SIG_DFL);
}

// A signal the parent ignored (a background job's SIGINT) stays ignored.
TEST_P(SignalStopHookTest, IgnoredSignalStaysIgnored) {
  SetHandler(GetParam(), SIG_IGN);
  {
    std::unique_ptr<MonitoredSession> session = NewSession();
    EXPECT_EQ(HandlerOf(GetParam()), SIG_IGN);
    raise(GetParam());
    session->Run({increment_});
    EXPECT_FALSE(session->ShouldStop());
  }
  EXPECT_EQ(HandlerOf(GetParam()), SIG_IGN);
  SetHandler(GetParam(), SIG_DFL);
}

// With stop_on_signals false, nothing is installed.
TEST_P(SignalStopHookTest, StopOnSignalsFalseInstallsNothing) {
  std::unique_ptr<MonitoredSession> session = NewSession(/*stop_on_signals=*/false);
  EXPECT_EQ(HandlerOf(GetParam()), SIG_DFL);
}

// Two sessions alive at once share the handlers: both stop, and the handlers stay until
// the last one goes, whatever the order.
TEST_P(SignalStopHookTest, TwoSessionsShareTheHandlers) {
  std::unique_ptr<MonitoredSession> first = NewSession();
  std::unique_ptr<MonitoredSession> second = NewSession();
  raise(GetParam());
  first->Run({increment_});
  second->Run({increment_});
  EXPECT_TRUE(first->ShouldStop());
  EXPECT_TRUE(second->ShouldStop());
  first.reset();
  EXPECT_NE(HandlerOf(GetParam()), SIG_DFL);
  second.reset();
  EXPECT_EQ(HandlerOf(GetParam()), SIG_DFL);
}

// The default disposition ends the process on the second signal: a hard stop.
TEST_P(SignalStopHookTest, SecondSignalWithDefaultDispositionKills) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::unique_ptr<MonitoredSession> session = NewSession();
        raise(GetParam());
        session->Run({increment_});  // The first signal only stops the loop...
        raise(GetParam());           // ...the second ends the process.
        std::_Exit(0);
      },
      ::testing::KilledBySignal(GetParam()), "");
}

// Issue 32, item 8. Before the session exists (here a worker waiting for a chief that never
// comes, its waits on a FakeClock) the first signal ends the process at once, with the
// signal's usual status, saying why: there is nothing to save, and the wait has no end.
TEST_P(SignalStopHookTest, FirstSignalWhileTheSessionIsCreatedEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string name = GetParam() == SIGTERM ? "SIGTERM" : "SIGINT";
  EXPECT_EXIT(
      {
        FakeClock clock;
        std::thread signaller([&] {
          clock.BlockUntilThreadsAsleep(1);  // The worker sleeps between its checks.
          raise(GetParam());
        });
        MonitoredTrainingSessionOptions options;
        options.is_chief = false;
        options.max_wait_secs = 1e9;
        options.clock = &clock;
        MonitoredTrainingSession(options);  // Waits for the chief, until the signal.
        signaller.join();
        std::_Exit(0);
      },
      ::testing::KilledBySignal(GetParam()),
      "Received " + name + " while the session was still being created .*nothing is saved");
}

INSTANTIATE_TEST_SUITE_P(SigtermAndSigint, SignalStopHookTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGTERM ? "SIGTERM" : "SIGINT");
                         });

// Issue 32: SIGPIPE (a write to a closed pipe) and SIGXFSZ (past `ulimit -f`) kill a
// process by default, before any final checkpoint. While a session lives they are ignored,
// as Python ignores them for a TensorFlow 1 program, so the write fails instead (EPIPE,
// EFBIG) and its writer reports it; a program can turn a closed stdout into a stop.
class IgnoredSignalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetHandler(SIGPIPE, SIG_DFL);  // Whatever the test runner left.
    SetHandler(SIGXFSZ, SIG_DFL);
    CreateGlobalStep();
    increment_ = IncrementGlobalStep();
    g_previous_handler_calls = 0;
  }
  void TearDown() override {
    SetHandler(SIGPIPE, SIG_DFL);
    SetHandler(SIGXFSZ, SIG_DFL);
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Output increment_;
};

TEST_F(IgnoredSignalsTest, SigpipeAndSigxfszAreIgnoredWhileASessionLives) {
  {
    std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession();
    EXPECT_EQ(HandlerOf(SIGPIPE), SIG_IGN);
    EXPECT_EQ(HandlerOf(SIGXFSZ), SIG_IGN);
    ASSERT_EQ(raise(SIGPIPE), 0);  // The process survives it.
    ASSERT_EQ(raise(SIGXFSZ), 0);
    session->Run({increment_});
    EXPECT_FALSE(session->ShouldStop()) << "an ignored signal is no stop request";
  }
  EXPECT_EQ(HandlerOf(SIGPIPE), SIG_DFL);  // Put back with the last session.
  EXPECT_EQ(HandlerOf(SIGXFSZ), SIG_DFL);
}

// A handler of the program's own is the program's choice, and stays.
TEST_F(IgnoredSignalsTest, AProgramsOwnHandlerIsLeftAlone) {
  SetHandler(SIGPIPE, CountingHandler);
  {
    std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession();
    EXPECT_EQ(HandlerOf(SIGPIPE), &CountingHandler);
    EXPECT_EQ(HandlerOf(SIGXFSZ), SIG_IGN);
  }
  EXPECT_EQ(HandlerOf(SIGPIPE), &CountingHandler);
}

// A write to stdout failed with EPIPE (`| head` has its lines): the program asks for a
// stop, which ends the loop after the step as SIGTERM would, saying why. The request goes
// with the last session.
TEST_F(IgnoredSignalsTest, AClosedStdoutStopsTheLoopAfterTheStep) {
  ScopedLogCapture capture;
  {
    std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession();
    session->Run({increment_});
    SignalStopHook::RequestStopForClosedStdout();
    EXPECT_FALSE(session->ShouldStop()) << "no hook has run since the request";
    session->Run({increment_});
    EXPECT_TRUE(session->ShouldStop());
  }
  EXPECT_TRUE(
      capture.Contains("Standard output is closed (a write to it failed: its reader, "
                       "such as head, has exited): stopping after this step; this task "
                       "writes no checkpoint."))
      << ::testing::PrintToString(capture.lines());
  std::unique_ptr<MonitoredSession> next = MonitoredTrainingSession();
  next->Run({increment_});
  EXPECT_FALSE(next->ShouldStop());
}

// MonitoredTrainingSession puts the hook first, for a chief and for a worker.
TEST(MonitoredTrainingSessionHooksTest, SignalStopHookComesFirstForChiefAndWorker) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  auto scaffold = std::make_shared<Scaffold>();
  for (bool is_chief : {true, false}) {
    MonitoredTrainingSessionOptions options;
    options.is_chief = is_chief;
    options.checkpoint_dir = std::getenv("TEST_TMPDIR");
    options.hooks = {std::make_shared<SessionRunHook>()};
    MonitoredSession::Hooks hooks = MonitoredTrainingSessionHooks(options, scaffold);
    ASSERT_FALSE(hooks.empty());
    EXPECT_NE(std::dynamic_pointer_cast<SignalStopHook>(hooks.front()), nullptr)
        << "is_chief=" << is_chief;
    EXPECT_EQ(hooks.back(), options.hooks.back());

    options.stop_on_signals = false;
    for (const auto& hook : MonitoredTrainingSessionHooks(options, scaffold)) {
      EXPECT_EQ(std::dynamic_pointer_cast<SignalStopHook>(hook), nullptr);
    }
  }
}

}  // namespace
}  // namespace mts
