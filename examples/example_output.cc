#include "examples/example_output.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

namespace mts {
namespace {

const char* g_program = "example";
std::atomic<bool> g_stdout_closed{false};

}  // namespace

void SetUpExampleOutput(const char* program) {
  g_program = program;
  // [mts:ignore-pipe-and-file-size]
  ::signal(SIGPIPE, SIG_IGN);  // A closed pipe: EPIPE on the write, not death.
  ::signal(SIGXFSZ, SIG_IGN);  // Past `ulimit -f`: EFBIG on the write, not death.
  // [mts:ignore-pipe-and-file-size-end]
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
}

bool PrintLine(const char* format, ...) {
  if (g_stdout_closed.load()) return false;
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  // Any length: a line the launcher relays may be long (an error naming a long path).
  const int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string line(static_cast<size_t>(std::max(length, 0)) + 1, '\0');
  std::vsnprintf(line.data(), line.size(), format, again);
  va_end(again);
  line.back() = '\n';  // Where vsnprintf put its terminating zero.
  // One write(2) of the whole line, not stdio: stdio may take a line into its buffer,
  // report success and lose the error of the flush that follows.
  std::fflush(stdout);  // Whatever else went through stdio first.
  int err = 0;
  for (size_t done = 0; done < line.size() && err == 0;) {
    const ssize_t n = ::write(STDOUT_FILENO, line.data() + done, line.size() - done);
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno != EINTR) {
      err = errno;
    }
  }
  // Another failure (a full disk under `> file`) loses this line only: training goes on.
  if (err != EPIPE) return true;
  if (!g_stdout_closed.exchange(true)) {
    std::fprintf(stderr,
                 "%s: standard output is closed (%s: its reader, such as head, has exited); "
                 "nothing more is printed there.\n",
                 g_program, std::strerror(err));
  }
  return false;
}

bool StdoutClosed() { return g_stdout_closed.load(); }

}  // namespace mts
