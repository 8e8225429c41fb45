// The reductions of math_ops.h (Sum, Mean, Max) and ArgMax.
//
// Every reduction, over all elements or along one axis, is the same computation on a
// three-dimensional view of the input, [outer, reduced, inner]: reducing all elements views
// [1, n, 1]; reducing axis 1 of a [2,3,4] tensor views [2, 3, 4]. Eigen's Tensor module
// reduces the middle dimension of that view in one expression, as TensorFlow's kernels do.
#include <limits>

#include <unsupported/Eigen/CXX11/Tensor>

#include "src/01_session/learning/math_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/learning/op_util.h"

namespace mts {

namespace {

using internal::CheckDtype;
using internal::DtypeClass;
using internal::InClassV;
using internal::OpLabel;

// The input seen as [outer, reduced, inner], and the output's shape.
struct ReductionView {
  int64_t outer = 1;
  int64_t reduced = 1;
  int64_t inner = 1;
  TensorShape output_shape;
};

// The output shape of reducing `axis` (or everything, if unset) of a shape of known rank.
TensorShape ReducedShape(const TensorShape& in, std::optional<int> axis, bool keep_dims) {
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (!axis || *axis == d) {
      if (keep_dims) dims.push_back(1);
    } else {
      dims.push_back(in.dim(d));
    }
  }
  return TensorShape(dims);
}

std::optional<int> AxisAttr(const AttrMap& attrs) {
  auto it = attrs.find("axis");
  if (it == attrs.end()) return std::nullopt;
  return static_cast<int>(std::get<int64_t>(it->second));
}

ReductionView ViewFor(const Tensor& x, const Operation& op) {
  ReductionView view;
  const TensorShape& shape = x.shape();
  std::optional<int> axis = AxisAttr(op.attrs());
  if (axis) {
    try {
      axis = internal::NormalizeAxis(*axis, shape.rank(), op.name(), op.type().c_str());
    } catch (const ValueError& e) {  // Unknown rank at build time: the value is wrong.
      throw InvalidArgumentError(e.what(), op.name());
    }
  }
  for (int d = 0; d < shape.rank(); ++d) {
    if (!axis) {
      view.reduced *= shape.dim(d);
    } else if (d < *axis) {
      view.outer *= shape.dim(d);
    } else if (d == *axis) {
      view.reduced = shape.dim(d);
    } else {
      view.inner *= shape.dim(d);
    }
  }
  const bool keep_dims = op.HasAttr("keep_dims") && op.attr<bool>("keep_dims");
  view.output_shape = ReducedShape(shape, axis, keep_dims);
  return view;
}

template <typename T>
using InputView = Eigen::TensorMap<Eigen::Tensor<const T, 3, Eigen::RowMajor>>;
template <typename T>
using OutputView = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>>;

// ---- Sum, Mean, Max ---------------------------------------------------------------------------

// Each reducer: the op type, the Eigen reduction, and the value it gives for zero elements
// (where Eigen's mean would divide by zero and its max would give lowest() for floats).
struct SumReducer {
  static constexpr const char* kType = "Sum";
  template <typename In, typename Dims>
  auto operator()(const In& in, const Dims& dims) const { return in.sum(dims); }
  template <typename T>
  static T Empty() { return T(0); }
};
struct MeanReducer {
  static constexpr const char* kType = "Mean";
  template <typename In, typename Dims>
  auto operator()(const In& in, const Dims& dims) const { return in.mean(dims); }
  template <typename T>
  static T Empty() {
    return std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
  }
};
struct MaxReducer {
  static constexpr const char* kType = "Max";
  template <typename In, typename Dims>
  auto operator()(const In& in, const Dims& dims) const { return in.maximum(dims); }
  template <typename T>
  static T Empty() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
};

void ReductionShapeImpl(ShapeContext& ctx, const char* type) {
  const Output& x = ctx.inputs[0];
  CheckDtype(ctx.op_name, type, x.dtype(), DtypeClass::kNumeric);
  std::optional<int> axis = AxisAttr(ctx.attrs);
  const bool keep_dims = ctx.attr<bool>("keep_dims");
  if (!x.shape().has_rank()) {
    ctx.AddOutput(x.dtype(), (axis || keep_dims) ? TensorShape::Unknown() : TensorShape{});
    return;
  }
  if (axis) axis = internal::NormalizeAxis(*axis, x.shape().rank(), ctx.op_name, type);
  ctx.AddOutput(x.dtype(), ReducedShape(x.shape(), axis, keep_dims));
}

template <typename R>
void ReductionShape(ShapeContext& ctx) {
  ReductionShapeImpl(ctx, R::kType);
}

template <typename R>
void ReductionKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const ReductionView view = ViewFor(x, ctx.op());
  Tensor& out = ctx.allocate_output(0, view.output_shape);
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (InClassV<T, DtypeClass::kNumeric>()) {
      OutputView<T> result(out.data<T>(), view.outer, view.inner);
      if (view.reduced == 0) {
        result.setConstant(R::template Empty<T>());
        return;
      }
      InputView<T> in(x.data<T>(), view.outer, view.reduced, view.inner);
      result = R()(in, Eigen::array<Eigen::Index, 1>{1});
    }
  });
}

template <typename R>
OpDef ReductionDef() {
  return {R::kType, ReductionShape<R>, ReductionKernel<R>};
}
const OpRegistration sum_op(ReductionDef<SumReducer>());
const OpRegistration mean_op(ReductionDef<MeanReducer>());
const OpRegistration max_op(ReductionDef<MaxReducer>());

// ---- ArgMax ---------------------------------------------------------------------------------

void ArgMaxShape(ShapeContext& ctx) {
  const Output& x = ctx.inputs[0];
  CheckDtype(ctx.op_name, "ArgMax", x.dtype(), DtypeClass::kNumeric);
  if (!x.shape().has_rank()) {
    ctx.AddOutput(DataType::kInt64, TensorShape::Unknown());
    return;
  }
  const int axis = internal::NormalizeAxis(static_cast<int>(ctx.attr<int64_t>("axis")),
                                           x.shape().rank(), ctx.op_name, "ArgMax");
  ctx.AddOutput(DataType::kInt64, ReducedShape(x.shape(), axis, /*keep_dims=*/false));
}

void ArgMaxKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const ReductionView view = ViewFor(x, ctx.op());
  if (view.reduced == 0) {
    throw InvalidArgumentError("ArgMax of an empty axis of shape " + x.shape().ToString() +
                                   " in " + OpLabel(ctx.op().name(), "ArgMax"),
                               ctx.op().name());
  }
  Tensor& out = ctx.allocate_output(0, view.output_shape);
  OutputView<int64_t> result(out.data<int64_t>(), view.outer, view.inner);
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (InClassV<T, DtypeClass::kNumeric>()) {
      InputView<T> in(x.data<T>(), view.outer, view.reduced, view.inner);
      // Eigen gives the index within the reduced dimension; ties go to the lowest index.
      result = in.argmax(1).template cast<int64_t>();
    }
  });
}
const OpRegistration argmax_op({"ArgMax", ArgMaxShape, ArgMaxKernel});

Output Reduction(const char* type, const Output& x, std::optional<int> axis, bool keep_dims,
                 const std::string& name) {
  AttrMap attrs{{"keep_dims", keep_dims}};
  if (axis) attrs["axis"] = static_cast<int64_t>(*axis);
  return GraphOf({x}, name).AddOperation(type, name, {x}, std::move(attrs))->output(0);
}

}  // namespace

Output ReduceSum(const Output& x, std::optional<int> axis, bool keep_dims,
                 const std::string& name) {
  return Reduction("Sum", x, axis, keep_dims, name);
}
Output ReduceMean(const Output& x, std::optional<int> axis, bool keep_dims,
                  const std::string& name) {
  return Reduction("Mean", x, axis, keep_dims, name);
}
Output ReduceMax(const Output& x, std::optional<int> axis, bool keep_dims,
                 const std::string& name) {
  return Reduction("Max", x, axis, keep_dims, name);
}

Output ArgMax(const Output& x, int axis, const std::string& name) {
  return GraphOf({x}, name)
      .AddOperation("ArgMax", name, {x}, {{"axis", static_cast<int64_t>(axis)}})
      ->output(0);
}

}  // namespace mts
