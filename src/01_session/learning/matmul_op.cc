// MatMul, declared in math_ops.h: the product of two matrices, either of them transposed.
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/learning/op_util.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

using internal::CheckDtype;
using internal::DtypeClass;
using internal::OpLabel;

constexpr const char* kMatMul = "MatMul";

// The (rows, cols) of op(m): m's dimensions, swapped when transposed. Unknown stays unknown.
std::pair<int64_t, int64_t> ProductDims(const TensorShape& m, bool transpose) {
  if (!m.has_rank()) return {TensorShape::kUnknownDim, TensorShape::kUnknownDim};
  return transpose ? std::make_pair(m.dim(1), m.dim(0)) : std::make_pair(m.dim(0), m.dim(1));
}

void MatMulShape(ShapeContext& ctx) {
  const Output& a = ctx.inputs[0];
  const Output& b = ctx.inputs[1];
  if (a.dtype() != b.dtype()) {
    throw TypeError(OpLabel(ctx.op_name, kMatMul) + ": a has dtype " +
                    DataTypeName(a.dtype()) + " but b has dtype " + DataTypeName(b.dtype()) +
                    "; both operands must have the same dtype");
  }
  CheckDtype(ctx.op_name, kMatMul, a.dtype(), DtypeClass::kNumeric);
  for (const Output* input : {&a, &b}) {
    if (input->shape().has_rank() && input->shape().rank() != 2) {
      throw ValueError("Shape must be rank 2 but is rank " +
                       std::to_string(input->shape().rank()) + " for " +
                       OpLabel(ctx.op_name, kMatMul) + " with input shapes: " +
                       a.shape().ToString() + ", " + b.shape().ToString() + ".");
    }
  }
  const auto [m, k_a] = ProductDims(a.shape(), ctx.attr<bool>("transpose_a"));
  const auto [k_b, n] = ProductDims(b.shape(), ctx.attr<bool>("transpose_b"));
  if (k_a != TensorShape::kUnknownDim && k_b != TensorShape::kUnknownDim && k_a != k_b) {
    throw ValueError("Dimensions must be equal, but are " + std::to_string(k_a) + " and " +
                     std::to_string(k_b) + " for " + OpLabel(ctx.op_name, kMatMul) +
                     " with input shapes: " + a.shape().ToString() + ", " +
                     b.shape().ToString() + ".");
  }
  ctx.AddOutput(a.dtype(), TensorShape({m, n}));
}

// [mts:matmul-kernel]
// One Eigen GEMM per case, written straight into the output's buffer: `noalias()` promises
// Eigen the output overlaps neither operand, so it skips the temporary it would otherwise
// evaluate into; `transpose()` is a view, so a transposed operand is never copied.
template <typename T>
void MatMulInto(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                Tensor& out) {
  auto A = a.matrix<T>();
  auto B = b.matrix<T>();
  auto C = out.matrix<T>();
  if (!transpose_a && !transpose_b) {
    C.noalias() = A * B;
  } else if (transpose_a && !transpose_b) {
    C.noalias() = A.transpose() * B;
  } else if (!transpose_a && transpose_b) {
    C.noalias() = A * B.transpose();
  } else {
    C.noalias() = A.transpose() * B.transpose();
  }
}
// [mts:matmul-kernel-end]

void MatMulKernel(OpKernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const bool transpose_a = ctx.op().attr<bool>("transpose_a");
  const bool transpose_b = ctx.op().attr<bool>("transpose_b");
  // The shape function saw rank 2 only where the rank was known; check the values.
  if (a.shape().rank() != 2 || b.shape().rank() != 2) {
    throw InvalidArgumentError("In[0] and In[1] must be matrices, got " +
                                   a.shape().ToString() + " and " + b.shape().ToString(),
                               ctx.op().name());
  }
  const auto [m, k_a] = ProductDims(a.shape(), transpose_a);
  const auto [k_b, n] = ProductDims(b.shape(), transpose_b);
  if (k_a != k_b) {
    throw InvalidArgumentError("Matrix size-incompatible: In[0]: " + a.shape().ToString() +
                                   ", In[1]: " + b.shape().ToString(),
                               ctx.op().name());
  }
  Tensor& out = ctx.allocate_output(0, TensorShape({m, n}));
  DispatchDataType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (internal::InClassV<T, DtypeClass::kNumeric>()) {
      MatMulInto<T>(a, b, transpose_a, transpose_b, out);
    }
  });
}
const OpRegistration matmul_op({kMatMul, MatMulShape, MatMulKernel});

}  // namespace

Output MatMul(const Output& a, const Output& b, bool transpose_a, bool transpose_b,
              const std::string& name) {
  return GraphOf({a, b}, name)
      .AddOperation(kMatMul, name, {a, b},
                    {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}})
      ->output(0);
}

}  // namespace mts
