// CoordinatedSession: ShouldStop asks (and rethrows from) the coordinator, a thread's
// preemption error is the root cause of a failed run, Close stops and joins the threads
// then closes the sessions below and reports a thread's error; and the creator's order.
#include "src/04_coordinated/coordinated_session.h"

#include <atomic>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/03_hooked/hooked_session.h"
#include "tests/testing/recording_hook.h"
#include "tests/testing/wrapped_session_contract.h"

namespace mts {

template <>
struct WrapperFactory<CoordinatedSession> {
  static std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw) {
    return std::make_unique<CoordinatedSession>(std::move(raw),
                                                std::make_shared<Coordinator>());
  }
};

namespace {

using ::testing::ElementsAre;

INSTANTIATE_TYPED_TEST_SUITE_P(Stage04, WrappedSessionContractTest,
                               ::testing::Types<CoordinatedSession>);

class CoordinatedSessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<CoordinatedSession> Make() {
    auto raw = std::make_unique<Session>(&graph_);
    raw_ = raw.get();
    auto hooked = std::make_unique<HookedSession>(std::move(raw),
                                                  std::vector<std::shared_ptr<SessionRunHook>>{});
    return std::make_unique<CoordinatedSession>(std::move(hooked), coord_, /*grace=*/1.0);
  }

  // A thread that records `error` in the coordinator and ends.
  std::shared_ptr<CoordinatedThread> Failing(std::exception_ptr error) {
    auto thread = std::make_shared<CoordinatedThread>(
        "failing", [coord = coord_, error] { coord->RequestStop(error); });
    coord_->RegisterThread(thread);
    return thread;
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Output c_ = Constant(1.0f, "c");
  Output x_ = Placeholder(DataType::kFloat, TensorShape{}, "x");
  std::shared_ptr<Coordinator> coord_ = std::make_shared<Coordinator>(std::vector<ErrorCode>{});
  Session* raw_ = nullptr;
};

// A plain stop request makes ShouldStop true, but runs are still allowed.
TEST_F(CoordinatedSessionTest, CoordinatorStopMakesShouldStopTrueButRunStillWorks) {
  auto session = Make();
  EXPECT_FALSE(session->ShouldStop());
  coord_->RequestStop();
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->Run(c_).scalar<float>(), 1.0f);
}

// An error a thread recorded is raised by ShouldStop, so the loop ends with that error.
TEST_F(CoordinatedSessionTest, ShouldStopRaisesAThreadsError) {
  auto session = Make();
  auto thread = Failing(std::make_exception_ptr(InternalError("producer broke")));
  thread->Start();
  coord_->WaitForStop();
  EXPECT_THROW(session->ShouldStop(), InternalError);
  EXPECT_THROW(session->Close(), InternalError);  // And again at close, once joined.
}

// A failed run whose own error is not a preemption reports the thread's preemption error.
TEST_F(CoordinatedSessionTest, ThreadsPreemptionErrorIsTheRootCauseOfAFailedRun) {
  auto session = Make();
  auto thread = Failing(std::make_exception_ptr(UnavailableError("ps went away")));
  thread->Start();
  coord_->WaitForStop();
  EXPECT_THROW(session->Run(x_), UnavailableError);  // x unfed: InvalidArgument, replaced.
  EXPECT_THROW(session->Close(), UnavailableError);
}

// A failed run keeps its own error when the thread's error is not a preemption.
TEST_F(CoordinatedSessionTest, OtherThreadErrorsDoNotReplaceTheRunsError) {
  auto session = Make();
  auto thread = Failing(std::make_exception_ptr(InternalError("producer broke")));
  thread->Start();
  coord_->WaitForStop();
  EXPECT_THROW(session->Run(x_), InvalidArgumentError);
  EXPECT_THROW(session->Close(), InternalError);
}

// The training thread's own errors are not reported to the coordinator.
TEST_F(CoordinatedSessionTest, MainThreadErrorsAreNotReportedToTheCoordinator) {
  auto session = Make();
  EXPECT_THROW(session->Run(x_), InvalidArgumentError);
  EXPECT_FALSE(coord_->ShouldStop());
  EXPECT_NO_THROW(coord_->RaiseRequestedException());
}

// Close asks the threads to stop, joins them, and then closes the raw session.
TEST_F(CoordinatedSessionTest, CloseStopsAndJoinsThreadsThenClosesTheSession) {
  auto session = Make();
  std::atomic<bool> saw_stop{false};
  auto waiter = std::make_shared<CoordinatedThread>("waiter", [this, &saw_stop] {
    coord_->WaitForStop();
    saw_stop = true;
  });
  coord_->RegisterThread(waiter);
  waiter->Start();
  session->Close();
  EXPECT_TRUE(saw_stop);
  EXPECT_FALSE(waiter->IsAlive());
  EXPECT_TRUE(coord_->joined());
  EXPECT_EQ(session->inner(), nullptr);  // The sessions below are closed and released.
}

// The creator: a session from the creator, hooks told with the coordinator, then the
// wrapped stack; a failing hook leaves nothing open.
class FixedCreator : public SessionCreator {
 public:
  explicit FixedCreator(Graph* graph) : graph_(graph) {}
  std::unique_ptr<SessionInterface> CreateSession() override {
    auto session = std::make_unique<Session>(graph_);
    last = session.get();
    return session;
  }
  Session* last = nullptr;

 private:
  Graph* graph_;
};

// AfterCreateSession sees the raw session and the new coordinator.
TEST_F(CoordinatedSessionTest, CreatorTellsHooksTheRawSessionAndCoordinator) {
  auto creator = std::make_shared<FixedCreator>(&graph_);
  auto hook = std::make_shared<RecordingHook>();
  CoordinatedSessionCreator coordinated(creator, {hook});
  std::unique_ptr<SessionInterface> session = coordinated.CreateSession();
  EXPECT_THAT(hook->sessions, ElementsAre(creator->last));
  EXPECT_EQ(hook->coord, coordinated.coord().get());
  EXPECT_EQ(coordinated.raw_session(), creator->last);
  EXPECT_NE(dynamic_cast<CoordinatedSession*>(session.get()), nullptr);
  EXPECT_EQ(session->Run(c_).scalar<float>(), 1.0f);
}

// A hook that fails in AfterCreateSession: the new session is closed before the error
// propagates (TensorFlow leaves it open).
TEST_F(CoordinatedSessionTest, CreatorClosesTheSessionWhenAHookFails) {
  auto creator = std::make_shared<FixedCreator>(&graph_);
  auto hook = std::make_shared<RecordingHook>();
  hook->fail_in_after_create_session = ErrorCode::kInternal;
  CoordinatedSessionCreator coordinated(creator, {hook});
  EXPECT_THROW(coordinated.CreateSession(), InternalError);
  EXPECT_EQ(coordinated.raw_session(), nullptr);
}

}  // namespace
}  // namespace mts
