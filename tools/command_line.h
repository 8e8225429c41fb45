// command_line.h: a program that takes only flags refuses anything else on its command line.
//
//   examples and tools   train_spirals, train_linear_regression, the campaigns
//   command_line.h       <-- this file: one call in place of absl::ParseCommandLine
//
// absl::ParseCommandLine hands back the arguments that are not flags, and a program that
// ignores them does what the user did not ask: `train_spirals mydir` trained in the default
// /tmp/mts_spirals, saying nothing of mydir. A program that takes no such argument calls
// ParseFlagsOnly instead, which refuses the first one, says what a flag looks like, and
// exits with status 2, the status of every usage error of the examples.
#ifndef MTS_TOOLS_COMMAND_LINE_H_
#define MTS_TOOLS_COMMAND_LINE_H_

namespace mts {

/// absl::ParseCommandLine(argc, argv) (--help prints the flags and exits, an unknown flag
/// exits 1); then, if an argument that is not a flag is left, prints
/// "<program>: unexpected argument 'ARG': this program takes only flags (--name=value)"
/// and "; see --help." (or "; did you mean --HINT=ARG? See --help." when `hint_flag` names
/// the flag a bare argument usually means) to stderr, and exits with status 2.
void ParseFlagsOnly(int argc, char** argv, const char* hint_flag = nullptr);

}  // namespace mts

#endif  // MTS_TOOLS_COMMAND_LINE_H_
