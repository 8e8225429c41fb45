// Tests of the wait-for-ps exercise: a server that comes up late is found; none at all is a
// DeadlineExceededError within the limit.
#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"

#include <memory>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/07_distributed/server.h"
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
  uint64_t incarnation = 0;
  std::thread waiter([&] { incarnation = WaitForPs(address, 10, 0.05, &clock); });
  clock.BlockUntilThreadsAsleep(1);  // Its first attempt failed: nobody listens yet.
  Server ps(ClusterSpec::FromFlag("ps=" + address), "ps", 0);
  clock.Advance(50000);
  waiter.join();
  EXPECT_EQ(incarnation, ps.store().incarnation());
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

}  // namespace
}  // namespace mts
