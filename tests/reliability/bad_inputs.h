// bad_inputs.h: the table of bad inputs: what a user can get wrong, and what mts answers.
//
//   every stage (01 Session ... 07 distributed) and the platform seams below them
//   bad_inputs.h  <-- this file: one row per mistake, each with a runnable action
//                            (rows: bad_inputs.cc for 01 to 05, then
//                            bad_inputs_monitored_distributed.cc for 06 and 07, then
//                            bad_inputs_examples.cc for the example programs)
//   bad_input_test.cc        runs every row: the right error class, a message saying what
//                            to do, and no crash, hang or lost checkpoint
//   bad_input_table.cc       prints the same rows as the book's reliability appendix
//
// A training job meets wrong dtypes, missing directories, damaged files, full disks and
// hooks that throw. The promise: each is reported as an exception of a documented class,
// whose message names what is at fault and says what to do; none crashes the process,
// hangs it, or costs a checkpoint. Each row below is that promise for one input, and the
// book's table is printed from the same rows, running each action, so the messages it
// shows are the ones the code really produces.
#ifndef MTS_TESTS_RELIABILITY_BAD_INPUTS_H_
#define MTS_TESTS_RELIABILITY_BAD_INPUTS_H_

#include <functional>
#include <string>
#include <vector>

namespace mts {

/// One bad input and the answer it must get.
struct BadInput {
  /// The stage whose API is misused: "01" ... "07", "platform", or "examples" (a program
  /// run as a user runs it).
  std::string stage;
  /// What was tried, in a few words ("a feed of the wrong dtype").
  std::string tried;
  /// The exception class expected, as named in errors.h ("InvalidArgumentError"), or
  /// "none" when the input is handled without an error (a repeated Close, a damaged
  /// checkpoint with a sound one before it); for a program, how it must end ("exit 2",
  /// "killed by SIGTERM").
  std::string expected;
  /// Text the message (or, for "none", the log) must contain: the part that says what to do.
  std::string advice;
  /// Builds what it needs in a fresh graph and directory, then does the bad thing. Throws
  /// the expected exception (or returns, for "none").
  std::function<void()> action;
  /// Checked after the action, whatever it threw: nothing was lost (a checkpoint, a state
  /// file). Returns "" when all is well, else what went wrong. May be empty.
  std::function<std::string()> after = nullptr;
};

/// What running one row produced.
struct BadInputOutcome {
  /// The class of the exception thrown ("none" if none), or how a program ended.
  std::string error_class;
  /// Its what() (for "none": the lines logged during the action, joined).
  std::string message;
  /// The `after` check's complaint, "" if none.
  std::string after_problem;
};

/// Every row, in stage order: 01 to 05 and the platform, then 06 and 07.
const std::vector<BadInput>& BadInputs();

/// Runs `row`'s action in a fresh temporary directory and reports what it threw.
BadInputOutcome RunBadInput(const BadInput& row);

/// A fresh, empty directory under the test's temporary directory, for one row.
std::string FreshDir(const std::string& name);

}  // namespace mts

#endif  // MTS_TESTS_RELIABILITY_BAD_INPUTS_H_
