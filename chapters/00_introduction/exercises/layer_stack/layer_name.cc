// layer_name.cc: LayerName(), given with the exercise (it is not part of the task).
#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace mts {

std::string_view LayerName(Layer layer) {
  switch (layer) {
    case Layer::kRecoverable:
      return "RecoverableSession";
    case Layer::kCoordinated:
      return "CoordinatedSession";
    case Layer::kHooked:
      return "HookedSession";
    case Layer::kChief:
      return "Chief";
    case Layer::kWorker:
      return "Worker";
  }
  return "?";  // Unreachable for a valid Layer; keeps -Wreturn-type quiet.
}

}  // namespace mts
