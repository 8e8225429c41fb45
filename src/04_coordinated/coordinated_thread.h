// coordinated_thread.h: a named thread that can say whether it is still running, the kind
// of thread a Coordinator joins.
//
// Beside the stack: the CoordinatedSession's Coordinator joins these threads (queue
// runners, loopers) at Close().
//
// Lifecycle:
//   1. Construct with a name and a body; nothing runs yet (IsAlive() is false).
//   2. Start() once: the body runs on a new OS thread; IsAlive() is true from now on.
//   3. The body returns or throws (the exception is logged and dropped). Its captures are
//      destroyed, then IsAlive() turns false and exit observers (a waiting Join) are told.
//   4. Join() waits for the OS thread.
//   5. The destructor joins a finished thread and *detaches* one still running, with a
//      warning; the body must then own what it uses (shared_ptr captures).
//
// Thread safety: every method may be called from any thread, except Join() from the
// thread itself.
//
// Example:
//   auto reader = std::make_shared<CoordinatedThread>("reader", [&coord] {
//     coord.StopOnException([&] { while (!coord.ShouldStop()) ReadOneRecord(); });
//   });
//   reader->Start();
//
// TensorFlow: a daemon threading.Thread, as tf.train.Coordinator.join receives it.
#ifndef MTS_SRC_04_COORDINATED_COORDINATED_THREAD_H_
#define MTS_SRC_04_COORDINATED_COORDINATED_THREAD_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mts {

/// A named OS thread whose liveness can be polled; what a Coordinator joins.
class CoordinatedThread {
 public:
  /// A thread called `name` that will run `body` once started. \pre `body` is callable.
  CoordinatedThread(std::string name, std::function<void()> body);

  /// Joins the thread if its body has finished; detaches it (logging a warning) if it is
  /// still running. Never blocks on a running body, never throws.
  virtual ~CoordinatedThread();

  CoordinatedThread(const CoordinatedThread&) = delete;
  CoordinatedThread& operator=(const CoordinatedThread&) = delete;

  /// Starts the body on a new OS thread. IsAlive() is true when this returns.
  /// \throws RuntimeError "threads can only be started once" on a second call.
  /// \throws std::system_error if the OS cannot create a thread; nothing started then.
  void Start();

  /// True from Start() until the body has returned or thrown (and its captures have been
  /// destroyed). False before Start().
  bool IsAlive() const;

  /// Blocks until the body has finished and the OS thread has ended. Does nothing if the
  /// thread was never started or is already joined. \pre Not called from this thread.
  void Join();

  /// The name given at construction, used when the Coordinator reports a straggler.
  const std::string& name() const;

  /// Asks for `on_exit` to be called, on this thread, right after IsAlive() turns false.
  /// Not called if the body has already finished. \returns an id for RemoveExitObserver.
  /// `on_exit` must be quick, must not throw, and must not call back into this object.
  int AddExitObserver(std::function<void()> on_exit);

  /// Forgets the observer `id`. Once this returns, that observer is not running and will
  /// not run.
  void RemoveExitObserver(int id);

 private:
  // What the running thread shares with this object; it outlives a detached thread's owner.
  struct State;
  // What the OS thread runs: the body, then the bookkeeping that says it has ended.
  static void Run(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
  std::mutex join_mu_;   // Serialises Start, Join and the destructor.
  std::thread thread_;   // Guarded by join_mu_.
  bool started_ = false; // Guarded by join_mu_.
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_COORDINATED_THREAD_H_
