// graph.h: a dataflow graph of Operations, with names, collections and the default graph.
//
//   Chief / Worker   (Scaffold finalizes the graph before the session is made)
//     Session        <-- runs a Graph
//
// Lifecycle:
//   1. Build: op functions add Operations to the default graph or to their inputs' graph,
//      named uniquely ("MatMul", "MatMul_1") under the current name scope ("dense/MatMul").
//   2. Declare: models put variables, summaries, queue runners and special ops into
//      collections, where the layers above find them.
//   3. Finalize(): the graph is read-only; an op added after raises.
//   4. Run: any number of Sessions, on any threads, execute it.
//
// Thread safety: adding ops, scopes and collections is guarded by one mutex; Operations are
// immutable once added. Build a graph from one thread.
//
// Example (TensorFlow's `with g.as_default():`):
//   DefaultGraphScope as_default(g);
//   NameScope dense("dense");
//   Output y = MatMul(x, w);        // "dense/MatMul", in g
//
// TensorFlow: tf.Graph, tf.get_default_graph, tf.name_scope, tf.control_dependencies
// (tensorflow/python/framework/ops.py).
#ifndef MTS_SRC_01_SESSION_GRAPH_H_
#define MTS_SRC_01_SESSION_GRAPH_H_

#include <any>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/01_session/graph_keys.h"
#include "src/01_session/op_def.h"
#include "src/01_session/operation.h"

namespace mts {

/// A dataflow graph: Operations, their names, collections, and a finalized flag.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Adds an op of registered `type`. `name` is a base name ("" means the type): it is
  /// prefixed with the current name scope and made unique. The op's shape function checks
  /// the inputs and attributes; current control-dependency scopes add control inputs.
  /// \throws RuntimeError if the graph is finalized; ValueError if an input belongs to
  ///   another graph or the shape function rejects the inputs; TypeError on a dtype mismatch.
  ///   The graph is unchanged after any of these.
  Operation* AddOperation(const std::string& type, const std::string& name,
                          std::vector<Output> inputs, AttrMap attrs = {},
                          std::vector<Operation*> control_inputs = {});

  /// The op named `name`. \throws ValueError naming it if there is none.
  Operation* GetOperationByName(const std::string& name) const;
  /// The tensor named "op:index". \throws ValueError if malformed or absent.
  Output GetTensorByName(const std::string& name) const;
  /// The op named `name`, or nullptr.
  Operation* FindOperation(const std::string& name) const;
  /// Every op, in creation order (a topological order).
  std::vector<Operation*> operations() const;
  /// The number of ops.
  int num_ops() const;

  /// Makes the graph read-only: AddOperation and collection changes raise RuntimeError,
  /// whose message says it was finalized `when` ("when the session was created, by ...";
  /// empty: by a call of Finalize) and where to build ops instead.
  void Finalize(const std::string& when = "");
  /// True after Finalize().
  bool finalized() const;
  /// Makes a finalized graph writable again. Only MonitoredSession calls it, on close, to
  /// leave the graph as it found it (TensorFlow's `_unsafe_unfinalize`): unsafe because
  /// any session still running the graph assumes it no longer changes.
  void UnsafeUnfinalize();

  /// Appends `value` to collection `key` (a variable, an op, a queue runner, a saver...).
  /// \throws RuntimeError if the graph is finalized.
  void AddToCollection(const std::string& key, std::any value);
  /// The items of `key` that hold a T, in insertion order (TensorFlow's get_collection).
  template <typename T>
  std::vector<T> GetCollection(const std::string& key) const {
    std::vector<T> result;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = collections_.find(key);
    if (it == collections_.end()) return result;
    for (const std::any& item : it->second) {
      if (const T* p = std::any_cast<T>(&item)) result.push_back(*p);
    }
    return result;
  }
  /// The number of items in `key`, whatever their type.
  int CollectionSize(const std::string& key) const;
  /// Empties collection `key`. \throws RuntimeError if the graph is finalized.
  void ClearCollection(const std::string& key);
  /// The names of the non-empty collections, sorted.
  std::vector<std::string> collection_keys() const;

  /// The graph-level random seed (TensorFlow's `tf.set_random_seed`); 0 means unset.
  int64_t seed() const;
  /// Sets the graph-level random seed. Ops made afterwards derive their seeds from it.
  void set_seed(int64_t seed);

  /// The current name scope ("" at the root, "outer/dense_1" inside scopes).
  std::string current_name_scope() const;

  /// A name not used yet, derived from `base` under the current scope ("a", "a_1", ...).
  std::string UniqueName(const std::string& base);

 private:
  // Scopes are opened and closed only by their RAII classes, so that every push is paired
  // with its pop even when the code inside the scope throws.
  friend class NameScope;
  friend class ControlDependencies;
  friend class Operation;  // Operation::output asks for its own handle (OperationById).

  // Enters the unique scope made from `name` ("" means the root); returns the scope to
  // restore.
  std::string PushNameScope(const std::string& name);
  void PopNameScope(const std::string& previous);
  void PushControlDependencies(std::vector<Operation*> ops);
  void PopControlDependencies();

  // AddOperation's checks of `inputs` (their number, that each is from this graph) and of
  // `control_inputs`, before anything is changed. \throws ValueError naming op `scoped`.
  void CheckInputs(const OpDef& def, const std::string& type, const std::string& scoped,
                   const std::vector<Output>& inputs,
                   const std::vector<Operation*>& control_inputs) const;
  // The op created `id`-th: the handle this graph, its owner, hands out for it.
  Operation* OperationById(int id) const;

  std::string UniqueNameLocked(const std::string& base);
  void CheckNotFinalizedLocked(const char* what) const;

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Operation>> ops_;                // Guarded by mu_.
  std::unordered_map<std::string, Operation*> ops_by_name_;    // Guarded by mu_.
  std::unordered_map<std::string, int> names_in_use_;          // Guarded by mu_.
  std::map<std::string, std::vector<std::any>> collections_;   // Guarded by mu_.
  std::string name_scope_;                                     // Guarded by mu_.
  std::vector<std::vector<Operation*>> control_dependencies_;  // Guarded by mu_.
  bool finalized_ = false;                                     // Guarded by mu_.
  std::string finalized_when_;                                 // Guarded by mu_.
  int64_t seed_ = 0;                                           // Guarded by mu_.
};

/// This thread's default graph: the innermost DefaultGraphScope's graph, or the process-wide
/// global default graph when no scope is open on this thread.
Graph& GetDefaultGraph();

/// Replaces the global default graph with a new, empty one (TensorFlow's
/// `tf.reset_default_graph`). \throws RuntimeError if called inside a DefaultGraphScope.
/// \pre No other thread uses the old global default graph.
void ResetDefaultGraph();

/// Makes `graph` this thread's default graph until the scope ends (TensorFlow's
/// `with graph.as_default():`). Scopes nest; each thread has its own stack.
class DefaultGraphScope {
 public:
  /// Pushes `graph` on this thread's default-graph stack.
  explicit DefaultGraphScope(Graph& graph);
  /// Pops it.
  ~DefaultGraphScope();
  DefaultGraphScope(const DefaultGraphScope&) = delete;
  DefaultGraphScope& operator=(const DefaultGraphScope&) = delete;
};

/// Opens a name scope in a graph until the scope ends (TensorFlow's `with tf.name_scope(n):`).
/// Ops made inside are named "n/Op"; opening "n" twice gives "n" then "n_1".
class NameScope {
 public:
  /// Opens `name` in the default graph.
  explicit NameScope(const std::string& name);
  /// Opens `name` in `graph`.
  NameScope(Graph& graph, const std::string& name);
  /// Restores the enclosing scope.
  ~NameScope();
  /// The full scope name, e.g. "outer/dense_1".
  const std::string& name() const { return name_; }
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  Graph& graph_;
  std::string previous_;
  std::string name_;
};

/// Adds `ops` as control inputs of every op created until the scope ends (TensorFlow's
/// `with tf.control_dependencies(ops):`).
class ControlDependencies {
 public:
  /// Opens the scope in the graph of the first op (the default graph if `ops` is empty).
  explicit ControlDependencies(std::vector<Operation*> ops);
  /// Closes the scope.
  ~ControlDependencies();
  ControlDependencies(const ControlDependencies&) = delete;
  ControlDependencies& operator=(const ControlDependencies&) = delete;

 private:
  Graph& graph_;
};

/// The graph every input belongs to, or the default graph when there are no inputs.
/// \throws ValueError if the inputs come from different graphs.
Graph& GraphOf(const std::vector<Output>& inputs, const std::string& op_name);

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_GRAPH_H_
