// solution.cc: the reference solution to the exercise of chapter 00. The student copy
// (tools/export_student_copy.sh) leaves this file out.
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace mts {

std::vector<Layer> LayerStack(const StackOptions& options) {
  std::vector<Layer> stack;
  // Recovery wraps everything else, because recovering means building all of it anew.
  if (options.recoverable) stack.push_back(Layer::kRecoverable);
  // The coordinator's threads and the hooks are there whether or not anything uses them.
  stack.push_back(Layer::kCoordinated);
  stack.push_back(Layer::kHooked);
  // Only the bottom differs between the chief and a worker: who made the raw session.
  stack.push_back(options.is_chief ? Layer::kChief : Layer::kWorker);
  return stack;
}

}  // namespace mts
