#include "tools/command_line.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/flags/parse.h"

namespace mts {

void ParseFlagsOnly(int argc, char** argv, const char* hint_flag) {
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() <= 1) return;  // rest[0] is the program.
  const char* slash = std::strrchr(rest[0], '/');
  const char* program = slash != nullptr ? slash + 1 : rest[0];
  std::fprintf(stderr, "%s: unexpected argument '%s': this program takes only flags (--name=value)",
               program, rest[1]);
  if (hint_flag != nullptr) {
    std::fprintf(stderr, "; did you mean --%s=%s? See --help.\n", hint_flag, rest[1]);
  } else {
    std::fprintf(stderr, "; see --help.\n");
  }
  std::exit(2);
}

}  // namespace mts
