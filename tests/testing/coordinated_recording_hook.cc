#include "tests/testing/coordinated_recording_hook.h"

#include "src/04_coordinated/coordinator.h"

namespace mts {

void CoordinatedRecordingHook::AfterRun(SessionRunContext& run_context,
                                        const SessionRunValues& run_values) {
  // Before RecordingHook's script, which may end by throwing.
  if (coord_stop_in_after_run) coord->RequestStop();
  RecordingHook::AfterRun(run_context, run_values);
}

}  // namespace mts
