// bad_input_table.cc: prints the bad-input table (bad_inputs.h) as Markdown, for the book.
//
// Every row's action is run and its real error class and message printed, so the book's
// reliability appendix shows what the code answers today, not what someone once wrote down.
// Exits non-zero if a row's answer differs from what the row expects (the test would fail
// too; the book then does not build on a stale table).
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <iostream>
#include <regex>
#include <string>

#include "tests/reliability/bad_inputs.h"

namespace {

// A table cell: the text on one line, with the characters Markdown tables care about escaped.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else if (c == '`') {
      out += "'";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

// `text` with every occurrence of the rows' temporary directory shown as "$TMP", the free
// ports the stage 07 rows get from the kernel (five digits on 127.0.0.1) as "$PORT", a
// parameter server's random incarnation as "N", the time, host and writer's pid in an event
// file's name as "$TIME", "$HOST" and "$PID", the holder of a directory lock by the same,
// and each log line reduced to its severity letter and message (no time stamp), so the table
// is the same from one build to the next.
std::string Stable(std::string text, const std::string& tmp) {
  for (size_t at = text.find(tmp); at != std::string::npos; at = text.find(tmp, at)) {
    text.replace(at, tmp.size(), "$TMP");
  }
  text = std::regex_replace(text, std::regex(R"(127\.0\.0\.1:[0-9]{5})"), "127.0.0.1:$$PORT");
  text = std::regex_replace(text, std::regex("incarnation [0-9]+"), "incarnation N");
  // An event file's name: its second, the host, and the pid of a second writer that second.
  text = std::regex_replace(text, std::regex(R"(tfevents\.[0-9]+\.([^ /]+?)\.[0-9]+\.([0-9]+))"),
                            "tfevents.$$TIME.$$HOST.$$PID.$2");
  text = std::regex_replace(text, std::regex(R"(tfevents\.[0-9]+\.[^ /;]+)"),
                            "tfevents.$$TIME.$$HOST");
  // Who holds a directory lock: pid, host, program and since when.
  text = std::regex_replace(text,
                            std::regex(R"(pid [0-9]+ on host [^ ]+ \([^)]*\), since [-0-9]+ [:0-9]+ UTC)"),
                            "pid $$PID on host $$HOST ($$PROGRAM), since $$DATE");
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t bracket = line.find("] ");
    if (line.size() > 1 && std::strchr("IWE", line[0]) != nullptr && bracket != std::string::npos &&
        std::isdigit(static_cast<unsigned char>(line[1]))) {
      line = line.substr(0, 1) + ": " + line.substr(bracket + 2);
    }
    out += (out.empty() ? "" : "\n") + line;
    start = end + 1;
  }
  return out;
}

int main() {
  // The rows log as they run (restores, retries); the table alone goes to stdout, and the
  // log to /dev/null, so no log line lands inside the table. Mismatches go to the real stderr.
  const int saved_stderr = ::dup(2);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  ::dup2(null_fd, 2);
  const std::string tmp = mts::FreshDir("");
  int mismatches = 0;
  std::cout << "| # | stage | what was tried | error class | message |\n"
            << "| --- | --- | --- | --- | --- |\n";
  int n = 0;
  for (const mts::BadInput& row : mts::BadInputs()) {
    const mts::BadInputOutcome outcome = mts::RunBadInput(row);
    if (outcome.error_class != row.expected ||
        outcome.message.find(row.advice) == std::string::npos || !outcome.after_problem.empty()) {
      ::dup2(saved_stderr, 2);
      std::cerr << "bad_input_table: row " << n + 1 << " (" << row.tried << ") answered "
                << outcome.error_class << ": " << outcome.message << outcome.after_problem << "\n";
      ++mismatches;
      ::dup2(null_fd, 2);
    }
    std::string message = Stable(outcome.message, tmp);
    if (row.expected == "none") message = message.empty() ? "(handled, nothing logged)" : message;
    std::cout << "| " << ++n << " | " << row.stage << " | " << Cell(row.tried) << " | "
              << (row.expected == "none" ? "none" : "`" + outcome.error_class + "`") << " | "
              << Cell(message) << " |\n";
  }
  return mismatches == 0 ? 0 : 1;
}
