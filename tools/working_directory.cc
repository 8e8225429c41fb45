#include "tools/working_directory.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mts {

bool EnterBuildWorkingDirectory() {
  const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir == nullptr || ::chdir(dir) == 0) return true;
  std::fprintf(stderr, "cannot change to the directory bazel run was started in, %s: %s\n", dir,
               std::strerror(errno));
  return false;
}

}  // namespace mts
