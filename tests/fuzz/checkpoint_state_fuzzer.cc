// checkpoint_state_fuzzer.cc: libFuzzer target for ParseCheckpointState (checkpoint_state.h).
//
// The promises under test: any text either parses or raises ValueError (nothing else, no
// crash, no hang); and whatever parses survives a round trip: printing it with
// CheckpointStateToText and parsing that gives the same state back.
//
// Build and run: tools/fuzz.sh (see tests/fuzz/README.md).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"

namespace {

// NaN never equals itself, so a state holding one cannot be compared with ==.
bool HasNaN(const mts::CheckpointState& state) {
  if (std::isnan(state.last_preserved_timestamp)) return true;
  for (double t : state.all_model_checkpoint_timestamps) {
    if (std::isnan(t)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mts::CheckpointState state;
  try {
    state = mts::ParseCheckpointState(text);
  } catch (const mts::ValueError&) {
    return 0;  // The documented answer to text that is not a CheckpointState.
  }
  // What was accepted must print as text that means the same thing.
  const mts::CheckpointState again = mts::ParseCheckpointState(mts::CheckpointStateToText(state));
  if (!HasNaN(state) && again != state) __builtin_trap();
  return 0;
}
