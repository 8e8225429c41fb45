// RecoverableSession: a preemption error in any phase of a run closes the stack, makes a
// new one and runs the whole call again; other errors propagate; creations are retried
// (at once, or bounded with backoff on a Clock); a new chief session starts from the latest
// checkpoint, or from scratch without one; ShouldStop recovers from a thread's preemption
// error and reports any other; Close swallows preemption errors. It also joins the
// WrappedSession contract suite.
#include "src/05_recoverable/recoverable_session.h"

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/fault_injection.h"
#include "tests/testing/new_dir.h"
#include "tests/testing/wrapped_session_contract.h"

namespace mts {

// The contract suite makes a RecoverableSession whose creator hands out the raw session it
// was given (once: a recovery in these tests would be a bug).
template <>
struct WrapperFactory<RecoverableSession> {
  static std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw) {
    auto given = std::make_shared<std::unique_ptr<SessionInterface>>(std::move(raw));
    return std::make_unique<RecoverableSession>(
        std::make_shared<FunctionSessionCreator>([given]() -> std::unique_ptr<SessionInterface> {
          if (*given == nullptr) throw InternalError("the contract's session was taken");
          return std::move(*given);
        }));
  }
};

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Throws;
using ::testing::ThrowsMessage;

INSTANTIATE_TYPED_TEST_SUITE_P(Stage05, WrappedSessionContractTest,
                               ::testing::Types<RecoverableSession>);

constexpr ErrorCode kPreemptionCodes[] = {ErrorCode::kAborted, ErrorCode::kUnavailable};

// A thread of `coord` that records `error` there and ends; returns once it is recorded.
void RecordErrorFromAThread(Coordinator& coord, std::exception_ptr error) {
  auto thread = std::make_shared<CoordinatedThread>(
      "failing", [&coord, error] { coord.RequestStop(error); });
  coord.RegisterThread(thread);
  thread->Start();
  coord.WaitForStop();
}

// The whole stage-05 stack on a graph with a global step and a train op that increments
// it: Recoverable(Coordinated(Hooked(Faulty(Counting(Chief))))).
class RecoverableSessionTest : public ::testing::Test {
 protected:
  ~RecoverableSessionTest() override { SummaryWriterCache::Clear(); }

  std::unique_ptr<RecoverableSession> Make(RecoveryOptions options = {}) {
    ChiefSessionCreatorOptions chief;
    chief.checkpoint_dir = checkpoint_dir_;
    counting_ = std::make_shared<CountingSessionCreator>(
        std::make_shared<ChiefSessionCreator>(nullptr, chief));
    auto faulty = std::make_shared<FaultySessionCreator>(counting_, creation_faults_,
                                                         run_faults_, timing_);
    coordinated_ = std::make_shared<CoordinatedSessionCreator>(faulty, hooks_, /*grace=*/10);
    return std::make_unique<RecoverableSession>(coordinated_, options);
  }

  // One training step: the new global step.
  int64_t Step(SessionInterface& session) { return session.Run(train_).scalar<int64_t>(); }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
  std::shared_ptr<Saver> saver_ = GetSaverOrDefault();  // Before the graph is finalized.

  std::string checkpoint_dir_;  // Empty: the chief always initialises.
  std::shared_ptr<FaultSchedule> run_faults_ = FaultSchedule::Never();
  std::shared_ptr<FaultSchedule> creation_faults_ = FaultSchedule::Never();
  FaultTiming timing_ = FaultTiming::kBeforeRun;
  std::shared_ptr<FaultyHook> hook_ =
      std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, FaultSchedule::Never());
  std::vector<std::shared_ptr<SessionRunHook>> hooks_ = {hook_};

  std::shared_ptr<CountingSessionCreator> counting_;
  std::shared_ptr<CoordinatedSessionCreator> coordinated_;
};

// A preemption error in the raw run: the stack is made again and the whole call repeats,
// hooks included; the train op runs again on the new session, which starts from step 0.
TEST_F(RecoverableSessionTest, RunRecoversFromPreemptionAndRerunsTheWholeCall) {
  for (ErrorCode code : kPreemptionCodes) {
    SCOPED_TRACE(ErrorCodeName(code));
    run_faults_ = FaultSchedule::AtCall(3, code);
    timing_ = FaultTiming::kAfterRun;  // The failed run's increment happened, then was lost.
    hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, FaultSchedule::Never());
    hooks_ = {hook_};
    auto session = Make();
    EXPECT_EQ(Step(*session), 1);
    EXPECT_EQ(Step(*session), 2);
    EXPECT_EQ(Step(*session), 1);  // Step 3 ran, failed, and ran again on a fresh model.
    EXPECT_EQ(session->num_recoveries(), 1);
    EXPECT_EQ(counting_->created(), 2);
    EXPECT_EQ(run_faults_->calls(), 4);        // The train op ran four times for three calls,
    EXPECT_EQ(hook_->before_run_calls(), 4);   // and BeforeRun ran again with it;
    EXPECT_EQ(hook_->after_run_calls(), 3);    // the failed run never reached AfterRun.
    EXPECT_EQ(hook_->after_create_session_calls(), 2);
    EXPECT_FALSE(session->ShouldStop());
  }
}

// Errors that are not preemptions reach the caller; nothing is re-created.
TEST_F(RecoverableSessionTest, OtherRunErrorsPropagate) {
  for (ErrorCode code : {ErrorCode::kInternal, ErrorCode::kInvalidArgument,
                         ErrorCode::kOutOfRange, ErrorCode::kCancelled,
                         ErrorCode::kDeadlineExceeded, ErrorCode::kFailedPrecondition}) {
    SCOPED_TRACE(ErrorCodeName(code));
    run_faults_ = FaultSchedule::AtCall(2, code);
    auto session = Make();
    EXPECT_EQ(Step(*session), 1);
    EXPECT_THAT([&] { Step(*session); }, Throws<OpError>(HasCode(code)));
    EXPECT_EQ(session->num_recoveries(), 0);
    EXPECT_EQ(counting_->created(), 1);
    EXPECT_EQ(Step(*session), 2);  // The session is still usable.
  }
}

// Each phase of creating and running, with each kind of error: a preemption error is
// recovered from (the call succeeds, a new stack was made), any other error propagates.
struct PhaseCase {
  const char* phase;
  ErrorCode code;
  bool recovers;
};

class RecoverableSessionPhaseTest : public RecoverableSessionTest,
                                    public ::testing::WithParamInterface<PhaseCase> {};

TEST_P(RecoverableSessionPhaseTest, PreemptionRecoversOtherErrorsPropagate) {
  const PhaseCase& c = GetParam();
  const std::string phase = c.phase;
  const bool at_creation = phase == "create" || phase == "after_create_session";
  // A run phase fails on the first run. A creation phase fails on the second creation,
  // after the first run's (preemption) fault asked for one.
  auto fault = FaultSchedule::AtCall(at_creation ? 2 : 1, c.code);
  if (at_creation) run_faults_ = FaultSchedule::AtCall(1, ErrorCode::kAborted);
  if (phase == "create") creation_faults_ = fault;
  if (phase == "raw run") run_faults_ = fault;
  if (phase == "after_create_session") {
    hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterCreateSession, fault);
  } else if (phase == "before_run") {
    hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, fault);
  } else if (phase == "after_run") {
    hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterRun, fault);
  }
  hooks_ = {hook_};

  auto session = Make();
  if (c.recovers) {
    EXPECT_EQ(Step(*session), 1);  // The new session started from scratch.
    EXPECT_EQ(session->num_recoveries(), 1);
    EXPECT_EQ(Step(*session), 2);
  } else {
    EXPECT_THAT([&] { Step(*session); }, Throws<OpError>(HasCode(c.code)));
    EXPECT_EQ(session->num_recoveries(), 0);
  }
  // Sessions the chief made: the first, the one a recovery made, and, when the fault was a
  // hook's AfterCreateSession, the one that hook failed (closed by the coordinated creator).
  const int64_t made = 1 + (c.recovers ? 1 : 0) + (phase == "after_create_session" ? 1 : 0);
  EXPECT_EQ(counting_->created(), made);
}

INSTANTIATE_TEST_SUITE_P(
    EachPhase, RecoverableSessionPhaseTest,
    ::testing::Values(PhaseCase{"create", ErrorCode::kAborted, true},
                      PhaseCase{"create", ErrorCode::kUnavailable, true},
                      PhaseCase{"create", ErrorCode::kInternal, false},
                      PhaseCase{"after_create_session", ErrorCode::kAborted, true},
                      PhaseCase{"after_create_session", ErrorCode::kUnavailable, true},
                      PhaseCase{"after_create_session", ErrorCode::kInternal, false},
                      PhaseCase{"before_run", ErrorCode::kAborted, true},
                      PhaseCase{"before_run", ErrorCode::kUnavailable, true},
                      PhaseCase{"before_run", ErrorCode::kInternal, false},
                      PhaseCase{"raw run", ErrorCode::kAborted, true},
                      PhaseCase{"raw run", ErrorCode::kUnavailable, true},
                      PhaseCase{"raw run", ErrorCode::kInternal, false},
                      PhaseCase{"after_run", ErrorCode::kAborted, true},
                      PhaseCase{"after_run", ErrorCode::kUnavailable, true},
                      PhaseCase{"after_run", ErrorCode::kInternal, false}),
    [](const ::testing::TestParamInfo<PhaseCase>& info) {
      std::string name = std::string(info.param.phase) + "_" + ErrorCodeName(info.param.code);
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// Creation is retried on preemption errors, at once by default: no time passes.
TEST_F(RecoverableSessionTest, CreationIsRetriedAtOnceByDefault) {
  creation_faults_ = FaultSchedule::AtCalls(
      {{1, ErrorCode::kUnavailable}, {2, ErrorCode::kAborted}, {3, ErrorCode::kUnavailable}});
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  RecoveryOptions options;
  options.clock = &clock;
  auto session = Make(options);
  EXPECT_EQ(creation_faults_->calls(), 4);
  EXPECT_EQ(counting_->created(), 1);
  EXPECT_EQ(clock.NowMicros(), 0);
  EXPECT_EQ(session->num_recoveries(), 0);  // Retrying the first creation is no recovery.
  EXPECT_EQ(Step(*session), 1);
}

// A non-preemption error while creating propagates at once.
TEST_F(RecoverableSessionTest, CreationErrorsThatAreNotPreemptionsPropagate) {
  creation_faults_ = FaultSchedule::AtCall(1, ErrorCode::kPermissionDenied);
  EXPECT_THROW(Make(), PermissionDeniedError);
  EXPECT_EQ(creation_faults_->calls(), 1);
}

// With a limit and a backoff, waits double between attempts (capped), and the last
// preemption error propagates when the attempts run out.
TEST_F(RecoverableSessionTest, BoundedCreationRetriesBackOffExponentially) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  RecoveryOptions options;
  options.clock = &clock;
  options.max_creation_attempts = 4;
  options.initial_backoff_secs = 1;
  options.max_backoff_secs = 3;

  creation_faults_ = FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable},
                                            {2, ErrorCode::kUnavailable},
                                            {3, ErrorCode::kUnavailable}});
  auto session = Make(options);  // Waits 1 + 2 + 3 (capped from 4) seconds, then succeeds.
  EXPECT_EQ(clock.NowMicros(), 6'000'000);
  EXPECT_EQ(creation_faults_->calls(), 4);

  creation_faults_ = FaultSchedule::EveryKth(1, ErrorCode::kAborted);
  const int64_t start = clock.NowMicros();
  EXPECT_THROW(Make(options), AbortedError);
  EXPECT_EQ(creation_faults_->calls(), 4);                 // Four attempts,
  EXPECT_EQ(clock.NowMicros() - start, 6'000'000);         // three waits between them.
}

// The error that gives up is the last preemption error, its class kept, its message followed
// by how many attempts were made and what to check.
TEST_F(RecoverableSessionTest, TheErrorThatGivesUpSaysHowManyAttemptsAndWhatToCheck) {
  RecoveryOptions options;
  options.max_creation_attempts = 2;
  creation_faults_ = FaultSchedule::EveryKth(1, ErrorCode::kUnavailable);
  EXPECT_THAT([&] { Make(options); },
              ThrowsMessage<UnavailableError>(AllOf(
                  HasSubstr("(gave up after 2 attempts to create a session: check that the "
                            "master and parameter servers are up"),
                  HasSubstr("RecoveryOptions::max_creation_attempts"))));
  EXPECT_EQ(creation_faults_->calls(), 2);
}

// The first wait is capped too, when the initial backoff exceeds the maximum.
TEST_F(RecoverableSessionTest, TheFirstWaitIsCappedByTheMaximum) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  RecoveryOptions options;
  options.clock = &clock;
  options.initial_backoff_secs = 10;
  options.max_backoff_secs = 3;
  creation_faults_ = FaultSchedule::AtCall(1, ErrorCode::kAborted);
  auto session = Make(options);
  EXPECT_EQ(clock.NowMicros(), 3'000'000);
}

// The attempt limit and the backoff start again for each recovery: they bound
// consecutive failed creations, not failures over the whole run.
TEST_F(RecoverableSessionTest, LimitAndBackoffRestartForEachRecovery) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  RecoveryOptions options;
  options.clock = &clock;
  options.max_creation_attempts = 2;
  options.initial_backoff_secs = 5;
  run_faults_ = FaultSchedule::AtCalls({{2, ErrorCode::kAborted}, {3, ErrorCode::kAborted}});
  creation_faults_ =
      FaultSchedule::AtCalls({{2, ErrorCode::kUnavailable}, {4, ErrorCode::kUnavailable}});
  auto session = Make(options);
  EXPECT_EQ(Step(*session), 1);
  // Run 2 fails: creation 2 fails, 5 s, creation 3 succeeds; the retried run 3 fails:
  // creation 4 fails, 5 s (not 10), creation 5 succeeds (attempt 2 of 2, not 4); run 4.
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(session->num_recoveries(), 2);
  EXPECT_EQ(creation_faults_->calls(), 5);
  EXPECT_EQ(clock.NowMicros(), 10'000'000);
}

// Without a checkpoint the new session is initialised: the global step is back to 0.
TEST_F(RecoverableSessionTest, WithoutACheckpointTheModelStartsAgain) {
  run_faults_ = FaultSchedule::AtCall(6, ErrorCode::kAborted);
  auto session = Make();
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(Step(*session), i);
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(GlobalStepValue(*session, global_step_.value()), 1);
}

// With a checkpoint in the chief's checkpoint_dir, the new session restores it: training
// goes on from the saved step.
TEST_F(RecoverableSessionTest, WithACheckpointTheNewSessionRestoresIt) {
  checkpoint_dir_ = NewDir("restore");
  // The fault is counted in steps (BeforeRun), not in runs: the save runs the session too.
  hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun,
                                       FaultSchedule::AtCall(8, ErrorCode::kUnavailable));
  hooks_ = {hook_};
  auto session = Make();
  for (int i = 1; i <= 5; ++i) Step(*session);
  // Saved through the raw session, as a hook would (no hooks run for it).
  saver_->Save(*coordinated_->raw_session(), JoinPath(checkpoint_dir_, "model.ckpt"), 5);
  EXPECT_EQ(Step(*session), 6);
  EXPECT_EQ(Step(*session), 7);
  EXPECT_EQ(Step(*session), 6);  // Step 8 failed; the model went back to checkpoint 5.
  EXPECT_EQ(session->num_recoveries(), 1);
}

// With a CheckpointSaverHook every 3 steps, a recovered model equals the last checkpoint
// the hook wrote.
TEST_F(RecoverableSessionTest, WithACheckpointSaverHookTheModelEqualsTheLastCheckpoint) {
  checkpoint_dir_ = NewDir("saver_hook");
  // The fault is counted in steps (BeforeRun), not in runs: the saves run the session too.
  hook_ = std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun,
                                       FaultSchedule::AtCall(8, ErrorCode::kAborted));
  CheckpointSaverHookOptions saving;
  saving.save_steps = 3;
  hooks_ = {hook_, std::make_shared<CheckpointSaverHook>(checkpoint_dir_, saving)};
  for (auto& hook : hooks_) hook->Begin();  // MonitoredSession's duty (stage 06).
  auto session = Make();
  for (int i = 1; i <= 7; ++i) EXPECT_EQ(Step(*session), i);
  EXPECT_EQ(LatestCheckpoint(checkpoint_dir_), JoinPath(checkpoint_dir_, "model.ckpt-6"));
  // Step 8 fails before it runs, the stack restores checkpoint 6, and the step gives 7.
  EXPECT_EQ(Step(*session), 7);
  EXPECT_EQ(session->num_recoveries(), 1);
}

// A preemption error a thread recorded in the coordinator: ShouldStop rebuilds the stack
// (a new coordinator) and answers "don't stop".
TEST_F(RecoverableSessionTest, ShouldStopRecoversFromAThreadsPreemptionError) {
  for (ErrorCode code : kPreemptionCodes) {
    SCOPED_TRACE(ErrorCodeName(code));
    auto session = Make();
    EXPECT_EQ(Step(*session), 1);
    std::shared_ptr<Coordinator> first = coordinated_->coord();
    RecordErrorFromAThread(*first, ErrorOf(code, "ps restarted"));
    EXPECT_FALSE(session->ShouldStop());
    EXPECT_EQ(session->num_recoveries(), 1);
    EXPECT_EQ(counting_->created(), 2);
    EXPECT_NE(coordinated_->coord(), first);
    EXPECT_TRUE(first->joined());  // The broken stack's threads were joined.
    EXPECT_FALSE(session->ShouldStop());
    EXPECT_EQ(Step(*session), 1);  // A fresh model.
    EXPECT_NO_THROW(session->Close());
  }
}

// Any other error a thread recorded: ShouldStop says stop, and Close raises the error.
TEST_F(RecoverableSessionTest, ShouldStopReportsAThreadsOtherErrorAndCloseRaisesIt) {
  auto session = Make();
  RecordErrorFromAThread(*coordinated_->coord(),
                         std::make_exception_ptr(InternalError("reader broke")));
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_TRUE(session->ShouldStop());  // Asked again, the same answer, never a throw.
  EXPECT_EQ(session->num_recoveries(), 0);
  EXPECT_THROW(session->Close(), InternalError);
  EXPECT_TRUE(session->ShouldStop());
}

// Close swallows a preemption error the coordinator raises while joining.
TEST_F(RecoverableSessionTest, CloseSwallowsPreemptionErrors) {
  auto session = Make();
  RecordErrorFromAThread(*coordinated_->coord(),
                         std::make_exception_ptr(UnavailableError("ps gone")));
  EXPECT_NO_THROW(session->Close());
  EXPECT_EQ(session->num_recoveries(), 0);  // Closing does not recover.
  EXPECT_EQ(counting_->created(), 1);
}

// After Close, Run raises and nothing new is created.
TEST_F(RecoverableSessionTest, RunAfterCloseRaises) {
  auto session = Make();
  session->Close();
  EXPECT_THROW(Step(*session), RuntimeError);
  EXPECT_EQ(counting_->created(), 1);
  EXPECT_TRUE(session->ShouldStop());
}

// num_recoveries counts each rebuilt stack, whichever phase caused it.
TEST_F(RecoverableSessionTest, NumRecoveriesCountsEachRebuild) {
  run_faults_ = FaultSchedule::EveryKth(4, ErrorCode::kAborted);
  auto session = Make();
  for (int i = 0; i < 10; ++i) Step(*session);
  // Runs 4, 8, 12 failed (each retried as the next call): 13 calls for 10 steps.
  EXPECT_EQ(run_faults_->calls(), 13);
  EXPECT_EQ(session->num_recoveries(), 3);
  RecordErrorFromAThread(*coordinated_->coord(),
                         std::make_exception_ptr(AbortedError("worker restarted")));
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_EQ(session->num_recoveries(), 4);
  EXPECT_EQ(counting_->created(), 5);
}

// RunStepFn: a preemption error anywhere inside the step function (here from a raw run on
// the raw session it looked up) rebuilds the stack and calls it again from the start, with
// the new stack and the new raw session; other errors propagate; after Close it raises.
TEST_F(RecoverableSessionTest, RunStepFnReinvokesTheStepFunctionOnTheNewStack) {
  auto session = Make();
  std::vector<SessionInterface*> stacks;
  std::vector<SessionInterface*> raw_sessions;
  int64_t step = 0;
  session->RunStepFn([&](SessionInterface& below) {
    stacks.push_back(&below);
    raw_sessions.push_back(coordinated_->raw_session());
    step = raw_sessions.back()->Run(train_).scalar<int64_t>();
    if (stacks.size() == 1) throw UnavailableError("the worker was preempted");
  });
  // (Addresses alone prove nothing: the new stack may reuse the old one's memory.)
  ASSERT_EQ(stacks.size(), 2u);
  EXPECT_EQ(stacks[1], session->inner());
  EXPECT_EQ(counting_->created(), 2);
  EXPECT_EQ(step, 1);  // The second call ran on the new session, open and from scratch.
  EXPECT_EQ(session->num_recoveries(), 1);

  EXPECT_THROW(session->RunStepFn([](SessionInterface&) { throw InternalError("bug"); }),
               InternalError);
  EXPECT_EQ(session->num_recoveries(), 1);
  session->Close();
  EXPECT_THROW(session->RunStepFn([](SessionInterface&) {}), RuntimeError);
}

}  // namespace
}  // namespace mts
