// Tests of the wait-for-ps exercise: a server that comes up late is found; none at all is a
// DeadlineExceededError within the limit.
#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/07_distributed/server.h"

namespace mts {
namespace {

std::string FreeAddress() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}

TEST(WaitForPsTest, AServerThatIsUpAnswersAtOnce) {
  Server ps(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  EXPECT_EQ(WaitForPs("127.0.0.1:" + std::to_string(ps.port()), 5), ps.store().incarnation());
}

TEST(WaitForPsTest, AServerThatComesUpLateIsFound) {
  const std::string address = FreeAddress();
  std::unique_ptr<Server> ps;
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ps = std::make_unique<Server>(ClusterSpec::FromFlag("ps=" + address), "ps", 0);
  });
  uint64_t incarnation = 0;
  EXPECT_NO_THROW(incarnation = WaitForPs(address, 10));
  late.join();
  EXPECT_EQ(incarnation, ps->store().incarnation());
}

TEST(WaitForPsTest, NoServerIsADeadlineExceededErrorWithinTheLimit) {
  const std::string address = FreeAddress();
  const auto start = std::chrono::steady_clock::now();
  try {
    WaitForPs(address, 0.5);
    FAIL() << "expected DeadlineExceededError";
  } catch (const DeadlineExceededError& e) {
    EXPECT_NE(std::string(e.what()).find(address), std::string::npos) << e.what();
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(secs, 0.5);
  EXPECT_LT(secs, 3);
}

}  // namespace
}  // namespace mts
