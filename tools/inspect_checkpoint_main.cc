// inspect_checkpoint: prints what an mts checkpoint holds and checks every checksum.
//
//   bazel run //tools:inspect_checkpoint -- /tmp/mts_spirals            # newest checkpoint
//   bazel run //tools:inspect_checkpoint -- /tmp/mts_spirals/model.ckpt-1000 --tensor_name=w
//   bazel run //tools:inspect_checkpoint -- /tmp/mts_spirals --all_tensors
//
// Exit status: 0 if every checksum holds; 1 if there is no checkpoint, it is damaged, or the
// tensor asked for is not in it; 2 for a usage error. See tools/inspect_checkpoint.h.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "tools/inspect_checkpoint.h"
#include "tools/working_directory.h"

ABSL_FLAG(std::string, tensor_name, "",
          "Print this tensor's values instead of the list of tensors.");
ABSL_FLAG(bool, all_tensors, false, "Print every tensor's name and values.");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Prints the tensors of an mts checkpoint (name, dtype, shape) and checks every "
      "checksum.\nUsage: inspect_checkpoint FILE_OR_DIRECTORY [--tensor_name=NAME] "
      "[--all_tensors]\nGiven a directory, inspects its newest checkpoint.");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::cerr << "inspect_checkpoint: give one checkpoint file or directory; see --help.\n";
    return 2;
  }
  if (!mts::EnterBuildWorkingDirectory()) return 1;  // Paths are relative to the user.
  mts::InspectCheckpointOptions options;
  options.tensor_name = absl::GetFlag(FLAGS_tensor_name);
  options.all_tensors = absl::GetFlag(FLAGS_all_tensors);
  if (options.all_tensors && !options.tensor_name.empty()) {
    std::cerr << "inspect_checkpoint: --tensor_name and --all_tensors exclude each other.\n";
    return 2;
  }
  std::cout << std::unitbuf;  // Keeps the report in order with the problems on stderr.
  return mts::InspectCheckpoint(args[1], options, std::cout, std::cerr);
}
