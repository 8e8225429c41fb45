// uninitialized_read: what a brand-new session says when a step reads a variable nobody has
// initialised. Chapter 01 shows this program's output, produced during the book's build.
#include <cstdio>

#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/platform/errors.h"

int main() {
  using namespace mts;
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(1.0f), "w");
  Session session;  // A new session: the graph declares w, the session holds no value yet.
  try {
    session.Run(w.value());
  } catch (const FailedPreconditionError& e) {
    std::printf("FailedPreconditionError: %s\n", e.what());
    return 0;
  }
  std::printf("the read succeeded: it should not have\n");
  return 1;
}
