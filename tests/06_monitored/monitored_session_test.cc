// MonitoredSession and SingularMonitoredSession: the construction order, every item of the
// behaviour notes' §18 that concerns the assembled stack (hook lifecycle, close and stop,
// recovery), StepContext and RunStepFn (recovered step functions get the new raw session),
// WithMonitoredSession (the `with` block), and the error routing of §17.
#include "src/06_monitored/monitored_session.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/step_context.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/coordinated_recording_hook.h"
#include "tests/testing/fault_injection.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

// A subclass of OutOfRangeError: not a clean end, since only the exact class is.
class SubclassOfOutOfRange : public OutOfRangeError {
 public:
  using OutOfRangeError::OutOfRangeError;
};

// A graph with a global step and a train op that increments it, the default graph of the
// test; sessions are made by a chief creator wrapped in fault injection.
class MonitoredSessionTest : public ::testing::Test {
 protected:
  ~MonitoredSessionTest() override { SummaryWriterCache::Clear(); }

  std::shared_ptr<SessionCreator> Creator() {
    ChiefSessionCreatorOptions chief;
    chief.checkpoint_dir = checkpoint_dir_;
    counting_ = std::make_shared<CountingSessionCreator>(
        std::make_shared<ChiefSessionCreator>(scaffold_, chief));
    return std::make_shared<FaultySessionCreator>(counting_, creation_faults_, run_faults_,
                                                  FaultTiming::kAfterRun);
  }
  std::unique_ptr<MonitoredSession> Make() {
    return std::make_unique<MonitoredSession>(Creator(), Hooks());
  }
  MonitoredSession::Hooks Hooks() { return {first_, second_}; }

  int64_t Step(SessionInterface& session) { return session.Run(train_).scalar<int64_t>(); }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
  std::shared_ptr<Scaffold> scaffold_ = std::make_shared<Scaffold>();
  std::string checkpoint_dir_;
  std::shared_ptr<FaultSchedule> run_faults_ = FaultSchedule::Never();
  std::shared_ptr<FaultSchedule> creation_faults_ = FaultSchedule::Never();
  std::shared_ptr<CountingSessionCreator> counting_;
  std::shared_ptr<std::vector<std::string>> log_ = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<CoordinatedRecordingHook> first_ =
      std::make_shared<CoordinatedRecordingHook>("first", log_);
  std::shared_ptr<RecordingHook> second_ = std::make_shared<RecordingHook>("second", log_);
};

// §13: every Begin (graph still open), then the session, then every AfterCreateSession
// (graph finalized), in list order; steps call the hooks in list order.
TEST_F(MonitoredSessionTest, ConstructionCallsBeginThenCreatesThenAfterCreateSession) {
  auto session = Make();
  EXPECT_EQ(*log_,
            (std::vector<std::string>{"first.Begin", "second.Begin", "first.AfterCreateSession",
                                      "second.AfterCreateSession"}));
  EXPECT_FALSE(first_->graph_finalized_at_begin);
  EXPECT_TRUE(first_->graph_finalized_at_create);
  EXPECT_TRUE(graph_.finalized());
  log_->clear();
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(*log_, (std::vector<std::string>{"first.BeforeRun", "second.BeforeRun",
                                             "first.AfterRun", "second.AfterRun"}));
}

// §18.1: Begin once; AfterCreateSession on every creation, recoveries included.
TEST_F(MonitoredSessionTest, BeginOnceAfterCreateSessionOnEveryRecovery) {
  run_faults_ = FaultSchedule::AtCalls({{2, ErrorCode::kAborted}, {4, ErrorCode::kUnavailable}});
  auto session = Make();
  for (int i = 0; i < 4; ++i) Step(*session);
  EXPECT_EQ(first_->Count("Begin"), 1);
  EXPECT_EQ(first_->Count("AfterCreateSession"), 3);
  EXPECT_EQ(counting_->created(), 3);
  ASSERT_EQ(first_->sessions.size(), 3u);
  // The last one handed to the hook is the one the steps now run on. (The earlier ones are
  // gone, so their addresses say nothing: a new session may be built where the old one was.)
  SessionInterface* running = nullptr;
  session->RunStepFn([&](StepContext& context) {
    running = &context.session();
    return 0;
  });
  EXPECT_EQ(running, first_->sessions.back());
}

// §18.12: a recovery retries the whole run on a fresh session; without a checkpoint the
// variables start again from their initial values.
TEST_F(MonitoredSessionTest, RecoveryWithoutCheckpointReinitialises) {
  run_faults_ = FaultSchedule::AtCall(3, ErrorCode::kAborted);
  auto session = Make();
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(Step(*session), 2);
  EXPECT_EQ(Step(*session), 1);  // Ran, failed after the increment, ran again from scratch.
  EXPECT_EQ(first_->Count("BeforeRun"), 4);
  EXPECT_EQ(first_->Count("AfterRun"), 3);
}

// Recovery inside the full stack with a checkpoint hook: the new session restores the last
// checkpoint, so exactly the steps since it are redone.
TEST_F(MonitoredSessionTest, RecoveryRestoresTheLatestCheckpoint) {
  checkpoint_dir_ = NewDir("recover");
  CheckpointSaverHookOptions saving;
  saving.save_steps = 5;
  saving.scaffold = scaffold_;
  auto saver_hook = std::make_shared<CheckpointSaverHook>(checkpoint_dir_, saving);
  // The 8th step fails before its raw run (the hook's BeforeRun raises).
  auto faulty_hook = std::make_shared<FaultyHook>(
      FaultyHook::Phase::kBeforeRun, FaultSchedule::AtCall(8, ErrorCode::kUnavailable));
  MonitoredSession session(Creator(), {saver_hook, faulty_hook});
  std::vector<int64_t> steps;
  for (int i = 0; i < 9; ++i) steps.push_back(Step(session));
  // Saved at 0 (creation) and 5; step 8 failed; the new session restored step 5.
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 6, 7}));
  EXPECT_EQ(counting_->created(), 2);
  session.Close();
}

// §18.2 and §13: End runs on a clean Close, with the raw session still open.
TEST_F(MonitoredSessionTest, CloseCallsEveryEndWithTheSessionOpen) {
  auto session = Make();
  Step(*session);
  Step(*session);
  log_->clear();
  session->Close();
  EXPECT_EQ(*log_, (std::vector<std::string>{"first.End", "second.End"}));
  EXPECT_EQ(first_->step_at_end, 2);
  EXPECT_TRUE(session->ShouldStop());
}

// §18.2: CloseAfterError (an error ended the loop) never calls End, but closes.
TEST_F(MonitoredSessionTest, CloseAfterErrorSkipsEnd) {
  auto session = Make();
  session->CloseAfterError();
  EXPECT_EQ(first_->Count("End"), 0);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->graph(), nullptr);
}

// §18.3: a second close raises, and (unlike TensorFlow) does not call End again.
TEST_F(MonitoredSessionTest, DoubleCloseRaisesWithoutCallingEndAgain) {
  auto session = Make();
  session->Close();
  // TensorFlow's words first, then what to do.
  EXPECT_THAT([&] { session->Close(); },
              ThrowsMessage<RuntimeError>(StartsWith("Session is already closed. Close it once")));
  EXPECT_EQ(first_->Count("End"), 1);
  EXPECT_THROW(session->CloseAfterError(), RuntimeError);
}

// §18.4: after close ShouldStop is true, graph() is null, and the graph is writable again
// because it was not finalized at construction.
TEST_F(MonitoredSessionTest, CloseUnfinalizesAGraphThatWasOpenAtConstruction) {
  auto session = Make();
  EXPECT_NE(session->graph(), nullptr);
  EXPECT_TRUE(graph_.finalized());
  session->Close();
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->graph(), nullptr);
  EXPECT_FALSE(graph_.finalized());
}

// §18.4: a graph finalized before construction stays finalized.
TEST_F(MonitoredSessionTest, CloseLeavesAGraphFinalizedBeforeConstructionFinalized) {
  scaffold_->Finalize();  // Finalizes the graph too.
  MonitoredSession session(Creator(), {});
  session.Close();
  EXPECT_TRUE(graph_.finalized());
}

// Run after close raises a clear error instead of failing on a missing session.
TEST_F(MonitoredSessionTest, RunAfterCloseRaises) {
  auto session = Make();
  session->Close();
  EXPECT_THAT([&] { Step(*session); },
              ThrowsMessage<RuntimeError>(HasSubstr("closed MonitoredSession")));
  EXPECT_THROW(session->RunStepFn([](StepContext&) {}), RuntimeError);
}

// The destructor closes an open session as after an error: no End, nothing escapes.
TEST_F(MonitoredSessionTest, DestructorClosesWithoutEnd) {
  { auto session = Make(); }
  EXPECT_EQ(first_->Count("End"), 0);
  EXPECT_FALSE(graph_.finalized());
}

// §17: a hook's RequestStop lets this run return, then ShouldStop is true and another Run
// raises.
TEST_F(MonitoredSessionTest, HookStopEndsTheLoopAfterTheRun) {
  second_->stop_in_after_run = true;
  auto session = Make();
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_EQ(Step(*session), 1);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_THROW(Step(*session), RuntimeError);
}

// §17: a stop requested on the coordinator makes ShouldStop true but Run is still allowed.
TEST_F(MonitoredSessionTest, CoordinatorStopAllowsFurtherRuns) {
  first_->coord_stop_in_after_run = true;
  auto session = Make();
  Step(*session);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(Step(*session), 2);
}

// §17: a thread's non-preemption error: ShouldStop is true, Close raises it after closing.
TEST_F(MonitoredSessionTest, ThreadErrorStopsAndIsRaisedAtClose) {
  auto session = Make();
  first_->coord->RequestStop(ErrorOf(ErrorCode::kInternal, "input thread failed"));
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_THROW(session->Close(), InternalError);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->graph(), nullptr);
}

// A Close that raises still closes: the session counts as closed whatever the stack's Close
// raised, so a second Close says so without calling End again, and Run refuses to run.
TEST_F(MonitoredSessionTest, ACloseThatRaisesStillClosesTheSession) {
  auto session = Make();
  first_->coord->RequestStop(ErrorOf(ErrorCode::kInternal, "input thread failed"));
  EXPECT_THROW(session->Close(), InternalError);
  EXPECT_THAT([&] { session->Close(); },
              ThrowsMessage<RuntimeError>(StartsWith("Session is already closed.")));
  EXPECT_EQ(first_->Count("End"), 1);
  EXPECT_THAT([&] { Step(*session); },
              ThrowsMessage<RuntimeError>(HasSubstr("closed MonitoredSession")));
}

// StartQueueRunners given a MonitoredSession starts nothing and returns no threads, as
// TensorFlow's: the session's coordinated layer already runs the graph's queue runners.
TEST_F(MonitoredSessionTest, StartQueueRunnersStartsNothingForAMonitoredSession) {
  Queue queue = FIFOQueue(2, {DataType::kInt64}, {TensorShape{}});
  auto runner = std::make_shared<QueueRunner>(
      queue, std::vector<Operation*>{queue.Enqueue({global_step_.value()})});
  AddQueueRunner(runner);
  const Output dequeue = queue.Dequeue()[0];
  auto session = Make();
  Coordinator coord;
  EXPECT_TRUE(StartQueueRunners(*session, &coord).empty());
  // The session's own runner did start: its thread fills the queue.
  EXPECT_EQ(session->Run(dequeue).scalar<int64_t>(), 0);
  session->Close();
}

// §17: a thread's preemption error: ShouldStop recovers (a new session) and says go on.
TEST_F(MonitoredSessionTest, ThreadPreemptionErrorIsRecoveredByShouldStop) {
  auto session = Make();
  first_->coord->RequestStop(ErrorOf(ErrorCode::kAborted, "parameter server restarted"));
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_EQ(counting_->created(), 2);
  EXPECT_EQ(Step(*session), 1);
  session->Close();
}

// A failing End does not stop the other hooks' End (beyond TensorFlow, which stops there):
// the first error is raised once every End has run, and the session is closed all the same.
// An error of the stack's close (a thread's) replaces End's, as Python's finally does.
TEST_F(MonitoredSessionTest, EndErrorPropagatesAfterEveryEndAndTheSessionIsClosed) {
  first_->fail_in_end = ErrorCode::kInternal;
  second_->fail_in_end = ErrorCode::kResourceExhausted;
  auto session = Make();
  EXPECT_THROW(session->Close(), InternalError);  // The first error, not the second.
  EXPECT_EQ(first_->Count("End"), 1);
  EXPECT_EQ(second_->Count("End"), 1);
  EXPECT_TRUE(session->ShouldStop());

  auto other = Make();
  first_->coord->RequestStop(ErrorOf(ErrorCode::kUnknown, "thread"));
  EXPECT_THROW(other->Close(), UnknownError);
}

// §17: a non-preemption error during creation leaves the constructor: no End, and the
// graph stays finalized.
TEST_F(MonitoredSessionTest, CreationErrorPropagatesWithoutEnd) {
  ScaffoldOptions options;
  options.init_fn = [](const Scaffold&, SessionInterface&) {
    throw InternalError("init_fn failed");
  };
  scaffold_ = std::make_shared<Scaffold>(options);
  EXPECT_THROW(Make(), InternalError);
  EXPECT_EQ(first_->Count("Begin"), 1);
  EXPECT_EQ(first_->Count("End"), 0);
  EXPECT_TRUE(graph_.finalized());
}

// §17: a preemption error during creation is retried; the failed attempt is not seen.
TEST_F(MonitoredSessionTest, CreationPreemptionIsRetried) {
  creation_faults_ = FaultSchedule::AtCall(1, ErrorCode::kUnavailable);
  auto session = Make();
  EXPECT_EQ(counting_->created(), 1);
  EXPECT_EQ(first_->Count("AfterCreateSession"), 1);
  EXPECT_EQ(Step(*session), 1);
}

// StepContext: session() skips the hooks; RunWithHooks goes through them; RunStepFn
// returns what the step function returns.
TEST_F(MonitoredSessionTest, StepContextRawAndHookedRuns) {
  auto session = Make();
  log_->clear();
  int64_t step = session->RunStepFn([&](StepContext& context) {
    context.session().Run(train_);  // No hook sees this one.
    return context.RunWithHooks({train_})[0].scalar<int64_t>();
  });
  EXPECT_EQ(step, 2);
  EXPECT_EQ(first_->Count("BeforeRun"), 1);
  EXPECT_EQ(first_->Count("AfterRun"), 1);
}

// §12, fixed: a preemption error inside a step function re-invokes it from the start, and
// the retry gets the NEW raw session (TensorFlow hands it the old, closed one).
TEST_F(MonitoredSessionTest, RecoveredStepFnGetsTheNewRawSession) {
  auto session = Make();
  std::vector<SessionInterface*> seen;
  int64_t step = session->RunStepFn([&](StepContext& context) {
    seen.push_back(&context.session());
    int64_t value = context.session().Run(train_).scalar<int64_t>();
    if (seen.size() == 1) throw AbortedError("the parameter server restarted");
    return value;
  });
  // The retry ran on the raw session of the new stack, open and started from scratch (an
  // old, closed one would raise; addresses alone prove nothing, memory may be reused).
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], first_->sessions.back());
  EXPECT_EQ(step, 1);
  EXPECT_EQ(counting_->created(), 2);
}

// A preemption error from a hooked run inside the step function recovers the same way;
// other errors propagate.
TEST_F(MonitoredSessionTest, StepFnErrorsRecoverOrPropagate) {
  run_faults_ = FaultSchedule::AtCall(1, ErrorCode::kAborted);
  auto session = Make();
  int calls = 0;
  session->RunStepFn([&](StepContext& context) {
    ++calls;
    context.RunWithHooks({train_});
  });
  EXPECT_EQ(calls, 2);
  EXPECT_THROW(session->RunStepFn([](StepContext&) { throw InternalError("bug"); }), InternalError);
  EXPECT_EQ(counting_->created(), 2);
}

// §18.5: RequestStop raises StopIteration; without WithMonitoredSession, ShouldStop stays
// false. Called before RunWithHooks, no hook sees the step.
TEST_F(MonitoredSessionTest, RequestStopWithoutScopeLeavesShouldStopFalse) {
  auto session = Make();
  log_->clear();
  EXPECT_THROW(session->RunStepFn([](StepContext& context) { context.RequestStop(); }),
               StopIteration);
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_TRUE(log_->empty());
}

// WithMonitoredSession: returning normally is a clean end (End, close).
TEST_F(MonitoredSessionTest, ScopeClosesCleanlyWhenTheBodyReturns) {
  auto session = Make();
  WithMonitoredSession(*session, [&](MonitoredSession& sess) { Step(sess); });
  EXPECT_EQ(first_->Count("End"), 1);
  EXPECT_EQ(first_->step_at_end, 1);
  EXPECT_TRUE(session->ShouldStop());
}

// §18.5 and §13: StopIteration from a step function and exactly OutOfRangeError are clean:
// swallowed, End runs, and ShouldStop is true afterwards.
TEST_F(MonitoredSessionTest, ScopeTreatsStopIterationAndOutOfRangeAsClean) {
  auto session = Make();
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    sess.RunStepFn([](StepContext& context) { context.RequestStop(); });
  });
  EXPECT_EQ(first_->Count("End"), 1);
  EXPECT_TRUE(session->ShouldStop());

  auto again = Make();
  WithMonitoredSession(*again, [](MonitoredSession&) { throw OutOfRangeError("end of input"); });
  EXPECT_EQ(first_->Count("End"), 2);
}

// Other errors, a subclass of OutOfRangeError included, close without End and propagate.
TEST_F(MonitoredSessionTest, ScopeClosesWithoutEndAndRethrowsOtherErrors) {
  auto session = Make();
  EXPECT_THROW(
      WithMonitoredSession(*session, [](MonitoredSession&) { throw InternalError("nan loss"); }),
      InternalError);
  EXPECT_EQ(first_->Count("End"), 0);
  EXPECT_TRUE(session->ShouldStop());

  auto again = Make();
  EXPECT_THROW(WithMonitoredSession(
                   *again, [](MonitoredSession&) { throw SubclassOfOutOfRange("not exact"); }),
               SubclassOfOutOfRange);
  EXPECT_EQ(first_->Count("End"), 0);
}

// §18.3: an explicit Close inside the block makes the block's own close raise.
TEST_F(MonitoredSessionTest, ScopeRaisesIfTheBodyClosedTheSession) {
  auto session = Make();
  // TensorFlow's words first, then what to do.
  EXPECT_THAT([&] { WithMonitoredSession(*session, [](MonitoredSession& sess) { sess.Close(); }); },
              ThrowsMessage<RuntimeError>(StartsWith("Session is already closed. Close it once")));
  EXPECT_EQ(first_->Count("End"), 1);
}

// SingularMonitoredSession: no recovery (preemption errors propagate, a thread's error is
// raised by ShouldStop), and the raw session is exposed until close.
class SingularMonitoredSessionTest : public MonitoredSessionTest {};

TEST_F(SingularMonitoredSessionTest, PreemptionPropagates) {
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {first_};
  SingularMonitoredSession session(session_options);
  ASSERT_NE(session.raw_session(), nullptr);
  EXPECT_EQ(session.raw_session(), first_->sessions.back());
  EXPECT_EQ(Step(session), 1);
  first_->coord->RequestStop(ErrorOf(ErrorCode::kAborted, "parameter server restarted"));
  EXPECT_THROW(session.ShouldStop(), AbortedError);
  EXPECT_THROW(session.Close(), AbortedError);
  EXPECT_EQ(session.raw_session(), nullptr);
}

TEST_F(SingularMonitoredSessionTest, RestoresFromCheckpointDir) {
  checkpoint_dir_ = NewDir("singular");
  CheckpointSaverHookOptions saving;
  saving.save_steps = 100;
  saving.scaffold = scaffold_;
  auto saver_hook = std::make_shared<CheckpointSaverHook>(checkpoint_dir_, saving);
  {
    SingularMonitoredSessionOptions session_options;
    session_options.hooks = {saver_hook};
    session_options.scaffold = scaffold_;
    session_options.checkpoint_dir = checkpoint_dir_;
    SingularMonitoredSession session(session_options);
    for (int i = 0; i < 3; ++i) Step(session);
    session.Close();  // End saves the final checkpoint at step 3.
  }
  SingularMonitoredSessionOptions session_options;
  session_options.scaffold = scaffold_;
  session_options.checkpoint_dir = checkpoint_dir_;
  SingularMonitoredSession session(session_options);
  EXPECT_EQ(Step(session), 4);
  session.Close();
}

}  // namespace
}  // namespace mts
