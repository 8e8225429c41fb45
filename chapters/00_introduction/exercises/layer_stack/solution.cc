// The exercise of chapter 00: LayerStack() and LayersRebuiltAfter(), so that
// layer_stack_test passes. The parts to write lie between the `[mts:lab layer_stack]`
// markers; the comments outside them say what to decide.
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace mts {

// [mts:exercise-todo]
// TODO(student): LayerStack names the layers a run() call passes through, outermost first.
// Decide which layer exists only for one of the two options and which one the other
// option changes. LayersRebuiltAfter names what a failed run() costs: decide which layer
// (if any) catches each kind of failure, and what that layer must throw away and make
// again so that the next run() starts from a sound stack. Is the catching layer rebuilt?
std::vector<Layer> LayerStack(const StackOptions& options) {
  // [mts:lab layer_stack]
  std::vector<Layer> stack;
  // Recovery wraps everything else, because recovering means building all of it anew.
  if (options.recoverable) stack.push_back(Layer::kRecoverable);
  // The coordinator's threads and the hooks are there whether or not anything uses them.
  stack.push_back(Layer::kCoordinated);
  stack.push_back(Layer::kHooked);
  // Only the bottom differs between the chief and a worker: who made the raw session.
  stack.push_back(options.is_chief ? Layer::kChief : Layer::kWorker);
  return stack;
  // [mts:lab-end]
}

std::vector<Layer> LayersRebuiltAfter(const StackOptions& options, RunFailure failure) {
  // [mts:lab layer_stack]
  // Only the recoverable layer catches an error, and only a lost machine: the end of the
  // input is how training ends, and any other error is a bug that a retry would repeat.
  if (!options.recoverable || failure != RunFailure::kPreemption) return {};
  // It keeps the recipe (a creator), not the stack: the raw session may belong to a dead
  // master, and the coordinator's threads and the hooked layer were bound to it, so every
  // layer below is made again. The recoverable layer itself survives; it does the rebuild.
  const std::vector<Layer> stack = LayerStack(options);
  return std::vector<Layer>(stack.begin() + 1, stack.end());
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
