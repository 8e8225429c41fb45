#include "src/03_hooked/hooks/progress_bar_hook.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "src/01_session/training_util.h"
#include "src/platform/errors.h"

namespace mts {

namespace {

constexpr int kBarWidth = 30;

// Only the standard streams have a file descriptor we know; any other stream is a file, a
// string or a pipe as far as we can tell, so it gets plain lines.
bool DetectTerminal(const std::ostream& out) {
  if (&out == &std::cerr || &out == &std::clog) return isatty(STDERR_FILENO) != 0;
  if (&out == &std::cout) return isatty(STDOUT_FILENO) != 0;
  return false;
}

// "0:01:05" for 65 seconds.
std::string FormatDuration(double secs) {
  const int64_t total = static_cast<int64_t>(secs + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  return buf;
}

// Three significant-looking figures without exponents: "1234", "12.3", "0.05".
std::string FormatRate(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), rate >= 100 ? "%.0f" : rate >= 10 ? "%.1f" : "%.2f", rate);
  return buf;
}

}  // namespace

ProgressBarHook::ProgressBarHook(ProgressBarHookOptions options)
    : num_steps_(options.num_steps),
      last_step_(options.last_step),
      out_(options.out != nullptr ? *options.out : std::cerr),
      clock_(options.clock != nullptr ? options.clock : RealClock()),
      is_terminal_(options.is_terminal.value_or(DetectTerminal(out_))),
      timer_(SecondOrStepTimer::EverySecs(is_terminal_ ? kTerminalRefreshSecs : kPlainEverySecs,
                                          clock_)) {
  if (!options.num_steps && !options.last_step) {
    throw ValueError("One of num_steps or last_step must be specified.");
  }
  if (options.num_steps && options.last_step) {
    throw ValueError("Only one of num_steps or last_step can be specified.");
  }
}

void ProgressBarHook::Begin() {
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use ProgressBarHook.");
  global_step_read_ = *read;
  timer_.Reset();
}

void ProgressBarHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  start_step_ = session.Run(global_step_read_).scalar<int64_t>();
  start_secs_ = clock_->NowSeconds();
  if (!last_step_) last_step_ = start_step_ + *num_steps_;  // Once, as StopAtStepHook does.
}

SessionRunArgs ProgressBarHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
}

void ProgressBarHook::AfterRun(SessionRunContext& run_context,
                               const SessionRunValues& run_values) {
  const int64_t step = run_values.results[0].scalar<int64_t>() + 1;
  if (!timer_.ShouldTriggerForStep(step)) return;
  timer_.UpdateLastTriggeredStep(step);
  Draw(step, /*done=*/false);
}

void ProgressBarHook::End(SessionInterface& session) {
  Draw(session.Run(global_step_read_).scalar<int64_t>(), /*done=*/true);
}

void ProgressBarHook::Draw(int64_t step, bool done) {
  const int64_t last = *last_step_;
  const double fraction =
      last > 0 ? std::clamp(static_cast<double>(step) / static_cast<double>(last), 0.0, 1.0)
               : 1.0;
  const int percent = static_cast<int>(fraction * 100);
  const double elapsed = clock_->NowSeconds() - start_secs_;
  const int64_t steps_done = step - start_step_;
  // No rate until some time has passed and some steps are done; then no ETA either.
  std::optional<double> rate;
  if (elapsed > 0 && steps_done > 0) rate = steps_done / elapsed;
  const std::string rate_text = (rate ? FormatRate(*rate) : "--") + " steps/s";
  std::string when;
  if (done) {
    when = "done in " + FormatDuration(elapsed);
  } else {
    when = "ETA " + (rate ? FormatDuration(std::max<int64_t>(last - step, 0) / *rate) : "--");
  }
  const std::string count = std::to_string(step) + "/" + std::to_string(last);

  if (!is_terminal_) {
    out_ << "step " << count << " (" << percent << "%), " << rate_text << ", " << when << "\n";
    out_.flush();
    return;
  }
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string line = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') +
                     "] " + count + "  " + std::to_string(percent) + "%  " + rate_text + "  " +
                     when;
  const size_t size = line.size();
  if (size < last_line_size_) line += std::string(last_line_size_ - size, ' ');
  last_line_size_ = size;
  out_ << '\r' << line;
  if (done) out_ << '\n';
  out_.flush();
}

}  // namespace mts
