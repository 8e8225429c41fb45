// The fault-injection harness (tests/testing/fault_injection.h): schedules fail the calls
// they name and count the others, random ones are the same for the same seed, faulty
// sessions fail before or after the session below runs, creators fail before creating and
// share one run schedule among their sessions. FaultySession joins the contract suite.
#include "tests/testing/fault_injection.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "tests/testing/wrapped_session_contract.h"

namespace mts {

template <>
struct WrapperFactory<FaultySession> {
  static std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw) {
    return std::make_unique<FaultySession>(std::move(raw), FaultSchedule::Never());
  }
};

namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

INSTANTIATE_TYPED_TEST_SUITE_P(FaultInjection, WrappedSessionContractTest,
                               ::testing::Types<FaultySession>);

// The call numbers among the first `n` that `schedule` fails.
std::vector<int64_t> FailingCalls(FaultSchedule& schedule, int64_t n) {
  std::vector<int64_t> calls;
  for (int64_t i = 1; i <= n; ++i) {
    if (schedule.Next()) calls.push_back(i);
  }
  return calls;
}

// AtCall, AtCalls and EveryKth fail exactly the calls they name.
TEST(FaultScheduleTest, FixedSchedulesFailTheCallsTheyName) {
  EXPECT_EQ(FailingCalls(*FaultSchedule::Never(), 10), std::vector<int64_t>{});
  EXPECT_EQ(FailingCalls(*FaultSchedule::AtCall(3, ErrorCode::kAborted), 10),
            std::vector<int64_t>{3});
  EXPECT_EQ(FailingCalls(*FaultSchedule::AtCalls({{2, ErrorCode::kAborted},
                                                  {5, ErrorCode::kUnavailable}}),
                         10),
            (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(FailingCalls(*FaultSchedule::EveryKth(4, ErrorCode::kAborted), 12),
            (std::vector<int64_t>{4, 8, 12}));
  EXPECT_THROW(FaultSchedule::EveryKth(0, ErrorCode::kAborted), ValueError);
}

// MaybeFail throws the subclass of the scheduled code, with a message naming the call.
TEST(FaultScheduleTest, MaybeFailThrowsTheScheduledErrorClass) {
  auto schedule =
      FaultSchedule::AtCalls({{1, ErrorCode::kAborted}, {2, ErrorCode::kUnavailable}});
  EXPECT_THAT([&] { schedule->MaybeFail("Run"); },
              ThrowsMessage<AbortedError>(StrEq("injected fault: ABORTED at Run (call 1)")));
  EXPECT_THROW(schedule->MaybeFail("Run"), UnavailableError);
  EXPECT_NO_THROW(schedule->MaybeFail("Run"));
  EXPECT_EQ(schedule->calls(), 3);
  EXPECT_EQ(schedule->faults(), 2);
  EXPECT_EQ(schedule->faults_by_code().at(ErrorCode::kAborted), 1);
}

// A disabled schedule counts calls but fails none, and can be enabled again.
TEST(FaultScheduleTest, DisabledScheduleCountsWithoutFailing) {
  auto schedule = FaultSchedule::EveryKth(1, ErrorCode::kAborted);
  schedule->set_enabled(false);
  EXPECT_FALSE(schedule->Next());
  schedule->set_enabled(true);
  EXPECT_TRUE(schedule->Next());
  EXPECT_EQ(schedule->calls(), 2);
  EXPECT_EQ(schedule->faults(), 1);
}

// A random schedule is a function of its seed: the same seed fails the same calls with the
// same codes; another seed fails others; the share is close to the rate; both codes occur.
TEST(FaultScheduleTest, RandomScheduleIsDeterministicFromItsSeed) {
  const std::vector<ErrorCode> codes = {ErrorCode::kAborted, ErrorCode::kUnavailable};
  auto a = FaultSchedule::Random(0.02, codes, 42);
  auto b = FaultSchedule::Random(0.02, codes, 42);
  auto other = FaultSchedule::Random(0.02, codes, 43);
  std::vector<std::optional<ErrorCode>> from_a, from_b;
  for (int i = 0; i < 20000; ++i) {
    from_a.push_back(a->Next());
    from_b.push_back(b->Next());
  }
  EXPECT_EQ(from_a, from_b);
  EXPECT_NE(FailingCalls(*FaultSchedule::Random(0.02, codes, 42), 20000),
            FailingCalls(*other, 20000));
  EXPECT_GT(a->faults(), 300);  // 2% of 20000 is 400.
  EXPECT_LT(a->faults(), 500);
  EXPECT_GT(a->faults_by_code()[ErrorCode::kAborted], 100);
  EXPECT_GT(a->faults_by_code()[ErrorCode::kUnavailable], 100);
  EXPECT_EQ(FailingCalls(*FaultSchedule::Random(0, codes, 1), 1000), std::vector<int64_t>{});
  EXPECT_EQ(FailingCalls(*FaultSchedule::Random(1, codes, 1), 5).size(), 5u);
  EXPECT_THROW(FaultSchedule::Random(1.5, codes, 1), ValueError);
  EXPECT_THROW(FaultSchedule::Random(0.1, {}, 1), ValueError);
  EXPECT_THROW(FaultSchedule::Random(0.1, {ErrorCode::kOk}, 1), ValueError);
}

class FaultySessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Session> NewRaw() {
    auto raw = std::make_unique<Session>(&graph_);
    raw->Run(GlobalVariablesInitializer());
    return raw;
  }
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
};

// Failing before the run: the session below never ran. After: it ran, the result is lost.
TEST_F(FaultySessionTest, TimingDecidesWhetherTheInnerRunHappened) {
  FaultySession before(NewRaw(), FaultSchedule::AtCall(1, ErrorCode::kAborted),
                       FaultTiming::kBeforeRun);
  EXPECT_THROW(before.Run(train_), AbortedError);
  EXPECT_EQ(before.Run(step_.value()).scalar<int64_t>(), 0);

  FaultySession after(NewRaw(), FaultSchedule::AtCall(1, ErrorCode::kAborted),
                      FaultTiming::kAfterRun);
  EXPECT_THROW(after.Run(train_), AbortedError);
  EXPECT_EQ(after.Run(step_.value()).scalar<int64_t>(), 1);
}

// The creator fails the attempts its schedule names before calling the creator below, and
// its sessions share one run schedule: counting goes on across sessions.
TEST_F(FaultySessionTest, CreatorFailsChosenAttemptsAndSharesItsRunSchedule) {
  auto counting = std::make_shared<CountingSessionCreator>(
      std::make_shared<FunctionSessionCreator>([this] { return NewRaw(); }));
  auto runs = FaultSchedule::AtCall(3, ErrorCode::kUnavailable);
  FaultySessionCreator creator(counting, FaultSchedule::AtCall(2, ErrorCode::kAborted), runs);
  auto first = creator.CreateSession();
  EXPECT_THROW(creator.CreateSession(), AbortedError);
  EXPECT_EQ(counting->attempts(), 1);  // The failed attempt never reached the creator.
  auto second = creator.CreateSession();
  EXPECT_EQ(counting->created(), 2);
  first->Run(train_);
  second->Run(train_);
  EXPECT_THROW(first->Run(train_), UnavailableError);  // Call 3 of the shared schedule.
  EXPECT_EQ(runs->calls(), 3);
}

// The counting creator counts a failed creation as an attempt, not as a session.
TEST(CountingSessionCreatorTest, CountsAttemptsAndSessions) {
  int calls = 0;
  Graph graph;
  CountingSessionCreator counting(std::make_shared<FunctionSessionCreator>(
      [&]() -> std::unique_ptr<SessionInterface> {
        if (++calls == 1) throw UnavailableError("not yet");
        return std::make_unique<Session>(&graph);
      }));
  EXPECT_THROW(counting.CreateSession(), UnavailableError);
  EXPECT_NE(counting.CreateSession(), nullptr);
  EXPECT_EQ(counting.attempts(), 2);
  EXPECT_EQ(counting.created(), 1);
}

}  // namespace
}  // namespace mts
