#include "src/platform/logging.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "src/platform/clock.h"

namespace mts {
namespace {

// One lock for stderr and the sink list, so lines never interleave and RemoveLogSink can
// promise that no Send is still running.
std::mutex& LogMutex() {
  static std::mutex* const mu = new std::mutex;
  return *mu;
}

std::vector<LogSink*>& Sinks() {  // Guarded by LogMutex().
  static std::vector<LogSink*>* const sinks = new std::vector<LogSink*>;
  return *sinks;
}

char SeverityLetter(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return 'I';
    case LogSeverity::kWarning:
      return 'W';
    case LogSeverity::kError:
      return 'E';
  }
  return '?';
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string FormatLogLine(const LogEntry& entry) {
  const std::time_t seconds = static_cast<std::time_t>(entry.wall_time_micros / 1000000);
  const long micros = static_cast<long>(entry.wall_time_micros % 1000000);  // NOLINT
  std::tm local;
  localtime_r(&seconds, &local);
  char prefix[64];
  std::snprintf(prefix, sizeof(prefix), "%c%02d%02d %02d:%02d:%02d.%06ld ",
                SeverityLetter(entry.severity), local.tm_mon + 1, local.tm_mday, local.tm_hour,
                local.tm_min, local.tm_sec, micros);
  return prefix + entry.file + ":" + std::to_string(entry.line) + "] " + entry.message;
}

LogSeverity MinLogLevel() {
  static const LogSeverity level = [] {
    const char* value = std::getenv("MTS_MIN_LOG_LEVEL");
    const int number = value == nullptr ? 0 : std::atoi(value);
    return static_cast<LogSeverity>(std::clamp(number, 0, 2));
  }();
  return level;
}

void AddLogSink(LogSink* sink) {
  std::lock_guard<std::mutex> lock(LogMutex());
  Sinks().push_back(sink);
}

void RemoveLogSink(LogSink* sink) {
  std::lock_guard<std::mutex> lock(LogMutex());
  std::vector<LogSink*>& sinks = Sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
}

ScopedLogCapture::ScopedLogCapture() { AddLogSink(this); }

ScopedLogCapture::~ScopedLogCapture() { RemoveLogSink(this); }

std::vector<std::string> ScopedLogCapture::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

bool ScopedLogCapture::Contains(std::string_view text) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(lines_.begin(), lines_.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

void ScopedLogCapture::Send(const LogEntry& entry) {
  std::string line = FormatLogLine(entry);
  std::lock_guard<std::mutex> lock(mu_);
  lines_.push_back(std::move(line));
}

LogMessage::LogMessage(const char* file, int line, LogSeverity severity) {
  entry_.severity = severity;
  entry_.file = std::string(BaseName(file));
  entry_.line = line;
  entry_.wall_time_micros = RealClock()->WallTimeMicros();
}

LogMessage::~LogMessage() {
  entry_.message = stream_.str();
  const std::string line = FormatLogLine(entry_) + "\n";
  std::lock_guard<std::mutex> lock(LogMutex());
  if (entry_.severity >= MinLogLevel()) {
    // One fwrite per line: stderr is unbuffered, so the line reaches the terminal whole.
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  for (LogSink* sink : Sinks()) sink->Send(entry_);
}

}  // namespace mts
