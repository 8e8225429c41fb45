// sync_token_queue.h: the queue of tokens that lets the replicas start a synchronous step.
//
//   07_distributed/sync_replicas   SyncReplicasOptimizer: one token queue per job
//     SyncTokenQueue               <-- this file: the resource and its ops
//     SharedResource               where the ops run (the session, or the global step's ps)
//
// A token is a global step value. A worker ends each step by taking one (DequeueToken,
// which waits while the queue is empty) and makes it its local step; the chief puts one per
// replica after each aggregated update (EnqueueTokens), and a few at start, so the first
// step can begin. A queue of int64 scalars, first in, first out, unbounded; its ops may run
// from any thread, and from any worker when the queue lives on a ps.
//
// Example:
//   SyncTokenQueue tokens("sync_token_q");
//   Operation* put = tokens.EnqueueTokens(global_step, 2);
//   Output token = tokens.DequeueToken();
//
// TensorFlow: the FIFOQueue "sync_token_q" with a shared_name that SyncReplicasOptimizer
// makes (tensorflow/python/training/sync_replicas_optimizer.py), filled by enqueue_many of
// array_ops.fill([n], global_step).
#ifndef MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_TOKEN_QUEUE_H_
#define MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_TOKEN_QUEUE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "src/01_session/graph.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"

namespace mts {

/// The tokens of one token queue.
class SyncTokenQueueResource : public SharedResource {
 public:
  /// An empty queue named `name`.
  explicit SyncTokenQueueResource(std::string name);

  /// The resource of a SyncTokenQueue op, in a session that keeps it.
  static std::shared_ptr<ResourceBase> Create(const Operation& owner);
  /// The resource a ps makes for the queue named `name`.
  static std::shared_ptr<SharedResource> CreateShared(const std::string& name,
                                                      const AttrMap& attrs);

  /// Runs EnqueueTokens, DequeueToken or TokenQueueSize (see SharedResource::RunOp).
  std::optional<std::vector<Tensor>> RunOp(const std::string& op_type, const std::string& op_name,
                                           const std::vector<Tensor>& inputs, const AttrMap& attrs,
                                           const WaitLimit& wait) override;

  /// Appends `count` copies of `token`.
  void Enqueue(int64_t token, int64_t count);
  /// Takes the oldest token, waiting for one. \returns std::nullopt if
  /// `wait.max_wait_secs` passed first. \throws CancelledError if the wait was cancelled.
  std::optional<int64_t> Dequeue(const WaitLimit& wait, const std::string& op_name);
  /// How many tokens are queued.
  int32_t Size();
  /// For tests, the seam that replaces sleeping: blocks until at least `n` tokens are
  /// queued. \throws CancelledError if the queue closes first.
  void WaitForSize(int32_t n);

 private:
  const std::string name_;
  std::deque<int64_t> tokens_;  // Guarded by mu_.
};

/// A handle to a SyncTokenQueue op; its methods add the ops that use it.
class SyncTokenQueue {
 public:
  /// Adds the queue op, known to every task as `shared_name`.
  explicit SyncTokenQueue(const std::string& shared_name, const std::string& name = "");

  /// An op appending `count` copies of `token` (an int64 scalar, the global step).
  Operation* EnqueueTokens(const Output& token, int64_t count, const std::string& name = "") const;
  /// The oldest token, waiting for one. A wait longer than `wait_warning_secs` (<= 0:
  /// never) logs `wait_warning`.
  Output DequeueToken(double wait_warning_secs = -1, const std::string& wait_warning = "",
                      const std::string& name = "") const;
  /// An int32 scalar: the tokens queued.
  Output Size(const std::string& name = "") const;

  /// The SyncTokenQueue op.
  Operation* op() const { return op_; }

 private:
  Operation* op_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_TOKEN_QUEUE_H_
