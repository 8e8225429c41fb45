// session_creator.h: the one thing every layer asks of the layer below: "make me a session".
//
//   RecoverableSession     holds a creator and calls it again after every preemption
//     CoordinatedSession   its creator wraps the one below and starts the queue runners
//       HookedSession      its creator wraps the one below and calls after_create_session
//         Chief / Worker   <-- this file: the interface; chief_session_creator.h and
//                              worker_session_creator.h implement it at the bottom
//           Session
//
// Lifecycle: construct with whatever the session needs; call CreateSession() once per
// (re)creation; each call returns a new, ready session owned by the caller.
//
// Thread safety: implementations need not support concurrent CreateSession() calls; the
// stack calls it from one thread at a time.
//
// TensorFlow: SessionCreator (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_SESSION_CREATOR_H_
#define MTS_SRC_02_CHIEF_WORKER_SESSION_CREATOR_H_

#include <memory>

#include "src/01_session/session_interface.h"

namespace mts {

/// Makes a new, ready session each time it is asked (TensorFlow's SessionCreator).
class SessionCreator {
 public:
  virtual ~SessionCreator() = default;

  /// A new session whose model is ready to run; the caller owns it.
  /// \throws OpError or RuntimeError as making it ready raises them; nothing is left open.
  virtual std::unique_ptr<SessionInterface> CreateSession() = 0;
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_SESSION_CREATOR_H_
