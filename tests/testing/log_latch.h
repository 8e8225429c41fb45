// LogLatch: a test double that waits for a log line instead of sleeping (STYLE.md, "Seams,
// not sleeps"). Used by the tests of waits that log what they wait for.
#ifndef MTS_TESTS_TESTING_LOG_LATCH_H_
#define MTS_TESTS_TESTING_LOG_LATCH_H_

#include <future>
#include <string>
#include <utility>

#include "src/platform/logging.h"

namespace mts {

/// Fulfils a promise the first time a line containing `text` is logged; `Wait` returns that
/// line. Registered as a log sink for its lifetime.
class LogLatch : public LogSink {
 public:
  /// Starts listening for a line containing `text`.
  explicit LogLatch(std::string text) : text_(std::move(text)) { AddLogSink(this); }
  ~LogLatch() override { RemoveLogSink(this); }
  /// Called by the logging library for every line.
  void Send(const LogEntry& entry) override {
    if (!seen_ && entry.message.find(text_) != std::string::npos) {
      seen_ = true;
      promise_.set_value(entry.message);
    }
  }
  /// Blocks until the line is logged and returns it.
  std::string Wait() { return future_.get(); }

 private:
  const std::string text_;
  bool seen_ = false;  // Sinks are called under the logging lock.
  std::promise<std::string> promise_;
  std::future<std::string> future_ = promise_.get_future();
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_LOG_LATCH_H_
