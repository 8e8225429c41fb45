// Tests of logging.h's MTS_MIN_LOG_LEVEL, run with MTS_MIN_LOG_LEVEL=2 (see BUILD): stderr
// shows only errors, while a ScopedLogCapture still sees everything.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

// MTS_MIN_LOG_LEVEL=2 means ERROR.
TEST(LoggingMinLevelTest, ReadsTheEnvironment) { EXPECT_EQ(MinLogLevel(), LogSeverity::kError); }

// Below the minimum level nothing reaches stderr; at it, the line does.
TEST(LoggingMinLevelTest, StderrShowsOnlyMessagesAtOrAboveTheMinimum) {
  ::testing::internal::CaptureStderr();
  MTS_LOG(INFO) << "quiet info";
  MTS_LOG(WARNING) << "quiet warning";
  MTS_LOG(ERROR) << "loud error";
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, Not(HasSubstr("quiet")));
  EXPECT_THAT(err, HasSubstr("] loud error\n"));
}

// A capture is not filtered: tests can assert on INFO lines whatever the environment says.
TEST(LoggingMinLevelTest, CaptureStillSeesEveryLevel) {
  ScopedLogCapture capture;
  MTS_LOG(INFO) << "info";
  MTS_LOG(WARNING) << "warning";
  MTS_LOG(ERROR) << "error";
  EXPECT_THAT(capture.lines(), SizeIs(3));
}

}  // namespace
}  // namespace mts
