// working_directory.h: programs started with `bazel run` work where the user typed it.
//
//   examples and tools   a user's relative path (--checkpoint_dir=run, a FILE argument)
//   working_directory.h  <-- this file: one call at the top of main
//
// `bazel run` starts a program inside Bazel's runfiles tree, not where the command was
// typed, so a relative path would land (or be looked for) deep inside Bazel's output base.
// Bazel says where the user was in BUILD_WORKING_DIRECTORY; a program that takes paths
// changes to it first. Outside `bazel run` the variable is unset and nothing changes.
#ifndef MTS_TOOLS_WORKING_DIRECTORY_H_
#define MTS_TOOLS_WORKING_DIRECTORY_H_

namespace mts {

/// Changes the working directory to BUILD_WORKING_DIRECTORY when `bazel run` set it;
/// returns false (after printing why to stderr) if that directory cannot be entered.
bool EnterBuildWorkingDirectory();

}  // namespace mts

#endif  // MTS_TOOLS_WORKING_DIRECTORY_H_
