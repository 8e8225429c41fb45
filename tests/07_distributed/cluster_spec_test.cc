#include "src/07_distributed/cluster_spec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ClusterSpecTest, FromFlagNamesEveryTask) {
  const ClusterSpec cluster =
      ClusterSpec::FromFlag("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224");
  EXPECT_EQ(cluster.jobs(), (std::vector<std::string>{"ps", "worker"}));
  EXPECT_EQ(cluster.num_tasks("ps"), 1);
  EXPECT_EQ(cluster.num_tasks("worker"), 2);
  EXPECT_EQ(cluster.num_tasks("chief"), 0);
  EXPECT_EQ(cluster.task_address("worker", 1), "127.0.0.1:2224");
}

TEST(ClusterSpecTest, FromJsonReadsTheSameCluster) {
  const ClusterSpec from_json = ClusterSpec::FromJson(
      R"({ "ps": ["127.0.0.1:2222"],
           "worker": ["127.0.0.1:2223", "127.0.0.1:2224"] })");
  EXPECT_EQ(from_json,
            ClusterSpec::FromFlag("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224"));
  EXPECT_EQ(ClusterSpec::FromJson(from_json.ToJson()), from_json);
  EXPECT_EQ(ClusterSpec::FromFlag(from_json.ToFlag()), from_json);
}

TEST(ClusterSpecTest, FromJsonFileReadsAFile) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/cluster.json";
  std::ofstream(path) << R"({"ps": ["localhost:1"], "worker": ["localhost:2"]})";
  EXPECT_EQ(ClusterSpec::FromJsonFile(path).task_address("ps", 0), "localhost:1");
  EXPECT_THROW(ClusterSpec::FromJsonFile(path + ".missing"), NotFoundError);
}

// Issue 32, item 10. A cluster file that is a FIFO (which blocked for ever), a link to
// /dev/zero (which grew to gigabytes) or merely huge is refused before it is read whole.
TEST(ClusterSpecTest, FromJsonFileRefusesWhatIsNotASmallRegularFile) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string fifo = dir + "/cluster.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT([&] { ClusterSpec::FromJsonFile(fifo); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("is a FIFO")));
  const std::string zero = dir + "/cluster.zero";
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  EXPECT_THAT([&] { ClusterSpec::FromJsonFile(zero); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("is a character device")));
  const std::string huge = dir + "/cluster_huge.json";
  std::ofstream(huge) << std::string(ClusterSpec::kMaxFileBytes + 1, ' ');
  EXPECT_THAT([&] { ClusterSpec::FromJsonFile(huge); },
              ThrowsMessage<ValueError>(HasSubstr("is larger than 1024 KiB")));
}

TEST(ClusterSpecTest, MalformedSpecsAreRejectedWithTheReason) {
  EXPECT_THROW(ClusterSpec::FromFlag("ps"), ValueError);
  EXPECT_THROW(ClusterSpec::FromFlag("ps=nohostport"), ValueError);
  EXPECT_THROW(ClusterSpec::FromJson(R"({"ps": "127.0.0.1:1"})"), ValueError);
  EXPECT_THROW(ClusterSpec::FromJson(R"({"ps": ["127.0.0.1:1"]} extra)"), ValueError);
  // A job with no tasks, or named twice, is a mistake no task could serve: refused.
  EXPECT_THROW(ClusterSpec::FromFlag("ps=;worker=127.0.0.1:2"), ValueError);
  EXPECT_THROW(ClusterSpec::FromJson(R"({"ps": []})"), ValueError);
  EXPECT_THROW(ClusterSpec::FromFlag("ps=127.0.0.1:1;ps=127.0.0.1:2"), ValueError);
  EXPECT_THROW(ClusterSpec::FromJson(R"({"ps": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]})"),
               ValueError);
  EXPECT_THAT([&] { ClusterSpec::FromFlag("ps=127.0.0.1:1").task_address("ps", 3); },
              ThrowsMessage<ValueError>(HasSubstr("/job:ps/task:3")));
}

}  // namespace
}  // namespace mts
