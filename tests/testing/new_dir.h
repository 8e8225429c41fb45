// new_dir.h: a new, empty directory for a test to write in (checkpoints, event files, state
// files), inside the test's own temporary directory.
//
//   a test           writes its files under the directory it is given
//     NewDir         <-- this file: a fresh directory under `::testing::TempDir()`
//       TEST_TMPDIR  the scratch space Bazel gives each test
//
// Every call makes a directory that no earlier call of the process made, "<name>_<n>" with n
// counting the calls, so a test run again (--gtest_repeat) or two tests that pick one name
// never see each other's files. Without a name the directory is named after the running
// test:
//
//   const std::string dir = NewDir("checkpoints");  // <TEST_TMPDIR>/checkpoints_1, created
//   const std::string mine = NewDir();              // <TEST_TMPDIR>/<test name>_2, created
//
// Thread safety: NewDir may be called from several threads at once.
#ifndef MTS_TESTS_TESTING_NEW_DIR_H_
#define MTS_TESTS_TESTING_NEW_DIR_H_

#include <string>

namespace mts {

/// Creates and returns a new, empty directory under GoogleTest's `TempDir()`, named `name` (the
/// running test's name if empty) and "_<n>", n a number no earlier call used.
/// \throws what FileSystem::CreateDirectories throws (a full or read-only disk).
std::string NewDir(const std::string& name = "");

}  // namespace mts

#endif  // MTS_TESTS_TESTING_NEW_DIR_H_
