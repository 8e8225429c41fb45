// starter.cc: the exercise of chapter 00, to be completed. Write LayerStack() and
// LayersRebuiltAfter() so that layer_stack_test passes:
//
//   bazel test --define=exercises=starter //chapters/00_introduction/exercises/layer_stack:all
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace mts {

// [mts:exercise-todo]
// TODO(student): LayerStack names the layers a run() call passes through, outermost first.
// Decide which layer exists only for one of the two options and which one the other
// option changes. LayersRebuiltAfter names what a failed run() costs: decide which layer
// (if any) catches each kind of failure, and what that layer must throw away and make
// again so that the next run() starts from a sound stack. Is the catching layer rebuilt?
std::vector<Layer> LayerStack(const StackOptions& options) { return {}; }

std::vector<Layer> LayersRebuiltAfter(const StackOptions& options, RunFailure failure) {
  return {};
}
// [mts:exercise-todo-end]

}  // namespace mts
