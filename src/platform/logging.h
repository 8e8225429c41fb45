// logging.h: MTS_LOG(INFO) << ..., one line per message, in TensorFlow's (glog's) format.
//
// Platform, below every stage. A line on stderr looks like
//   I1130 15:04:05.123456 basic_session_run_hooks.cc:42] loss = 0.25, step = 100
// MTS_MIN_LOG_LEVEL (0 = INFO, the default; 1 = WARNING; 2 = ERROR) silences lower levels on
// stderr, like TF_CPP_MIN_LOG_LEVEL, but not in sinks: a ScopedLogCapture sees every
// message. Thread safety: log from any thread; lines never interleave; sinks are called
// one message at a time, under a lock, and must not log.
//
// Example (a test): ScopedLogCapture capture; ...; EXPECT_TRUE(capture.Contains("loss ="));
//
// TensorFlow: tensorflow/core/platform/default/logging.h; Python's tf.compat.v1.logging.
#ifndef MTS_SRC_PLATFORM_LOGGING_H_
#define MTS_SRC_PLATFORM_LOGGING_H_

#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace mts {

/// How serious a message is; the numbers are MTS_MIN_LOG_LEVEL's.
enum class LogSeverity { kInfo = 0, kWarning = 1, kError = 2 };

/// One logged message, as sinks receive it.
struct LogEntry {
  LogSeverity severity = LogSeverity::kInfo;  ///< Its level.
  std::string file;                           ///< The source file's base name ("saver.cc").
  int line = 0;                               ///< The source line.
  int64_t wall_time_micros = 0;               ///< When it was logged, since the epoch.
  std::string message;                        ///< The text, without a trailing newline.
};

/// The entry as one line in glog's format, without a newline:
/// "I1130 15:04:05.123456 saver.cc:42] message" (local time).
std::string FormatLogLine(const LogEntry& entry);

/// The level below which stderr stays quiet: MTS_MIN_LOG_LEVEL, read once (default kInfo;
/// an unreadable value counts as 0, a value above 2 as 2).
LogSeverity MinLogLevel();

/// Receives every logged message, whatever MinLogLevel() says.
class LogSink {
 public:
  virtual ~LogSink() = default;
  /// Called once per message, with a lock held: must not log, should be quick.
  virtual void Send(const LogEntry& entry) = 0;
};

/// Starts sending messages to `sink`. \pre `sink` stays alive until RemoveLogSink(sink).
void AddLogSink(LogSink* sink);
/// Stops sending messages to `sink`; once this returns, no call to `sink` is in progress.
void RemoveLogSink(LogSink* sink);

/// For tests: records, as formatted lines, every message logged (by any thread) while it
/// is alive. Thread-safe.
class ScopedLogCapture : public LogSink {
 public:
  /// Starts capturing.
  ScopedLogCapture();
  /// Stops capturing.
  ~ScopedLogCapture() override;

  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  /// The lines captured so far, in the order they were logged, formatted by FormatLogLine.
  std::vector<std::string> lines() const;
  /// Whether some captured line contains `text`.
  bool Contains(std::string_view text) const;

  /// LogSink: records the entry.
  void Send(const LogEntry& entry) override;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;  // Guarded by mu_.
};

/// One message being built: MTS_LOG makes a temporary, `<<` fills it, the destructor sends it
/// to stderr (at or above MinLogLevel()) and to every sink.
class LogMessage {
 public:
  /// Starts a message logged from `file`:`line`.
  LogMessage(const char* file, int line, LogSeverity severity);
  /// Sends the message.
  ~LogMessage();

  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;

  /// Where `<<` writes the message text.
  std::ostream& stream() { return stream_; }

 private:
  LogEntry entry_;
  std::ostringstream stream_;
};

}  // namespace mts

/// Logs one line: MTS_LOG(INFO) << "step " << step; also WARNING and ERROR.
#define MTS_LOG(severity) MTS_LOG_##severity
#define MTS_LOG_INFO ::mts::LogMessage(__FILE__, __LINE__, ::mts::LogSeverity::kInfo).stream()
#define MTS_LOG_WARNING ::mts::LogMessage(__FILE__, __LINE__, ::mts::LogSeverity::kWarning).stream()
#define MTS_LOG_ERROR ::mts::LogMessage(__FILE__, __LINE__, ::mts::LogSeverity::kError).stream()

#endif  // MTS_SRC_PLATFORM_LOGGING_H_
