// variables.h: state that persists across Session::Run calls: Variable, its initializer,
// Assign/AssignAdd/AssignSub, and the ops that report which variables are set.
//
//   Chief / Worker   the chief runs the init op or restores; a worker waits until
//                    report_uninitialized_variables() comes back empty
//     Session        <-- holds each variable's value; the graph only declares it
//
// A Variable is a handle to four ops: "w" (a VariableV2), "w/initial_value", "w/Assign" and
// "w/read". A session reads an unset variable with FailedPreconditionError("Attempting to
// use uninitialized value w").
//
// Lifecycle: create it while building the graph (it joins the global variables, and the
// trainable ones unless `trainable` is false); run `GlobalVariablesInitializer()` or restore
// in each new session; read `value()`, update with `Assign`/`AssignAdd`/`AssignSub` ops.
//
// Thread safety: a Variable is an immutable handle; updates are serialised per variable by
// the session.
//
// Example:
//   Variable w(Tensor::Zeros(DataType::kFloat, {2, 1}), "w");
//   session.Run(GlobalVariablesInitializer());
//
// TensorFlow: tf.Variable (RefVariable), tf.global_variables_initializer,
// tf.report_uninitialized_variables (tensorflow/python/ops/variables.py, state_ops.py).
#ifndef MTS_SRC_01_SESSION_VARIABLES_H_
#define MTS_SRC_01_SESSION_VARIABLES_H_

#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/tensor.h"

namespace mts {

/// How to make a Variable (TensorFlow's tf.Variable keyword arguments).
struct VariableOptions {
  std::string name = "Variable";  ///< Base name; made unique under the current name scope.
  bool trainable = true;          ///< Also join the trainable-variables collection.
  /// Collections to join; empty means {GraphKeys::kGlobalVariables}.
  std::vector<std::string> collections;
};

/// A handle to a variable declared in a graph.
class Variable {
 public:
  /// A null handle.
  Variable() = default;
  /// Declares a variable whose initializer assigns `initial_value`, which must have a fully
  /// defined static shape. \throws ValueError otherwise.
  explicit Variable(const Output& initial_value, const VariableOptions& options = {});
  /// Declares a variable initialised from a constant.
  explicit Variable(const Tensor& initial_value, const VariableOptions& options = {});
  /// Declares a trainable global variable named `name` initialised from a constant.
  Variable(const Tensor& initial_value, const std::string& name);
  /// Declares a trainable global variable named `name` initialised from `initial_value`.
  Variable(const Output& initial_value, const std::string& name);

  /// The op name, e.g. "dense/w".
  const std::string& name() const;
  /// The VariableV2 op.
  Operation* op() const { return op_; }
  /// The variable's current value, read through "name/read".
  Output value() const { return read_; }
  /// Lets a Variable stand wherever a tensor is expected: `MatMul(x, w)`.
  operator Output() const { return read_; }  // NOLINT(google-explicit-constructor)
  /// The op that assigns the initial value ("name/Assign").
  Operation* initializer() const { return initializer_; }
  /// The initial value tensor.
  Output initial_value() const { return initial_value_; }
  /// The element type.
  DataType dtype() const;
  /// The (fully defined) shape.
  const TensorShape& shape() const;
  /// The graph the variable lives in.
  Graph* graph() const;

  /// An op that sets the variable to `value` and outputs the new value.
  /// \throws ValueError at build time if the shapes differ, TypeError if the dtypes do.
  Output Assign(const Output& value, const std::string& name = "Assign") const;
  /// An op that adds `delta` to the variable and outputs the new value.
  Output AssignAdd(const Output& delta, const std::string& name = "AssignAdd") const;
  /// An op that subtracts `delta` from the variable and outputs the new value.
  Output AssignSub(const Output& delta, const std::string& name = "AssignSub") const;

  /// An op that outputs the variable's value and then adds one to it; once the value has
  /// reached `limit`, a run of it raises OutOfRangeError("Reached limit of <limit>") and
  /// leaves the variable alone. The variable must be an int32 or int64 scalar
  /// (Variable.count_up_to).
  /// \throws TypeError at build time for another dtype, ValueError for a non-scalar.
  Output CountUpTo(int64_t limit, const std::string& name = "CountUpTo") const;

  /// Same variable op.
  bool operator==(const Variable& other) const { return op_ == other.op_; }

 private:
  void Build(const Output& initial_value, const VariableOptions& options);

  Operation* op_ = nullptr;
  Output initial_value_;
  Operation* initializer_ = nullptr;
  Output read_;
};

/// `ref.CountUpTo(limit, name)`, as the free function tf.count_up_to.
Output CountUpTo(const Variable& ref, int64_t limit, const std::string& name = "CountUpTo");

/// A non-trainable variable in the local-variables collection (not saved in checkpoints).
Variable LocalVariable(const Tensor& initial_value, const std::string& name = "Variable");

/// The variables in the global-variables collection of `graph` (default graph if null).
std::vector<Variable> GlobalVariables(Graph* graph = nullptr);
/// The variables in the trainable-variables collection.
std::vector<Variable> TrainableVariables(Graph* graph = nullptr);
/// The variables in the local-variables collection.
std::vector<Variable> LocalVariables(Graph* graph = nullptr);

/// One op that runs the initializers of `variables` (a NoOp if the list is empty).
Operation* VariablesInitializer(const std::vector<Variable>& variables,
                                const std::string& name = "init");
/// Initializer of every global variable of the default graph (tf.global_variables_initializer).
Operation* GlobalVariablesInitializer();
/// Initializer of every local variable of the default graph (tf.local_variables_initializer).
Operation* LocalVariablesInitializer();

/// A bool scalar: is `variable` set in the running session? (tf.is_variable_initialized)
Output IsVariableInitialized(const Variable& variable,
                             const std::string& name = "IsVariableInitialized");

/// A 1-D string tensor naming the variables of `variables` that are not set, in list order;
/// empty when all are. Defaults to global plus local variables of the default graph.
/// This is what a worker polls while it waits for the chief (stage 02).
Output ReportUninitializedVariables(const std::vector<Variable>& variables,
                                    const std::string& name = "report_uninitialized_variables");
/// ReportUninitializedVariables over the global and local variables of the default graph.
Output ReportUninitializedVariables();

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_VARIABLES_H_
