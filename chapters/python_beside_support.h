// python_beside_support.h: what the chapters' python_beside programs share. Each program
// runs the C++ half of its chapter's "TF1 Python beside C++" pairs and checks their results;
// a failed check is reported and counted, so one run names every pair that broke.
#ifndef MTS_CHAPTERS_PYTHON_BESIDE_SUPPORT_H_
#define MTS_CHAPTERS_PYTHON_BESIDE_SUPPORT_H_

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mts {
namespace python_beside {

/// How many checks failed so far in this program.
inline int failures = 0;

/// Reports `what` and counts a failure unless `ok`.
inline void Expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "python_beside: %s\n", what);
    ++failures;
  }
}

/// A fresh directory under the test's scratch space ($TEST_TMPDIR, else /tmp).
inline std::string FreshDir() {
  const char* top = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(top ? top : "/tmp") + "/python_beside.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror("python_beside: mkdtemp");
    std::exit(1);
  }
  return pattern;
}

}  // namespace python_beside
}  // namespace mts

#endif  // MTS_CHAPTERS_PYTHON_BESIDE_SUPPORT_H_
