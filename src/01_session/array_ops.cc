#include "src/01_session/array_ops.h"

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

// ---- Const ----------------------------------------------------------------------------------

void ConstShape(ShapeContext& ctx) {
  const Tensor& value = ctx.attr<Tensor>("value");
  ctx.AddOutput(value.dtype(), value.shape());
}
void ConstKernel(OpKernelContext& ctx) { ctx.set_output(0, ctx.op().attr<Tensor>("value")); }
const OpRegistration const_op({"Const", ConstShape, ConstKernel});

// ---- Placeholder ----------------------------------------------------------------------------

void PlaceholderShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.attr<DataType>("dtype"), ctx.attr<TensorShape>("shape"));
}
void PlaceholderKernel(OpKernelContext& ctx) {
  // Reached only when the placeholder was not fed: a fed tensor is never computed.
  const Operation& op = ctx.op();
  throw InvalidArgumentError(std::string("You must feed a value for placeholder tensor '") +
                                 op.name() + "' with dtype " +
                                 DataTypeName(op.output_dtype(0)) + " and shape " +
                                 op.output_shape(0).ToString(),
                             op.name());
}
const OpRegistration placeholder_op({"Placeholder", PlaceholderShape, PlaceholderKernel});

// ---- Identity -------------------------------------------------------------------------------

void IdentityShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}
void IdentityKernel(OpKernelContext& ctx) { ctx.set_output(0, ctx.input(0)); }
const OpRegistration identity_op({"Identity", IdentityShape, IdentityKernel});

// ---- Reshape --------------------------------------------------------------------------------

// Resolves a requested shape with at most one -1 against an element count (known or not).
TensorShape ResolveReshape(const std::vector<int64_t>& requested, int64_t num_elements,
                           const std::string& op_name, const TensorShape& input_shape) {
  int unknown = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (requested[i] == -1) {
      if (unknown >= 0) throw ValueError("Reshape '" + op_name + "': only one dimension may be -1");
      unknown = static_cast<int>(i);
    } else if (requested[i] < 0) {
      throw ValueError("Reshape '" + op_name + "': negative dimension in requested shape");
    } else {
      known_product *= requested[i];
    }
  }
  std::vector<int64_t> dims = requested;
  if (num_elements < 0) return TensorShape(dims);  // Count unknown at build time.
  if (unknown >= 0) {
    if (known_product == 0 || num_elements % known_product != 0) {
      throw ValueError("Cannot reshape a tensor of shape " + input_shape.ToString() +
                       " into requested shape with -1 (op '" + op_name + "')");
    }
    dims[unknown] = num_elements / known_product;
  } else if (known_product != num_elements) {
    throw ValueError("Cannot reshape a tensor with " + std::to_string(num_elements) +
                     " elements to shape " + TensorShape(requested).ToString() + " (" +
                     std::to_string(known_product) + " elements) for op '" + op_name + "'");
  }
  return TensorShape(dims);
}

void ReshapeShape(ShapeContext& ctx) {
  const TensorShape& in = ctx.inputs[0].shape();
  const int64_t n = in.IsFullyDefined() ? in.num_elements() : -1;
  ctx.AddOutput(ctx.inputs[0].dtype(),
                ResolveReshape(ctx.attr<std::vector<int64_t>>("shape"), n, ctx.op_name, in));
}
void ReshapeKernel(OpKernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  try {
    ctx.set_output(0, in.WithShape(ResolveReshape(ctx.op().attr<std::vector<int64_t>>("shape"),
                                                  in.num_elements(), ctx.op().name(),
                                                  in.shape())));
  } catch (const ValueError& e) {
    throw InvalidArgumentError(e.what(), ctx.op().name());
  }
}
const OpRegistration reshape_op({"Reshape", ReshapeShape, ReshapeKernel});

// ---- Cast -----------------------------------------------------------------------------------

void CastShape(ShapeContext& ctx) {
  const DataType to = ctx.attr<DataType>("DstT");
  if (ctx.inputs[0].dtype() == DataType::kString || to == DataType::kString) {
    throw TypeError("Cast '" + ctx.op_name + "': cannot cast between string and " +
                    "numeric types");
  }
  ctx.AddOutput(to, ctx.inputs[0].shape());
}
void CastKernel(OpKernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, in.shape());
  DispatchDataType(in.dtype(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchDataType(out.dtype(), [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      if constexpr (!std::is_same_v<From, std::string> && !std::is_same_v<To, std::string>) {
        out.flat<To>() = in.flat<From>().template cast<To>();
      }
    });
  });
}
const OpRegistration cast_op({"Cast", CastShape, CastKernel});

// ---- NoOp (also the op behind Group) ---------------------------------------------------------

void NoOutputs(ShapeContext&) {}
void NoOpKernel(OpKernelContext&) {}
const OpRegistration no_op({"NoOp", NoOutputs, NoOpKernel});

// ---- Fill -----------------------------------------------------------------------------------

void FillShape(ShapeContext& ctx) {
  const TensorShape& shape = ctx.attr<TensorShape>("shape");
  if (!shape.IsFullyDefined()) {
    throw ValueError("Fill '" + ctx.op_name + "' needs a fully defined shape, got " +
                     shape.ToString());
  }
  const Tensor& value = ctx.attr<Tensor>("value");
  if (value.num_elements() != 1) {
    throw ValueError("Fill '" + ctx.op_name + "': the fill value must be a scalar");
  }
  ctx.AddOutput(value.dtype(), shape);
}
void FillKernel(OpKernelContext& ctx) {
  const Tensor& value = ctx.op().attr<Tensor>("value");
  Tensor& out = ctx.allocate_output(0, ctx.op().attr<TensorShape>("shape"));
  DispatchDataType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::fill(out.data<T>(), out.data<T>() + out.num_elements(), value.data<T>()[0]);
  });
}
const OpRegistration fill_op({"Fill", FillShape, FillKernel});

Tensor ScalarOfType(DataType dtype, double v) {
  return DispatchDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      throw TypeError("Cannot make a numeric fill value of dtype string");
      return Tensor();
    } else {
      return Tensor::Scalar<T>(static_cast<T>(v));
    }
  });
}

}  // namespace

Output Constant(const Tensor& value, const std::string& name) {
  if (!value.IsInitialized()) throw ValueError("Constant '" + name + "' needs a value");
  return GetDefaultGraph().AddOperation("Const", name, {}, {{"value", value}})->output(0);
}
Output Constant(float value, const std::string& name) {
  return Constant(Tensor::Scalar(value), name);
}
Output Constant(double value, const std::string& name) {
  return Constant(Tensor::Scalar(value), name);
}
Output Constant(int32_t value, const std::string& name) {
  return Constant(Tensor::Scalar(value), name);
}
Output Constant(int64_t value, const std::string& name) {
  return Constant(Tensor::Scalar(value), name);
}
Output Constant(bool value, const std::string& name) {
  return Constant(Tensor::Scalar(value), name);
}

Output Placeholder(DataType dtype, const TensorShape& shape, const std::string& name) {
  return GetDefaultGraph()
      .AddOperation("Placeholder", name, {}, {{"dtype", dtype}, {"shape", shape}})
      ->output(0);
}

Output Identity(const Output& input, const std::string& name) {
  return GraphOf({input}, name).AddOperation("Identity", name, {input})->output(0);
}

Output Reshape(const Output& input, const std::vector<int64_t>& shape, const std::string& name) {
  return GraphOf({input}, name).AddOperation("Reshape", name, {input}, {{"shape", shape}})->output(0);
}

Output Cast(const Output& input, DataType dtype, const std::string& name) {
  return GraphOf({input}, name).AddOperation("Cast", name, {input}, {{"DstT", dtype}})->output(0);
}

Operation* NoOp(const std::string& name) {
  return GetDefaultGraph().AddOperation("NoOp", name, {});
}

Operation* Group(const std::vector<Operation*>& ops, const std::string& name) {
  Graph& g = ops.empty() ? GetDefaultGraph() : *ops.front()->graph();
  return g.AddOperation("NoOp", name, {}, {}, ops);
}

Output Zeros(const TensorShape& shape, DataType dtype, const std::string& name) {
  return Fill(shape, ScalarOfType(dtype, 0), name);
}

Output Fill(const TensorShape& shape, const Tensor& value, const std::string& name) {
  return GetDefaultGraph()
      .AddOperation("Fill", name, {}, {{"shape", shape}, {"value", value}})
      ->output(0);
}

}  // namespace mts
