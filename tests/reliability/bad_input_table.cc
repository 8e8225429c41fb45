// bad_input_table.cc: prints the bad-input table (bad_inputs.h) as Markdown, for the book.
//
// Every row's action is run and its real error class and message printed, so the book's
// reliability appendix shows what the code answers today, not what someone once wrote down.
// Exits non-zero if a row's answer differs from what the row expects (the test would fail
// too; the book then does not build on a stale table).
#include <iostream>
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

int main() {
  int mismatches = 0;
  std::cout << "| # | stage | what was tried | error class | message |\n"
            << "| --- | --- | --- | --- | --- |\n";
  int n = 0;
  for (const mts::BadInput& row : mts::BadInputs()) {
    const mts::BadInputOutcome outcome = mts::RunBadInput(row);
    if (outcome.error_class != row.expected ||
        outcome.message.find(row.advice) == std::string::npos || !outcome.after_problem.empty()) {
      std::cerr << "bad_input_table: row " << n + 1 << " (" << row.tried << ") answered "
                << outcome.error_class << ": " << outcome.message << outcome.after_problem
                << "\n";
      ++mismatches;
    }
    std::string message = outcome.message;
    if (row.expected == "none") message = message.empty() ? "(handled, nothing logged)" : message;
    std::cout << "| " << ++n << " | " << row.stage << " | " << Cell(row.tried) << " | "
              << (row.expected == "none" ? "none" : "`" + outcome.error_class + "`") << " | "
              << Cell(message) << " |\n";
  }
  return mismatches == 0 ? 0 : 1;
}
