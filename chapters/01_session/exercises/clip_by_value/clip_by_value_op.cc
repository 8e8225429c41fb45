// The given half of the ClipByValue exercise: registration and builder.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"

namespace mts {

namespace {
const OpRegistration clip_by_value_op({"ClipByValue", ClipByValueShape, ClipByValueKernel});
}  // namespace

Output ClipByValue(const Output& t, const Output& clip_min, const Output& clip_max,
                   const std::string& name) {
  return GraphOf({t, clip_min, clip_max}, name)
      .AddOperation("ClipByValue", name, {t, clip_min, clip_max})
      ->output(0);
}

}  // namespace mts
