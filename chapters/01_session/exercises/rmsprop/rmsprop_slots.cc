// rmsprop_slots.cc: the RMSPropOptimizer's constructor and slots, given with the exercise
// (they are not part of the task).
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"

namespace mts {

RMSPropOptimizer::RMSPropOptimizer(double learning_rate, double decay, double epsilon,
                                   const std::string& name)
    : Optimizer(name), learning_rate_(learning_rate), decay_(decay), epsilon_(epsilon) {}

void RMSPropOptimizer::CreateSlots(const std::vector<Variable>& vars) {
  // Named after the optimizer, as TensorFlow names them: "w/RMSProp".
  for (const Variable& v : vars) ZerosSlot(v, "rms", name());
}

}  // namespace mts
