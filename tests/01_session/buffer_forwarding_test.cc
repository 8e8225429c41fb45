// Tests of buffer forwarding (ExecutionPlan's forwardable inputs and
// OpKernelContext::forward_input_or_allocate_output): an elementwise op writes its output
// into an input's buffer exactly when nothing can see that buffer again (the input dies at
// the op, is not fetched, not fed, not a variable's or a constant's value, not read twice
// by the op), and the values a run returns are the same either way.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/allocator.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/execution_plan.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

// A test-only op: output = 10 * input 0, written through forward_input_or_allocate_output,
// recording whether the output took input 0's buffer. Any further inputs are only read.
bool g_forwarded = false;
void ProbeShape(ShapeContext& ctx) { ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape()); }
void ProbeKernel(OpKernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.forward_input_or_allocate_output({0}, 0, in.shape());
  g_forwarded = out.SharesBufferWith(in);
  out.flat<float>() = in.flat<float>() * 10.0f;
}
const OpRegistration probe_op({"ForwardingTestProbe", ProbeShape, ProbeKernel});

// Buffers handed out by the tensor allocator so far (new or reused): one per tensor made.
int64_t BuffersMade() {
  const Allocator::Stats stats = Allocator::Default()->GetStats();
  return stats.system_allocations + stats.reuses;
}

class BufferForwardingTest : public ::testing::Test {
 protected:
  Output Probe(const std::vector<Output>& inputs, const std::string& name = "probe") {
    return g_.AddOperation("ForwardingTestProbe", name, inputs)->output(0);
  }
  // Buffers one run of `fetches` makes, measured on a second run (the first plans).
  int64_t BuffersPerRun(Session& session, const std::vector<Output>& fetches,
                        const FeedDict& feeds) {
    session.Run(fetches, feeds);
    const int64_t before = BuffersMade();
    std::vector<Tensor> results = session.Run(fetches, feeds);
    return BuffersMade() - before;
  }

  Graph g_;
  DefaultGraphScope as_default_{g_};
  Output x_ = Placeholder(DataType::kFloat, {2, 3}, "x");
  Tensor x_value_ = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
  FeedDict feeds_ = {{x_, x_value_}};
};

TEST_F(BufferForwardingTest, AValueThatDiesAtTheOpLendsItsBuffer) {
  Output p = Probe({Neg(x_)});
  Session session(&g_);
  Tensor result = session.Run(p, feeds_);
  EXPECT_TRUE(g_forwarded);
  EXPECT_TRUE(TensorEqual(result, Tensor::Matrix<float>({{-10, -20, -30}, {-40, -50, -60}})));
}

TEST_F(BufferForwardingTest, AFetchedValueIsNotOverwritten) {
  Output a = Neg(x_);
  Output p = Probe({a});
  Session session(&g_);
  std::vector<Tensor> results = session.Run({a, p}, feeds_);
  EXPECT_FALSE(g_forwarded);
  EXPECT_TRUE(TensorEqual(results[0], Tensor::Matrix<float>({{-1, -2, -3}, {-4, -5, -6}})));
}

TEST_F(BufferForwardingTest, AFedValueIsNotOverwritten) {
  Output p = Probe({x_});
  Session session(&g_);
  session.Run(p, feeds_);
  EXPECT_FALSE(g_forwarded);
  EXPECT_TRUE(TensorEqual(x_value_, Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}})));
}

TEST_F(BufferForwardingTest, AValueReadLaterIsNotOverwritten) {
  Output a = Neg(x_);
  Output p = Probe({a});
  Output sum = Add(p, a);  // Reads a after the probe.
  Session session(&g_);
  Tensor result = session.Run(sum, feeds_);
  EXPECT_FALSE(g_forwarded);
  EXPECT_TRUE(TensorEqual(result, Tensor::Matrix<float>({{-11, -22, -33}, {-44, -55, -66}})));
}

TEST_F(BufferForwardingTest, AValueTheOpReadsTwiceIsNotOverwritten) {
  Output a = Neg(x_);
  Output p = Probe({a, a});
  Session session(&g_);
  session.Run(p, feeds_);
  EXPECT_FALSE(g_forwarded);
}

TEST_F(BufferForwardingTest, AVariablesValueIsNotOverwritten) {
  Variable v(Tensor::Matrix<float>({{1, 2}, {3, 4}}), "v");
  Output p = Probe({v.value()});
  Session session(&g_);
  session.Run({}, {}, {v.initializer()});
  Tensor first = session.Run(p);
  EXPECT_FALSE(g_forwarded);
  EXPECT_TRUE(TensorEqual(session.Run(v.value()), Tensor::Matrix<float>({{1, 2}, {3, 4}})));
  EXPECT_TRUE(TensorEqual(session.Run(p), first));
}

TEST_F(BufferForwardingTest, AConstantIsNotOverwritten) {
  Output p = Probe({Constant(Tensor::Matrix<float>({{1, 2}, {3, 4}}))});
  Session session(&g_);
  Tensor first = session.Run(p);
  EXPECT_FALSE(g_forwarded);
  EXPECT_TRUE(TensorEqual(session.Run(p), first));  // Not 100x the second time.
}

TEST_F(BufferForwardingTest, ThePlanMarksOnlyInputsThatDieAtTheOp) {
  Output a = Neg(x_, "a");
  Output b = Neg(x_, "b");
  Output p = Probe({a, b}, "p");
  Output q = Add(p, b, "q");  // b lives on past p; a and p die where they are read.
  ResourceMgr resources;
  const ExecutionPlan plan = ExecutionPlan::Build({x_}, {q}, {}, resources);
  std::map<std::string, uint64_t> forwardable;
  for (const PlanNode& node : plan.nodes) forwardable[node.op->name()] = node.forwardable_inputs;
  EXPECT_EQ(forwardable.at("p"), 0b01u);
  EXPECT_EQ(forwardable.at("q"), 0b11u);
  EXPECT_EQ(forwardable.at("a"), 0u);     // x is fed.
  EXPECT_EQ(forwardable.count("x"), 0u);  // Fed: not run at all.
}

// The library's elementwise kernels forward: after the first op of a chain makes a buffer,
// the rest of the chain writes into it.
TEST_F(BufferForwardingTest, ElementwiseChainsMakeOneBuffer) {
  Output c = Constant(Tensor::Matrix<float>({{1, 1, 1}, {1, 1, 1}}));
  Output chain = Neg(x_);
  chain = Tanh(chain);
  chain = Sigmoid(chain);
  chain = Relu(chain);
  chain = Exp(chain);
  chain = Square(chain);
  chain = Mul(chain, c);
  chain = Add(c, chain);
  chain = Sub(chain, c);
  chain = AddN({chain, c});
  Session session(&g_);
  EXPECT_EQ(BuffersPerRun(session, {chain}, feeds_), 1);
}

TEST_F(BufferForwardingTest, ChainsGiveTheSameValuesAsFreshBuffers) {
  Output a = Tanh(Neg(x_));
  Output kept = Tanh(Neg(x_));
  Output chain = Square(Mul(a, Constant(2.0f)));
  Session session(&g_);
  // Fetching `kept` as well keeps a copy the chain cannot overwrite, to compare with.
  std::vector<Tensor> results = session.Run({chain, kept}, feeds_);
  Tensor expected(DataType::kFloat, {2, 3});
  expected.flat<float>() = (results[1].flat<float>() * 2.0f).square();
  EXPECT_TRUE(TensorEqual(results[0], expected));
}

// A row [M] that dies at an Add with a [1,M] matrix lends its buffer to the [1,M] sum: the
// element counts agree and element k of the sum reads element k of the row.
TEST_F(BufferForwardingTest, ARowLendsItsBufferToAOneRowSum) {
  Output row = Placeholder(DataType::kFloat, {3}, "row");
  Output sum = Add(Constant(Tensor::Matrix<float>({{10, 20, 30}})), Neg(row));
  Session session(&g_);
  const FeedDict feeds = {{row, Tensor::Vector<float>({1, 2, 3})}};
  EXPECT_TRUE(TensorEqual(session.Run(sum, feeds), Tensor::Matrix<float>({{9, 18, 27}})));
  EXPECT_EQ(BuffersPerRun(session, {sum}, feeds), 1);
}

// A comparison's bool output cannot take a float input's buffer.
TEST_F(BufferForwardingTest, AComparisonAllocatesItsOwnBuffer) {
  Output less = Less(Neg(x_), Constant(Tensor::Matrix<float>({{0, 0, 0}, {0, 0, 0}})));
  Session session(&g_);
  EXPECT_EQ(BuffersPerRun(session, {less}, feeds_), 2);
  Tensor result = session.Run(less, feeds_);
  EXPECT_EQ(result.dtype(), DataType::kBool);
  EXPECT_TRUE(result.flat<bool>().all());
}

}  // namespace
}  // namespace mts
