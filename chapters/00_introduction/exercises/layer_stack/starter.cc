// starter.cc: the exercise of chapter 00, to be completed. Write LayerStack() so that
// layer_stack_test passes:
//
//   bazel test --define=exercises=starter \
//       //chapters/00_introduction/exercises/layer_stack:layer_stack_test
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace mts {

std::vector<Layer> LayerStack(const StackOptions& options) {
  std::vector<Layer> stack;
  // [mts:exercise-todo]
  // TODO(student): push the layers a run() call passes through, outermost first.
  // Which layer exists only when options.recoverable is true? Which one depends on
  // options.is_chief?
  // [mts:exercise-todo-end]
  return stack;
}

}  // namespace mts
