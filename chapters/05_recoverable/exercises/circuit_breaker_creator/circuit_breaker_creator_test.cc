// Tests of the circuit breaker exercise, on a FakeClock, with failures from the
// fault-injection harness.
#include "chapters/05_recoverable/exercises/circuit_breaker_creator/circuit_breaker_creator.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

using ::testing::Throws;

constexpr int64_t kSec = 1000000;

class CircuitBreakerCreatorTest : public ::testing::Test {
 protected:
  // A breaker of 3 failures in 10 s over a creator that fails as `faults` says.
  std::unique_ptr<CircuitBreakerCreator> Make(std::shared_ptr<FaultSchedule> faults) {
    faults_ = faults;
    auto below =
        std::make_shared<FaultySessionCreator>(std::make_shared<FunctionSessionCreator>([this] {
                                                 return std::make_unique<Session>(&graph_);
                                               }),
                                               faults);
    return std::make_unique<CircuitBreakerCreator>(below, 3, 10.0, &clock_);
  }
  Graph graph_;
  FakeClock clock_;
  std::shared_ptr<FaultSchedule> faults_;
};

// Three failures in the window open the circuit: the next attempt is refused at once.
TEST_F(CircuitBreakerCreatorTest, OpensAfterMaxFailuresInTheWindow) {
  auto breaker = Make(FaultSchedule::EveryKth(1, ErrorCode::kUnavailable));
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(breaker->open());
    EXPECT_THROW(breaker->CreateSession(), UnavailableError);
    clock_.Advance(1 * kSec);
  }
  EXPECT_TRUE(breaker->open());
  EXPECT_THAT([&] { breaker->CreateSession(); },
              Throws<UnavailableError>(HasMessage("circuit open")));
  EXPECT_EQ(faults_->calls(), 3);  // The refused attempt never reached the creator.
}

// The circuit closes once the window has passed since it opened, and lets attempts through.
TEST_F(CircuitBreakerCreatorTest, ClosesWhenTheWindowHasPassed) {
  auto breaker = Make(FaultSchedule::AtCalls(
      {{1, ErrorCode::kAborted}, {2, ErrorCode::kAborted}, {3, ErrorCode::kAborted}}));
  for (int i = 0; i < 3; ++i) EXPECT_THROW(breaker->CreateSession(), AbortedError);
  clock_.Advance(9 * kSec);
  EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  clock_.Advance(1 * kSec);
  EXPECT_FALSE(breaker->open());
  EXPECT_NE(breaker->CreateSession(), nullptr);
  EXPECT_EQ(faults_->calls(), 4);
}

// Failures spread wider than the window never open it; a success forgets failures.
TEST_F(CircuitBreakerCreatorTest, OnlyFailuresWithinTheWindowCount) {
  auto breaker = Make(FaultSchedule::AtCalls({{1, ErrorCode::kAborted},
                                              {2, ErrorCode::kAborted},
                                              {3, ErrorCode::kAborted},
                                              {5, ErrorCode::kAborted},
                                              {6, ErrorCode::kAborted},
                                              {8, ErrorCode::kAborted}}));
  EXPECT_THROW(breaker->CreateSession(), AbortedError);  // t = 0
  clock_.Advance(6 * kSec);
  EXPECT_THROW(breaker->CreateSession(), AbortedError);  // t = 6
  clock_.Advance(6 * kSec);
  EXPECT_THROW(breaker->CreateSession(), AbortedError);  // t = 12: the one at 0 expired.
  EXPECT_FALSE(breaker->open());
  EXPECT_NE(breaker->CreateSession(), nullptr);  // A success forgets 6 and 12.
  EXPECT_THROW(breaker->CreateSession(), AbortedError);
  EXPECT_THROW(breaker->CreateSession(), AbortedError);
  EXPECT_FALSE(breaker->open());  // Two since the success.
  EXPECT_NE(breaker->CreateSession(), nullptr);
}

// After an open window, one attempt goes through as a probe: if it fails, the circuit opens
// again at once, without waiting for max_failures new failures.
TEST_F(CircuitBreakerCreatorTest, AFailedProbeOpensTheCircuitAgainAtOnce) {
  auto breaker = Make(FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable},
                                              {2, ErrorCode::kUnavailable},
                                              {3, ErrorCode::kUnavailable},
                                              {4, ErrorCode::kAborted}}));
  for (int i = 0; i < 3; ++i) EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  clock_.Advance(10 * kSec);
  EXPECT_FALSE(breaker->open());
  EXPECT_THROW(breaker->CreateSession(), AbortedError);  // The probe reaches the creator...
  EXPECT_TRUE(breaker->open());                          // ...and fails: open again.
  EXPECT_THAT([&] { breaker->CreateSession(); },
              Throws<UnavailableError>(HasMessage("circuit open")));
  EXPECT_EQ(faults_->calls(), 4);
  clock_.Advance(10 * kSec);
  EXPECT_NE(breaker->CreateSession(), nullptr);  // The next probe succeeds.
}

// A succeeding probe closes the circuit for good: the next failure is one of max_failures.
TEST_F(CircuitBreakerCreatorTest, ASucceedingProbeClosesTheCircuit) {
  auto breaker = Make(FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable},
                                              {2, ErrorCode::kUnavailable},
                                              {3, ErrorCode::kUnavailable},
                                              {5, ErrorCode::kUnavailable},
                                              {6, ErrorCode::kUnavailable}}));
  for (int i = 0; i < 3; ++i) EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  clock_.Advance(10 * kSec);
  EXPECT_NE(breaker->CreateSession(), nullptr);  // The probe, call 4.
  EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  EXPECT_FALSE(breaker->open());  // Two failures since the probe, fewer than three.
}

// Only preemption errors say the cluster is down. Another error (a broken model) reaches
// the caller as it is, every time, and neither counts nor forgets: were it counted, the
// breaker would answer "circuit open", a preemption error, and a RecoverableSession above
// would retry a broken model for ever.
TEST_F(CircuitBreakerCreatorTest, OnlyPreemptionErrorsCount) {
  auto breaker = Make(FaultSchedule::AtCalls({{1, ErrorCode::kAborted},
                                              {2, ErrorCode::kInvalidArgument},
                                              {3, ErrorCode::kInvalidArgument},
                                              {4, ErrorCode::kInvalidArgument},
                                              {5, ErrorCode::kUnavailable},
                                              {6, ErrorCode::kAborted}}));
  EXPECT_THROW(breaker->CreateSession(), AbortedError);
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW(breaker->CreateSession(), InvalidArgumentError);
    EXPECT_FALSE(breaker->open());
  }
  EXPECT_THROW(breaker->CreateSession(), UnavailableError);
  EXPECT_FALSE(breaker->open());  // Two preemption errors: the other ones did not count...
  EXPECT_THROW(breaker->CreateSession(), AbortedError);
  EXPECT_TRUE(breaker->open());  // ...nor did they forget the first: three now.
}

// Under a RecoverableSession with backoff on the same clock, the breaker spares the
// creator: attempts while it is open cost nothing below, and the session is made in the end.
TEST_F(CircuitBreakerCreatorTest, ARecoverableSessionWaitsOutAnOpenCircuit) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  auto faults = FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable},
                                        {2, ErrorCode::kUnavailable},
                                        {3, ErrorCode::kUnavailable},
                                        {4, ErrorCode::kUnavailable}});
  auto below =
      std::make_shared<FaultySessionCreator>(std::make_shared<FunctionSessionCreator>([this] {
                                               return std::make_unique<Session>(&graph_);
                                             }),
                                             faults);
  auto breaker = std::make_shared<CircuitBreakerCreator>(below, 3, 10.0, &clock);
  RecoveryOptions options;
  options.clock = &clock;
  options.initial_backoff_secs = 1;
  options.max_backoff_secs = 4;
  RecoverableSession session(breaker, options);
  // Attempts at t = 0, 1, 3 fail below and open the circuit until 13; those at 7 and 11 are
  // refused; at 15 the probe fails (call 4) and opens it again until 25; 19 and 23 are
  // refused; at 27 the creator succeeds (call 5).
  EXPECT_EQ(faults->calls(), 5);
  EXPECT_EQ(clock.NowMicros(), 27 * kSec);
}

}  // namespace
}  // namespace mts
