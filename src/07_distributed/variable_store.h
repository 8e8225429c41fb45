// variable_store.h: the variables a parameter server keeps, and how it updates them.
//
// Stage 07: a Server of job "ps" owns one, itself an mts Session over a private graph.
// Variables are created (unset) when first named, keep their value across client sessions,
// and are lost with the process; its random incarnation is how a client notices. An update
// is the worker's own op (Assign, ApplyAdam, ...) re-made over the store's variables, fed
// the worker's values. Every field of a request is checked before use: damage gets an error
// status, never a crash or an allocation its bytes do not pay for. Read and Apply may be
// called concurrently; a request is applied atomically.
//
// TensorFlow: the ResourceMgr containers of a PS task's device (resource_mgr.h) and the
// worker service that runs on it.
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
