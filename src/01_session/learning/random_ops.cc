#include "src/01_session/learning/random_ops.h"

#include <cmath>
#include <mutex>
#include <random>

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/learning/op_util.h"

namespace mts {

namespace {

using internal::CheckDtype;
using internal::DtypeClass;
using internal::OpLabel;

// [mts:random-seed]
// One random op's generator in one session.
class GeneratorResource : public ResourceBase {
 public:
  explicit GeneratorResource(std::seed_seq& seeds) : generator_(seeds) {}

  // Calls f(generator) while holding the lock, so concurrent runs take turns.
  template <typename F>
  void Use(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    f(generator_);
  }

  // The resource factory: seeds the generator from the op's two seeds (see random_ops.h).
  static std::shared_ptr<ResourceBase> Create(const Operation& op) {
    const int64_t graph_seed = op.attr<int64_t>("seed");
    int64_t op_seed = op.attr<int64_t>("seed2");
    if (graph_seed == 0 && op_seed == 0) {
      std::random_device device;
      std::seed_seq seeds{device(), device(), device(), device()};
      return std::make_shared<GeneratorResource>(seeds);
    }
    if (op_seed == 0) op_seed = op.id();  // Graph seed only: derive the op seed.
    auto word = [](int64_t v, int shift) {
      return static_cast<uint32_t>(static_cast<uint64_t>(v) >> shift);
    };
    std::seed_seq seeds{word(graph_seed, 0), word(graph_seed, 32), word(op_seed, 0),
                        word(op_seed, 32)};
    return std::make_shared<GeneratorResource>(seeds);
  }

 private:
  std::mutex mu_;
  std::mt19937_64 generator_;  // Guarded by mu_.
};

// The two seeds an op records, by TensorFlow's rule; an op seed of 0 alongside a graph seed
// means "derive it from the op's id", which is known only once the op is added.
std::pair<int64_t, int64_t> OpSeeds(const Graph& graph, int64_t op_seed) {
  const int64_t graph_seed = graph.seed();
  if (graph_seed == 0 && op_seed == 0) return {0, 0};
  if (graph_seed == 0) return {kDefaultGraphSeed, op_seed};
  return {graph_seed, op_seed};
}
// [mts:random-seed-end]

constexpr double kTwoPi = 6.283185307179586476925286766559;

// A double in [0, 1) from the top 53 bits of a draw: every value a multiple of 2^-53.
double UnitInterval(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

void RandomShape(ShapeContext& ctx, const char* type) {
  const DataType dtype = ctx.attr<DataType>("dtype");
  const TensorShape& shape = ctx.attr<TensorShape>("shape");
  CheckDtype(ctx.op_name, type, dtype, DtypeClass::kFloating);
  if (!shape.IsFullyDefined()) {
    throw ValueError(OpLabel(ctx.op_name, type) + " needs a fully defined shape, got " +
                     shape.ToString());
  }
  ctx.AddOutput(dtype, shape);
}
void RandomNormalShape(ShapeContext& ctx) { RandomShape(ctx, "RandomNormal"); }
void RandomUniformShape(ShapeContext& ctx) { RandomShape(ctx, "RandomUniform"); }

// The generator is sequential, so these are loops over the output, one draw at a time.
void RandomNormalKernel(OpKernelContext& ctx) {
  const double mean = ctx.op().attr<double>("mean");
  const double stddev = ctx.op().attr<double>("stddev");
  Tensor& out = ctx.allocate_output(0, ctx.op().output_shape(0));
  DispatchDataType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* values = out.data<T>();
      const int64_t n = out.num_elements();
      ctx.resource<GeneratorResource>().Use([&](std::mt19937_64& generator) {
        // Box-Muller: two uniforms give two independent standard normals.
        for (int64_t i = 0; i < n; i += 2) {
          const double u1 = 1.0 - UnitInterval(generator());  // (0, 1]: log(u1) is finite.
          const double u2 = UnitInterval(generator());
          const double radius = std::sqrt(-2.0 * std::log(u1));
          const double angle = kTwoPi * u2;
          values[i] = static_cast<T>(mean + stddev * radius * std::cos(angle));
          if (i + 1 < n) values[i + 1] = static_cast<T>(mean + stddev * radius * std::sin(angle));
        }
      });
    }
  });
}

void RandomUniformKernel(OpKernelContext& ctx) {
  const double minval = ctx.op().attr<double>("minval");
  const double range = ctx.op().attr<double>("maxval") - minval;
  Tensor& out = ctx.allocate_output(0, ctx.op().output_shape(0));
  DispatchDataType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* values = out.data<T>();
      const int64_t n = out.num_elements();
      ctx.resource<GeneratorResource>().Use([&](std::mt19937_64& generator) {
        for (int64_t i = 0; i < n; ++i) {
          values[i] = static_cast<T>(minval + range * UnitInterval(generator()));
        }
      });
    }
  });
}

const Operation* Self(const Operation& op) { return &op; }

OpDef RandomDef(const char* type, ShapeFn shape, KernelFn kernel) {
  OpDef def{type, shape, kernel};
  def.stateful = true;
  def.resource_owner = Self;
  def.resource_factory = GeneratorResource::Create;
  return def;
}
const OpRegistration random_normal_op(RandomDef("RandomNormal", RandomNormalShape,
                                                      RandomNormalKernel));
const OpRegistration random_uniform_op(RandomDef("RandomUniform", RandomUniformShape,
                                                       RandomUniformKernel));

Output AddRandomOp(const char* type, const TensorShape& shape, DataType dtype, int64_t seed,
                   AttrMap attrs, const std::string& name) {
  Graph& graph = GetDefaultGraph();
  const auto [graph_seed, op_seed] = OpSeeds(graph, seed);
  attrs["shape"] = shape;
  attrs["dtype"] = dtype;
  attrs["seed"] = graph_seed;
  attrs["seed2"] = op_seed;
  return graph.AddOperation(type, name, {}, std::move(attrs))->output(0);
}

}  // namespace

Output RandomNormal(const TensorShape& shape, double mean, double stddev, DataType dtype,
                    int64_t seed, const std::string& name) {
  if (stddev < 0) {
    throw ValueError(OpLabel(name, "RandomNormal") + ": stddev must be >= 0, got " +
                     std::to_string(stddev));
  }
  return AddRandomOp("RandomNormal", shape, dtype, seed, {{"mean", mean}, {"stddev", stddev}},
                     name);
}

Output RandomUniform(const TensorShape& shape, double minval, double maxval, DataType dtype,
                     int64_t seed, const std::string& name) {
  if (maxval < minval) {
    throw ValueError(OpLabel(name, "RandomUniform") + ": maxval (" + std::to_string(maxval) +
                     ") must not be below minval (" + std::to_string(minval) + ")");
  }
  return AddRandomOp("RandomUniform", shape, dtype, seed,
                     {{"minval", minval}, {"maxval", maxval}}, name);
}

}  // namespace mts
