// inspect_events: what a log directory's event files hold, tag by tag, without TensorBoard.
//
//   bazel run //tools:inspect_events -- /tmp/mts_spirals
//   bazel run //tools:inspect_events -- /tmp/mts_spirals/events.out.tfevents.1700000000.host
//
// Exit status: 0 when the files were read, even if one is damaged or cut short (that is
// reported); 1 if there is no such directory or no event file in it; 2 for a usage error.
// See tools/inspect_events.h.
#include <cstdlib>
#include <iostream>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "src/platform/errors.h"
#include "tools/inspect_events.h"
#include "tools/working_directory.h"

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Prints what the TensorBoard event files of a log directory hold: per tag its kind, "
      "number of values, first and last step; the session logs; damaged files.\n"
      "Usage: inspect_events LOG_DIRECTORY_OR_EVENT_FILE");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::cerr << "inspect_events: give one log directory (or event file); see --help.\n";
    return 2;
  }
  if (!mts::EnterBuildWorkingDirectory()) return 1;  // Paths are relative to the user.
  try {
    mts::PrintEventStatistics(mts::CollectEventStatistics(args[1]), std::cout);
    return 0;
  } catch (const mts::OpError& e) {
    std::cerr << "inspect_events: " << e.what() << "\n";
    return 1;
  }
}
