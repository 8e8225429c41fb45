// example_output.h: how the example programs print, so that a closed pipe or a file-size
// limit costs their output, never their training.
//
//   examples/train_spirals, train_linear_regression, distributed_spirals
//     example_output.h  <-- this file: the signals Python ignores, and printing that
//                           notices when nobody reads any more
//
// `train_spirals | head -3`: once head has its three lines it exits, and the next write
// to the pipe raises SIGPIPE, whose default action kills the program on the spot: no final
// checkpoint, the event file's buffered records lost. A file-size limit (`ulimit -f`) does
// the same through SIGXFSZ. Python ignores both signals when it starts, so a TensorFlow 1
// program gets an error on the write instead (BrokenPipeError, EFBIG); these programs do
// the same with IgnorePipeAndFileSizeSignals() at the top of main. A write to the closed
// pipe then fails with EPIPE: PrintLine says so on stderr, once, and returns false, and the
// program asks its training loop to stop cleanly, as SIGTERM would
// (SignalStopHook::RequestStopForClosedStdout), so the final checkpoint is written and the
// events flushed.
//
// Thread safety: PrintLine may be called from any thread; a line goes out in one write(2).
#ifndef MTS_EXAMPLES_EXAMPLE_OUTPUT_H_
#define MTS_EXAMPLES_EXAMPLE_OUTPUT_H_

namespace mts {

/// Ignores SIGPIPE and SIGXFSZ for the rest of the process, as Python does at start-up, and
/// makes stdout line-buffered (each line shows at once, even in a pipe, also what is printed
/// without PrintLine). `program` names the program in PrintLine's message. Call it first in
/// main.
void SetUpExampleOutput(const char* program);

/// Prints one line (printf's `format`, a newline is added) to stdout and flushes it. Returns
/// false once stdout is found closed (a write failed with EPIPE: the pipe's reader has
/// exited), and from then on prints nothing; the first time, says so on stderr. Any other
/// failure loses the line only, and returns true.
bool PrintLine(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// True once a PrintLine found stdout closed.
bool StdoutClosed();

}  // namespace mts

#endif  // MTS_EXAMPLES_EXAMPLE_OUTPUT_H_
