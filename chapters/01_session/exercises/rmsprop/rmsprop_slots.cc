// rmsprop_slots.cc: the RMSPropOptimizer's constructor and slots, given with the exercise
// (they are not part of the task).
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"

namespace mts {

RMSPropOptimizer::RMSPropOptimizer(double learning_rate, double decay, double momentum,
                                   double epsilon, bool centered, const std::string& name)
    : Optimizer(name),
      learning_rate_(learning_rate),
      decay_(decay),
      momentum_(momentum),
      epsilon_(epsilon),
      centered_(centered) {}

void RMSPropOptimizer::CreateSlots(const std::vector<Variable>& vars) {
  // Named after the optimizer, in TensorFlow's order, so the graph makes the names unique
  // as TensorFlow's does: "w/RMSProp", then "w/RMSProp_1", "w/RMSProp_2".
  for (const Variable& v : vars) {
    ZerosSlot(v, "rms", name());
    if (centered_) ZerosSlot(v, "mg", name());
    ZerosSlot(v, "momentum", name());
  }
}

}  // namespace mts
