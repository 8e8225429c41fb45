// variable_store.h: the variables a parameter server keeps, and how it updates them.
//
//   07_distributed   <-- a Server of job "ps" owns one VariableStore; RemoteSessions of the
//                        chief and the workers read from it and send it their updates
//     Session        the store is itself an mts Session: its variables are VariableV2 ops
//                    of a private graph, its updates are the workers' own update ops
//
// In TensorFlow a parameter server is an ordinary TensorFlow server whose device holds the
// variables, in resource containers that outlive any one client session: the chief's session
// initialises them, the workers' sessions read and update the same values, and a session
// that is re-created finds them still there. Only a restart of the server process loses
// them. This store does the same: variables are created (unset) when first named, keep their
// value across client sessions, and are lost with the process; the incarnation, a random
// number drawn at start, is how a client notices that.
//
// An update is the worker's op itself (Assign, AssignAdd, ApplyGradientDescent, ApplyAdam...)
// re-made in the store's graph over the store's variables, its other inputs fed with the
// values the worker computed, and run by the store's Session with the same kernel. So the
// arithmetic of an update happens here, on the current value, as on a TensorFlow PS.
//
// Requests are untrusted input: every field is checked before it is used, so a damaged or
// hostile message gets an error status, never a crash or an allocation its bytes do not pay
// for (tests/fuzz/ps_message_fuzzer.cc holds the store to that).
//
// Thread safety: Read and Apply may be called concurrently (gRPC's threads do); a request is
// applied atomically with respect to other requests.
//
// TensorFlow: the variables' ResourceMgr containers of a PS task's device
// (tensorflow/core/framework/resource_mgr.h) and the worker service that runs graph
// partitions on it.
#ifndef MTS_SRC_07_DISTRIBUTED_VARIABLE_STORE_H_
#define MTS_SRC_07_DISTRIBUTED_VARIABLE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/07_distributed/parameter_server.pb.h"

namespace mts {

/// A parameter server's variables, kept across client sessions until the process ends.
class VariableStore {
 public:
  /// An empty store with a fresh random incarnation.
  VariableStore();
  VariableStore(const VariableStore&) = delete;
  VariableStore& operator=(const VariableStore&) = delete;

  // [mts:lab-contract-variable-store]
  /// The random number that identifies this store (this server process).
  uint64_t incarnation() const { return incarnation_; }

  /// The values of the requested variables, creating unset ones on first request.
  /// \throws AbortedError if the request was made against another incarnation.
  /// \throws InvalidArgumentError if a variable was declared before with another dtype or
  ///   shape.
  /// \throws DataLossError "the message is damaged" if a variable has no name, an unknown
  ///   dtype or an impossible shape.
  distributed::ReadVariablesResponse Read(const distributed::ReadVariablesRequest& request);

  /// Runs each update, in order, as one atomic batch.
  /// \throws AbortedError if the request was made against another incarnation.
  /// \throws InvalidArgumentError "is not an op that updates variables" if an update names
  ///   an op that does not change variables by reference, or gives it the wrong number of
  ///   variables and inputs: a message can do only what a worker's optimizer could.
  /// \throws NotFoundError if an update names an unknown op type.
  /// \throws DataLossError if an input tensor or attribute is malformed.
  /// \throws OpError as the update op raised it (e.g. FailedPreconditionError for an unset
  ///   variable), naming the worker's op. Updates before the failing one stay applied.
  void Apply(const distributed::ApplyUpdatesRequest& request);
  // [mts:lab-contract-variable-store-end]

  /// How many variables the store holds (set or not).
  int num_variables() const;
  /// How many updates were applied since the store started.
  int64_t num_updates() const;
  /// How many ops the store's graph holds: its variables, and one op plus its placeholders
  /// per kind of update applied. An update that fails to be made adds none.
  int num_graph_ops() const;

 private:
  struct CachedUpdate {
    Operation* op = nullptr;
    std::vector<Output> placeholders;
  };

  void CheckIncarnation(uint64_t requested) const;
  Operation* VariableLocked(const distributed::VariableSpec& spec);
  const CachedUpdate& UpdateOpLocked(const distributed::Update& update,
                                     const std::vector<Tensor>& inputs);
  // `type` in `graph` over `variables` (ops of `graph`), its other inputs placeholders
  // shaped like `inputs`.
  static CachedUpdate MakeUpdateOp(Graph& graph, const std::vector<Operation*>& variables,
                                   const std::vector<Tensor>& inputs, const std::string& type,
                                   const AttrMap& attrs);

  const uint64_t incarnation_;
  mutable std::mutex mu_;
  Graph graph_;                                     // Guarded by mu_ (ops are added under it).
  std::unique_ptr<Session> session_;                // Runs are made under mu_.
  std::map<std::string, Operation*> variables_;     // Guarded by mu_.
  std::map<std::string, CachedUpdate> update_ops_;  // Guarded by mu_; keyed by signature.
  int64_t num_updates_ = 0;                         // Guarded by mu_.
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_VARIABLE_STORE_H_
