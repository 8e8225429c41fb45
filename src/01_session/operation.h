// operation.h: a node of a Graph (Operation) and a handle to one of its outputs (Output).
//
//   Session  <-- runs Operations; fetches and feeds are Outputs ("name:0")
//
// An Operation is created by Graph::AddOperation (usually through an op function such as
// `MatMul(a, b)`) and never changes afterwards: its name, type, inputs, control inputs,
// attributes and the dtype and static shape of each output are fixed at creation. That is
// what lets many Session::Run calls read a graph concurrently without a lock.
//
// TensorFlow: tf.Operation and tf.Tensor (tensorflow/python/framework/ops.py). mts calls the
// symbolic tensor `Output` so that `Tensor` can mean a value, as in TensorFlow's C++ API.
#ifndef MTS_SRC_01_SESSION_OPERATION_H_
#define MTS_SRC_01_SESSION_OPERATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "src/platform/errors.h"
#include "src/01_session/tensor.h"
#include "src/01_session/tensor_shape.h"
#include "src/01_session/types.h"

namespace mts {

class Graph;
class Operation;
struct OpDef;

/// The value of an op attribute: a flag, a number, a dtype, a shape, a constant tensor...
using AttrValue = std::variant<bool, int64_t, double, std::string, DataType, TensorShape, Tensor,
                               std::vector<int64_t>, std::vector<std::string>>;
/// An op's attributes by name. The comparator is transparent so that a kernel's lookup by a
/// string literal (`attr<bool>("transpose_a")`, every run) builds no std::string.
using AttrMap = std::map<std::string, AttrValue, std::less<>>;

/// The `index`-th output of an Operation: a symbolic tensor, computed when a Session runs it.
class Output {
 public:
  /// A null handle (`op() == nullptr`).
  Output() = default;
  /// The `index`-th output of `op`.
  explicit Output(Operation* op, int index = 0) : op_(op), index_(index) {}

  /// The producing operation (nullptr for a null handle).
  Operation* op() const { return op_; }
  /// Which output of the op this is.
  int index() const { return index_; }
  /// The graph of the producing operation.
  Graph* graph() const;
  /// "op_name:index", the name to look the tensor up by.
  std::string name() const;
  /// The element type, fixed when the op was built.
  DataType dtype() const;
  /// The static shape, possibly partly unknown.
  const TensorShape& shape() const;

  /// Same op and index.
  bool operator==(const Output& other) const {
    return op_ == other.op_ && index_ == other.index_;
  }
  /// Negation of ==.
  bool operator!=(const Output& other) const { return !(*this == other); }
  /// An order by op creation, then index, so Outputs can key a std::map (FeedDict).
  bool operator<(const Output& other) const;

 private:
  Operation* op_ = nullptr;
  int index_ = 0;
};

/// A node of a Graph: an op type, inputs, control inputs, attributes and typed outputs.
class Operation {
 public:
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  /// The unique, hierarchical name, e.g. "dense/MatMul_1".
  const std::string& name() const { return name_; }
  /// The op type, e.g. "MatMul".
  const std::string& type() const { return type_; }
  /// The creation index in the graph (0, 1, 2, ...); ops are topologically ordered by it.
  int id() const { return id_; }
  /// The graph this op belongs to.
  Graph* graph() const { return graph_; }
  /// The registered definition: shape function, kernel, statefulness.
  const OpDef& def() const { return *def_; }

  /// The number of data inputs.
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  /// The `i`-th data input.
  const Output& input(int i) const { return inputs_[i]; }
  /// All data inputs.
  const std::vector<Output>& inputs() const { return inputs_; }
  /// Ops that must run before this one, though no data flows from them.
  const std::vector<Operation*>& control_inputs() const { return control_inputs_; }

  /// The number of outputs.
  int num_outputs() const { return static_cast<int>(output_dtypes_.size()); }
  /// The `i`-th output as a symbolic tensor. Naming a value changes nothing, so a const op
  /// names its outputs too: a gradient function given `const Operation& op` reads its
  /// result as `op.output(0)` (TensorFlow: `op.outputs[0]`).
  Output output(int i = 0) const;
  /// The dtype of output `i`.
  DataType output_dtype(int i) const { return output_dtypes_[i]; }
  /// The static shape of output `i`.
  const TensorShape& output_shape(int i) const { return output_shapes_[i]; }

  /// All attributes.
  const AttrMap& attrs() const { return attrs_; }
  /// True if attribute `name` is set.
  bool HasAttr(std::string_view name) const { return attrs_.find(name) != attrs_.end(); }
  /// Attribute `name` as a T. \throws InvalidArgumentError if absent or of another type.
  template <typename T>
  const T& attr(std::string_view name) const {
    auto it = attrs_.find(name);
    if (it == attrs_.end() || !std::holds_alternative<T>(it->second)) {
      throw InvalidArgumentError("Op '" + name_ + "' (" + type_ + ") has no attribute '" +
                                 std::string(name) + "' of the requested type");
    }
    return std::get<T>(it->second);
  }

 private:
  friend class Graph;
  Operation() = default;

  std::string name_;
  std::string type_;
  int id_ = 0;
  Graph* graph_ = nullptr;
  const OpDef* def_ = nullptr;
  std::vector<Output> inputs_;
  std::vector<Operation*> control_inputs_;
  AttrMap attrs_;
  std::vector<DataType> output_dtypes_;
  std::vector<TensorShape> output_shapes_;
};

}  // namespace mts

/// Lets an Output key a std::unordered_map.
template <>
struct std::hash<mts::Output> {
  std::size_t operator()(const mts::Output& o) const {
    return std::hash<const void*>()(o.op()) * 31 + static_cast<std::size_t>(o.index());
  }
};

#endif  // MTS_SRC_01_SESSION_OPERATION_H_
