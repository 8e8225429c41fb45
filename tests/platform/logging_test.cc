// Tests of logging.h: glog's line format, the three levels, and ScopedLogCapture, which later
// stages' tests use to check what TensorFlow would have logged.
#include "src/platform/logging.h"

#include <ctime>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// A captured line has glog's shape: level letter, date, time to the microsecond, file:line.
TEST(LoggingTest, LineHasGlogFormat) {
  ScopedLogCapture capture;
  MTS_LOG(INFO) << "loss = " << 0.25 << ", step = " << 100;
  ASSERT_THAT(capture.lines(), SizeIs(1));
  const std::regex glog(
      R"(I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} logging_test\.cc:\d+\] loss = 0\.25, step = 100)");
  EXPECT_TRUE(std::regex_match(capture.lines()[0], glog)) << capture.lines()[0];
}

// FormatLogLine of a known entry, field by field (the date and time are local, as in glog).
TEST(LoggingTest, FormatLogLineOfAKnownEntry) {
  LogEntry entry;
  entry.severity = LogSeverity::kWarning;
  entry.file = "saver.cc";
  entry.line = 42;
  entry.wall_time_micros = int64_t{1606748645} * 1000000 + 123456;
  entry.message = "checkpoint missing";
  const std::time_t seconds = 1606748645;
  std::tm local;
  localtime_r(&seconds, &local);
  char expected[96];
  std::snprintf(expected, sizeof(expected), "W%02d%02d %02d:%02d:%02d.123456 saver.cc:42] %s",
                local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
                "checkpoint missing");
  EXPECT_EQ(FormatLogLine(entry), expected);
}

// Each level has its letter; a capture sees all of them, in order.
TEST(LoggingTest, CaptureSeesEveryLevelInOrder) {
  ScopedLogCapture capture;
  MTS_LOG(INFO) << "one";
  MTS_LOG(WARNING) << "two";
  MTS_LOG(ERROR) << "three";
  const std::vector<std::string> lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_EQ(lines[0][0], 'I');
  EXPECT_EQ(lines[1][0], 'W');
  EXPECT_EQ(lines[2][0], 'E');
  EXPECT_THAT(lines[2], HasSubstr("] three"));
  EXPECT_TRUE(capture.Contains("two"));
  EXPECT_FALSE(capture.Contains("four"));
}

// A capture records only what is logged while it is alive; nested captures both record.
TEST(LoggingTest, CaptureCoversOnlyItsLifetime) {
  MTS_LOG(INFO) << "before";
  ScopedLogCapture outer;
  {
    ScopedLogCapture inner;
    MTS_LOG(INFO) << "during";
    EXPECT_THAT(inner.lines(), SizeIs(1));
  }
  MTS_LOG(INFO) << "after";
  ASSERT_THAT(outer.lines(), SizeIs(2));
  EXPECT_THAT(outer.lines()[0], HasSubstr("] during"));
  EXPECT_THAT(outer.lines()[1], HasSubstr("] after"));
}

// Lines logged by many threads at once arrive whole, every one of them.
TEST(LoggingTest, CaptureCollectsWholeLinesFromManyThreads) {
  constexpr int kThreads = 4;
  constexpr int kLinesEach = 50;
  ScopedLogCapture capture;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kLinesEach; ++i) MTS_LOG(INFO) << "thread " << t << " line " << i;
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<std::string> lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(kThreads * kLinesEach));
  const std::regex whole(R"(I.*\] thread \d line \d+)");
  for (const std::string& line : lines) EXPECT_TRUE(std::regex_match(line, whole)) << line;
}

// With MTS_MIN_LOG_LEVEL unset, every level reaches stderr, one line per message.
TEST(LoggingTest, EveryLevelReachesStderrByDefault) {
  ASSERT_EQ(MinLogLevel(), LogSeverity::kInfo) << "run without MTS_MIN_LOG_LEVEL";
  ::testing::internal::CaptureStderr();
  MTS_LOG(INFO) << "to stderr";
  MTS_LOG(ERROR) << "also to stderr";
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("] to stderr\n"));
  EXPECT_THAT(err, HasSubstr("] also to stderr\n"));
}

}  // namespace
}  // namespace mts
