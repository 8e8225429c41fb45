// coordinated_recording_hook.h: a RecordingHook that can also stop the Coordinator it was
// given, for the tests of stage 04 and above.
//
//   MonitoredSession             a stop on the Coordinator makes ShouldStop true
//     CoordinatedSession         hands its Coordinator to AfterCreateSession
//       HookedSession
//         CoordinatedRecordingHook   <-- this double: in AfterRun, Coordinator::RequestStop
//
// RecordingHook stays at stage 03 so that a HookedSession test builds no Coordinator; the one
// call that needs stage 04 lives here.
//
// Thread safety: as RecordingHook's.
//
// TensorFlow: monitored_session_test.py's hooks stop the coordinator by hand
// (`self.coord.request_stop()`) where this one is told to.
#ifndef MTS_TESTS_TESTING_COORDINATED_RECORDING_HOOK_H_
#define MTS_TESTS_TESTING_COORDINATED_RECORDING_HOOK_H_

#include "tests/testing/recording_hook.h"

namespace mts {

/// A RecordingHook whose AfterRun may also request a stop of its Coordinator.
class CoordinatedRecordingHook : public RecordingHook {
 public:
  using RecordingHook::RecordingHook;

  /// Requests a stop of the Coordinator AfterCreateSession was given, if
  /// coord_stop_in_after_run; then does what RecordingHook::AfterRun does.
  /// \pre AfterCreateSession was given a Coordinator, if coord_stop_in_after_run.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// AfterRun requests a stop of the Coordinator AfterCreateSession was given.
  bool coord_stop_in_after_run = false;
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_COORDINATED_RECORDING_HOOK_H_
