// session.h: runs a Graph: the bottom layer every other layer wraps.
//
//   RecoverableSession     re-creates the session when AbortedError/UnavailableError strikes
//     CoordinatedSession   a Coordinator runs queue-runner threads and stops them cleanly
//       HookedSession      calls hooks' before_run/after_run around every run()
//         Chief / Worker   session made by a SessionCreator
//           Session        <-- this file: a Graph of ops on Eigen tensors, variables, Run()
//
// Lifecycle:
//   1. Create on a graph (the default graph when none is given), with no variable values.
//   2. Run(fetches, feeds, targets) any number of times, from any number of threads: each
//      call executes exactly the ops its fetches and targets need, each once, fed tensors
//      replacing whatever would have computed them.
//   3. Close(), or destroy it. A closed session raises on Run.
//
// Thread safety: Run may be called concurrently (variables are updated under their own
// locks); Close may be called from any thread and wakes runs blocked on queues.
//
// Example:
//   Session session;                              // on the default graph
//   Tensor result = session.Run(Mul(Constant(2.0f), Constant(3.0f)));   // 6
//
// TensorFlow: tf.Session (tensorflow/python/client/session.py).
#ifndef MTS_SRC_01_SESSION_SESSION_H_
#define MTS_SRC_01_SESSION_SESSION_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/01_session/execution_plan.h"
#include "src/01_session/graph.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/session_interface.h"
#include "src/01_session/tensor.h"
#include "src/platform/clock.h"

namespace mts {

struct RunDeadline;

/// Options for making a Session (TensorFlow's `target` and `config`).
struct SessionOptions {
  /// "" for in-process execution; stage 07 adds "grpc://host:port".
  std::string target;
  /// Where a traced run (RunOptions::TraceLevel::kFullTrace) reads the time for each op's
  /// NodeExecStats; null: RealClock(). A test hands in a FakeClock to get exact timings.
  Clock* clock = nullptr;
};

/// Runs ops of one Graph and holds the values of its variables.
class Session : public SessionInterface {
 public:
  /// \cond
  // Keeps the convenience overloads visible beside the override (Doxygen would list them
  // twice).
  using SessionInterface::Run;
  /// \endcond

  /// A session on `graph`, or on the default graph when `graph` is null.
  /// \pre The graph outlives the session.
  explicit Session(Graph* graph = nullptr, SessionOptions options = {});
  /// Closes the session; never throws.
  virtual ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // [mts:lab-contract-session-run]
  /// Runs the ops needed for `fetches` and `targets`, with `feeds` replacing tensors, and
  /// writes the fetched values into `*outputs`, one per fetch, in order (what it held
  /// before is dropped; its storage is reused, so a caller that keeps the vector from step
  /// to step allocates nothing for the results at steady state).
  /// \throws RuntimeError if the session is closed or the graph is empty;
  ///   ValueError if a feed or fetch is from another graph or a feed does not fit its tensor;
  ///   an OpError subclass from the first failing op (the message names it). Variable
  ///   updates made by ops that ran before the failure are kept, as in TensorFlow; what
  ///   `*outputs` holds after a throw is unspecified.
  void Run(const std::vector<Output>& fetches, const FeedDict& feeds,
           const std::vector<Operation*>& targets, const RunOptions& options,
           RunMetadata* run_metadata, std::vector<Tensor>* outputs) override;
  /// The same run, returning the fetched values in a new vector. Final: it only calls the
  /// Run above, so a subclass (RemoteSession) overrides that one, and both forms keep
  /// meaning the same run whichever one a caller (or the hooked layer) uses.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) final;
  // [mts:lab-contract-session-run-end]

  /// Releases the session's state and wakes runs blocked on queues. Idempotent; never
  /// throws. Afterwards Run raises RuntimeError("Attempted to use a closed Session.").
  void Close() override;
  /// True after Close().
  bool closed() const { return closed_.load(); }

  /// The graph this session runs.
  Graph* graph() const override { return graph_; }
  /// The target string the session was made with ("" for in-process).
  const std::string& target() const { return options_.target; }
  /// Which processes hold this session's variables, each with its incarnation: "" for an
  /// in-process session, whose variables are its own and start unset. A session on remote
  /// servers (RemoteSession) names each one, e.g. "/job:ps/task:0 at host:2222 (incarnation
  /// 77...)"; two sessions with the same non-empty text see the same variables, which the
  /// servers kept in between. (Beyond TensorFlow: SessionManager uses it to tell a slow
  /// parameter server from a restarted one.)
  virtual std::string variables_incarnation() const { return ""; }
  /// The session's resources (variables' values and other kept state).
  ResourceMgr& resources() { return resources_; }

  /// The number of distinct run signatures planned so far (each is planned once).
  int num_cached_plans() const;

 private:
  // The per-run working memory: the signature key, the fed tensors, one value slot per
  // tensor of the plan and the input pointers into them. Kept between runs (one per run in
  // flight), so a run of a signature already planned allocates nothing of its own.
  struct RunScratch {
    std::string key;
    std::vector<Output> fed;
    std::vector<Tensor> values;
    std::vector<const Tensor*> inputs;
  };
  class ScratchLease;

  std::shared_ptr<const ExecutionPlan> GetOrBuildPlan(const std::string& key,
                                                      const std::vector<Output>& feeds,
                                                      const std::vector<Output>& fetches,
                                                      const std::vector<Operation*>& targets);
  void CheckFeedsAndFetches(const FeedDict& feeds, const std::vector<Output>& fetches,
                            const std::vector<Operation*>& targets) const;
  // `deadline` (null: none) is checked before each op and handed to the kernels.
  void Execute(const ExecutionPlan& plan, RunScratch& scratch, RunMetadata* metadata,
               const RunDeadline* deadline);

  Graph* const graph_;
  const SessionOptions options_;
  Clock* const clock_;  // options_.clock, or RealClock().
  ResourceMgr resources_;
  std::atomic<bool> closed_{false};
  mutable std::mutex plans_mu_;
  // Guarded by plans_mu_. Keyed by the signature's op ids and output indices.
  std::unordered_map<std::string, std::shared_ptr<const ExecutionPlan>> plans_;
  std::mutex scratch_mu_;
  // Guarded by scratch_mu_: the scratch of finished runs, for the next ones.
  std::vector<std::unique_ptr<RunScratch>> free_scratch_;
};

/// Runs `tensor` in `session` and returns its value (TensorFlow's `tensor.eval(session=s)`).
Tensor Eval(const Output& tensor, Session& session, const FeedDict& feeds = {});

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_SESSION_H_
