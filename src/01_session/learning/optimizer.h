// optimizer.h: the base of every optimizer: gradients, slots, and the one train op.
//
// Stage 01 (learning): the Session runs the train op, one step per Run. `Minimize(loss,
// global_step)` is ComputeGradients (Gradients over the trainable variables) then
// ApplyGradients (one update op per variable, ApplyDense, grouped by Finish, then
// global_step += 1). An optimizer's state lives in *slot* variables ("w/Momentum",
// "w/Adam"), ordinary global variables the Saver checkpoints.
//
// Lifecycle: construct with hyperparameters; call Minimize once while building the graph
// (one graph per Optimizer); run the returned op each step. Thread safety: build from one
// thread; the train op itself may run concurrently.
//
// TensorFlow: tf.train.Optimizer (tensorflow/python/training/optimizer.py).
#ifndef MTS_SRC_01_SESSION_OPTIMIZER_H_
#define MTS_SRC_01_SESSION_OPTIMIZER_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/variables.h"

namespace mts {

/// A gradient and the variable it belongs to.
using GradAndVar = std::pair<Output, Variable>;

/// Base class of GradientDescentOptimizer, MomentumOptimizer and AdamOptimizer.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Gradients of `loss` with respect to `var_list` (default: the trainable variables of the
  /// loss's graph). A variable the loss does not depend on gets a null gradient.
  /// \throws ValueError if `var_list` is empty and there are no trainable variables.
  std::vector<GradAndVar> ComputeGradients(const Output& loss,
                                           const std::vector<Variable>& var_list = {});

  /// One update op per variable with a gradient, grouped, followed by global_step += 1 when
  /// a global step is given. Returns the train op, named `name` (default: the optimizer's
  /// name), and adds it to the train-op collection.
  /// \throws ValueError if no variable has a gradient.
  Operation* ApplyGradients(const std::vector<GradAndVar>& grads_and_vars,
                            std::optional<Variable> global_step = std::nullopt,
                            const std::string& name = "");

  /// ComputeGradients then ApplyGradients: the train op for `loss`.
  Operation* Minimize(const Output& loss, std::optional<Variable> global_step = std::nullopt,
                      const std::vector<Variable>& var_list = {}, const std::string& name = "");

  /// The slot variable `slot_name` ("momentum", "m", "v") of `var`.
  /// \throws NotFoundError if there is none.
  Variable GetSlot(const Variable& var, const std::string& slot_name) const;
  /// The names of this optimizer's slots, sorted.
  std::vector<std::string> GetSlotNames() const;
  /// The optimizer's name: "GradientDescent", "Momentum", "Adam".
  const std::string& name() const { return name_; }

 protected:
  /// Names the optimizer (its default op-name scope).
  explicit Optimizer(std::string name) : name_(std::move(name)) {}

  /// Creates slot variables for `vars` (default: none). Runs outside any name scope.
  virtual void CreateSlots(const std::vector<Variable>& vars) {}
  /// The op that applies `grad` to `var`.
  virtual Output ApplyDense(const Output& grad, const Variable& var) = 0;
  /// Combines the update ops into one op named `name` (default: a group); Adam also
  /// advances its beta powers here.
  virtual Operation* Finish(const std::vector<Operation*>& update_ops, const std::string& name);

  /// Creates (once) a zero-initialised slot `slot_name` for `var`, named "<var>/<op_name>".
  Variable ZerosSlot(const Variable& var, const std::string& slot_name,
                     const std::string& op_name);
  /// A scalar constant of `var`'s dtype, for hyperparameters.
  static Output ScalarLike(const Variable& var, double value, const std::string& name);

 private:
  std::string name_;
  // slot name -> variable op -> slot variable.
  std::map<std::string, std::map<const Operation*, Variable>> slots_;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_OPTIMIZER_H_
