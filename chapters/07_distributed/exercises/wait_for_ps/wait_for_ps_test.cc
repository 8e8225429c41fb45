// Tests of the wait-for-ps exercise: a server that comes up late is found; none at all is a
// DeadlineExceededError within the limit.
#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/07_distributed/server.h"
#include "src/platform/errors.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/local_socket.h"

namespace mts {
namespace {

TEST(WaitForPsTest, AServerThatIsUpAnswersAtOnce) {
  Server ps(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  EXPECT_EQ(WaitForPs("127.0.0.1:" + std::to_string(ps.port()), 5), ps.store().incarnation());
}

// A server that comes up while the waiter sleeps is found at the next attempt: the test
// starts it while the waiter is asleep on a fake clock, then moves time on.
TEST(WaitForPsTest, AServerThatComesUpLateIsFound) {
  const std::string address = AddressNobodyListensOn();
  FakeClock clock;
  // std::async, not a std::thread: an error the waiter raises reaches the test as a
  // failure instead of ending the process.
  // Polls a second apart, so each attempt's RPC has a second of real time: on a loaded
  // machine a 50 ms attempt can miss its deadline even when the server is up.
  auto waiter = std::async(std::launch::async, [&] { return WaitForPs(address, 10, 1.0, &clock); });
  while (waiter.wait_for(std::chrono::seconds(0)) != std::future_status::ready &&
         clock.NumThreadsAsleep() == 0) {
    std::this_thread::yield();  // Until its first attempt has failed: nobody listens yet.
  }
  ASSERT_NE(waiter.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "WaitForPs gave up (or answered) before the server came up instead of waiting";
  Server ps(ClusterSpec::FromFlag("ps=" + address), "ps", 0);
  // One poll later it should answer. Should an attempt still fail, the clock goes on a poll
  // at a time, so the waiter either answers or gives up at its limit: never a hang.
  while (waiter.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    if (clock.NumThreadsAsleep() > 0) clock.Advance(1000000);
  }
  EXPECT_EQ(waiter.get(), ps.store().incarnation());
}

// With no server at all, the waiter gives up once the limit has passed on its clock, and the
// error names the address.
TEST(WaitForPsTest, NoServerIsADeadlineExceededErrorAtTheLimit) {
  const std::string address = AddressNobodyListensOn();
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  EXPECT_THAT([&] { WaitForPs(address, 0.5, 0.05, &clock); },
              ::testing::ThrowsMessage<DeadlineExceededError>(::testing::HasSubstr(address)));
  EXPECT_GE(clock.NowMicros(), 500000);
  EXPECT_LT(clock.NowMicros(), 600000);
}

// The limit is kept exactly: with polls every 0.2 s and a limit of 0.5 s, the attempts are
// at 0, 0.2, 0.4 and 0.5, and the error comes at 0.5, not at the next poll (0.6).
TEST(WaitForPsTest, TheLastWaitIsCutShortAtTheLimit) {
  const std::string address = AddressNobodyListensOn();
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  EXPECT_THROW(WaitForPs(address, 0.5, 0.2, &clock), DeadlineExceededError);
  EXPECT_EQ(clock.NowMicros(), 500000);
}

// While only the process being replaced answers, the waiter keeps waiting; at the limit the
// error says so.
TEST(WaitForPsTest, TheOldIncarnationIsNotYetUp) {
  Server old_ps(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  const std::string address = "127.0.0.1:" + std::to_string(old_ps.port());
  const uint64_t old_incarnation = old_ps.store().incarnation();
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  EXPECT_THAT([&] { WaitForPs(address, 0.5, 0.2, &clock, old_incarnation); },
              ::testing::ThrowsMessage<DeadlineExceededError>(::testing::HasSubstr(
                  "still answers with incarnation " + std::to_string(old_incarnation))));
  EXPECT_EQ(clock.NowMicros(), 500000);
  // Any other incarnation is the one waited for.
  EXPECT_EQ(WaitForPs(address, 0.5, 0.2, &clock, old_incarnation + 1), old_incarnation);
}

// A ps restarted at the same address is found once the new process answers.
TEST(WaitForPsTest, TheRestartedServerIsFound) {
  auto old_ps = std::make_unique<Server>(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  const std::string address = "127.0.0.1:" + std::to_string(old_ps->port());
  const uint64_t old_incarnation = old_ps->store().incarnation();
  FakeClock clock;
  auto waiter = std::async(std::launch::async,
                           [&] { return WaitForPs(address, 10, 1.0, &clock, old_incarnation); });
  while (waiter.wait_for(std::chrono::seconds(0)) != std::future_status::ready &&
         clock.NumThreadsAsleep() == 0) {
    std::this_thread::yield();
  }
  ASSERT_NE(waiter.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "returned the old incarnation " << waiter.get();
  old_ps.reset();  // The old process goes; the new one takes its address.
  Server new_ps(ClusterSpec::FromFlag("ps=" + address), "ps", 0);
  while (waiter.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    if (clock.NumThreadsAsleep() > 0) clock.Advance(1000000);  // As in ComesUpLate.
  }
  EXPECT_EQ(waiter.get(), new_ps.store().incarnation());
  EXPECT_NE(new_ps.store().incarnation(), old_incarnation);
}

}  // namespace
}  // namespace mts
