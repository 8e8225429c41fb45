// op_def.h: what an op type is (OpDef), how it infers shapes and how its kernel runs.
//
//   Session  <-- the executor calls each op's kernel through its OpDef
//
// Every op type ("MatMul", "VariableV2", ...) registers one OpDef: a shape function that
// checks inputs and attributes and gives each output a dtype and static shape while the graph
// is *built* (so mistakes surface at the line that made them, not at run time), and a kernel
// that computes the outputs when a Session *runs* the op. An op that keeps state across runs
// (a variable's value, a random generator, a queue) names a per-session resource
// (ResourceBase, resource_mgr.h); the executor finds it once, when it plans a run, so
// kernels never search for it.
//
// TensorFlow: REGISTER_OP with SetShapeFn (tensorflow/core/framework/op.h) and
// REGISTER_KERNEL_BUILDER (op_kernel.h), folded into one registration here.
#ifndef MTS_SRC_01_SESSION_OP_DEF_H_
#define MTS_SRC_01_SESSION_OP_DEF_H_

#include <memory>
#include <string>
#include <vector>

#include "src/01_session/operation.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/tensor.h"

namespace mts {

/// What a shape function sees of an op under construction, and where it writes the outputs.
struct ShapeContext {
  const std::string& op_name;              ///< The (unique) name the op will get.
  const std::vector<Output>& inputs;       ///< Data inputs, with their dtypes and static shapes.
  const AttrMap& attrs;                    ///< Attributes given to the op.
  std::vector<DataType> output_dtypes;     ///< To fill: one dtype per output.
  std::vector<TensorShape> output_shapes;  ///< To fill: one static shape per output.

  /// Sets one output's dtype and shape (appends).
  void AddOutput(DataType dtype, TensorShape shape) {
    output_dtypes.push_back(dtype);
    output_shapes.push_back(std::move(shape));
  }
  /// Attribute `name` as a T. \throws ValueError if it is missing or of another type.
  template <typename T>
  const T& attr(const std::string& name) const {
    auto it = attrs.find(name);
    if (it == attrs.end() || !std::holds_alternative<T>(it->second)) {
      throw ValueError("Op '" + op_name + "' needs attribute '" + name + "'");
    }
    return std::get<T>(it->second);
  }
};

class OpKernelContext;

/// Infers output dtypes and shapes; throws ValueError or TypeError naming the op.
using ShapeFn = void (*)(ShapeContext& ctx);
/// Computes an op's outputs from its inputs; throws an OpError naming the op.
using KernelFn = void (*)(OpKernelContext& ctx);
/// Returns the op that owns the resource this op uses (usually the op itself).
using ResourceOwnerFn = const Operation* (*)(const Operation& op);

/// The registered definition of one op type.
struct OpDef {
  std::string type;            ///< "MatMul", "VariableV2", ...
  ShapeFn shape_fn = nullptr;  ///< Build-time dtype and shape inference.
  KernelFn kernel = nullptr;   ///< Run-time computation.
  /// Kept state or effects beyond its outputs (variables, random ops, queues).
  bool stateful = false;
  /// Its outputs are references to state (VariableV2): consumers that need a value get
  /// FailedPreconditionError naming the op while that state is unset.
  bool outputs_are_refs = false;
  /// The first `num_ref_inputs` inputs take references to state (Assign's variable, an
  /// optimizer's variable and slots) rather than values: they are not materialised, and the
  /// kernel reaches each producer's resource through `ref_resource<T>(i)`.
  int num_ref_inputs = 0;
  /// How many inputs the op takes, or -1 if any number (Graph::AddOperation checks it). Ops
  /// built only through their typed functions get their inputs right by construction; those
  /// whose inputs can come from outside, as a parameter server's updates do, declare it.
  int num_inputs = -1;
  /// Every input is a reference (ReportUninitializedVariables): the kernel sees each input
  /// as the variable's current value, possibly unset, and must not keep it.
  bool all_inputs_are_refs = false;
  /// Non-null for ops that use a per-session resource of their own (a variable, a random
  /// generator, a queue); the kernel reaches it through `resource<T>()`.
  ResourceOwnerFn resource_owner = nullptr;
  /// Creates the resource; required with resource_owner.
  ResourceFactoryFn resource_factory = nullptr;
};

/// All registered op types. Registration happens at static-initialisation time through
/// `OpRegistration`; lookups afterwards are read-only and need no lock.
class OpRegistry {
 public:
  /// The process-wide registry.
  static OpRegistry& Global();
  /// Adds `def`. \throws AlreadyExistsError if its type is registered already.
  void Register(OpDef def);
  /// The definition of `type`. \throws NotFoundError naming the type if unregistered.
  const OpDef& Lookup(const std::string& type) const;

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;
};

/// Registers an OpDef when constructed; use as a namespace-scope static in the op's .cc.
struct OpRegistration {
  /// Registers `def` in OpRegistry::Global().
  explicit OpRegistration(OpDef def) { OpRegistry::Global().Register(std::move(def)); }
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_OP_DEF_H_
