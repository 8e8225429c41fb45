// Tests of MatMul (math_ops.h, matmul_op.cc): products with and without transposes, the
// static shape, and the rank, inner-dimension and run-time errors.
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "tests/01_session/learning/op_test_util.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using testing_util::Eval;
using testing_util::kUnknown;

// A [rows, cols] float matrix with entries i*cols + j + 1, scaled, for products by hand.
Tensor Counting(int64_t rows, int64_t cols, float scale = 1.0f) {
  Tensor t(DataType::kFloat, TensorShape{rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i) t.data<float>()[i] = scale * static_cast<float>(i + 1);
  return t;
}

// The textbook triple loop, op(a) * op(b), to check Eigen's GEMM against.
Tensor NaiveProduct(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  auto A = [&](int64_t i, int64_t k) { return ta ? a.at<float>({k, i}) : a.at<float>({i, k}); };
  auto B = [&](int64_t k, int64_t j) { return tb ? b.at<float>({j, k}) : b.at<float>({k, j}); };
  const int64_t m = a.shape().dim(ta ? 1 : 0), inner = a.shape().dim(ta ? 0 : 1);
  const int64_t n = b.shape().dim(tb ? 0 : 1);
  Tensor c(DataType::kFloat, TensorShape{m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < inner; ++k) sum += static_cast<double>(A(i, k)) * B(k, j);
      c.data<float>()[i * n + j] = static_cast<float>(sum);
    }
  }
  return c;
}

// MatMul multiplies two matrices: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]].
TEST(MatMulTest, MultipliesMatrices) {
  Graph g;
  DefaultGraphScope scope(g);
  Output c = MatMul(Constant(Tensor::Matrix<float>({{1, 2}, {3, 4}})),
                    Constant(Tensor::Matrix<float>({{5, 6}, {7, 8}})));
  EXPECT_EQ(c.op()->type(), "MatMul");
  EXPECT_TRUE(TensorEqual(Eval(c), Tensor::Matrix<float>({{19, 22}, {43, 50}})));
}

// transpose_a multiplies by the transpose of a: a stored [3,2] acts as [2,3].
TEST(MatMulTest, TransposeAMultipliesByTheTranspose) {
  Graph g;
  DefaultGraphScope scope(g);
  // a^T = [[1,3,5],[2,4,6]]; times b = [[1],[1],[1]] gives the row sums 9 and 12.
  Output c = MatMul(Constant(Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}})),
                    Constant(Tensor::Matrix<float>({{1}, {1}, {1}})), /*transpose_a=*/true);
  EXPECT_EQ(c.shape(), TensorShape({2, 1}));
  EXPECT_TRUE(TensorEqual(Eval(c), Tensor::Matrix<float>({{9}, {12}})));
}

// transpose_b multiplies by the transpose of b: x * w^T with w stored [out, in].
TEST(MatMulTest, TransposeBMultipliesByTheTranspose) {
  Graph g;
  DefaultGraphScope scope(g);
  Output c = MatMul(Constant(Tensor::Matrix<int32_t>({{1, 2}})),
                    Constant(Tensor::Matrix<int32_t>({{3, 4}, {5, 6}, {7, 8}})), false, true);
  EXPECT_EQ(c.shape(), TensorShape({1, 3}));
  EXPECT_TRUE(TensorEqual(Eval(c), Tensor::Matrix<int32_t>({{11, 17, 23}})));
}

// Both transposes at once give (b a)^T.
TEST(MatMulTest, TransposeBothMultipliesBothTransposes) {
  Graph g;
  DefaultGraphScope scope(g);
  // a^T = [[1,3],[2,4]], b^T = [[1,0],[1,1]]: a^T b^T = [[4,3],[6,4]].
  Output c = MatMul(Constant(Tensor::Matrix<double>({{1, 2}, {3, 4}})),
                    Constant(Tensor::Matrix<double>({{1, 1}, {0, 1}})), true, true);
  EXPECT_TRUE(TensorEqual(Eval(c), Tensor::Matrix<double>({{4, 3}, {6, 4}})));
}

// Matrices large enough for Eigen's blocked GEMM agree with the triple loop, in every
// transpose combination.
TEST(MatMulTest, LargeProductsAgreeWithTheTextbookLoop) {
  const int64_t m = 67, k = 45, n = 33;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("transpose_a=") + (ta ? "1" : "0") + " transpose_b=" +
                   (tb ? "1" : "0"));
      Graph g;
      DefaultGraphScope scope(g);
      Tensor a = ta ? Counting(k, m, 0.01f) : Counting(m, k, 0.01f);
      Tensor b = tb ? Counting(n, k, -0.02f) : Counting(k, n, -0.02f);
      Tensor c = Eval(MatMul(Constant(a), Constant(b), ta, tb));
      EXPECT_TRUE(TensorAllClose(c, NaiveProduct(a, b, ta, tb), 1e-4, 1e-4));
    }
  }
}

// An inner dimension of zero is a sum of nothing: zeros.
TEST(MatMulTest, EmptyInnerDimensionGivesZeros) {
  Graph g;
  DefaultGraphScope scope(g);
  Output c = MatMul(Constant(Tensor::Zeros(DataType::kFloat, {2, 0})),
                    Constant(Tensor::Zeros(DataType::kFloat, {0, 3})));
  EXPECT_TRUE(TensorEqual(Eval(c), Tensor::Zeros(DataType::kFloat, {2, 3})));
}

// The static shape keeps unknown outer dimensions: [?,3] x [3,2] is [?,2].
TEST(MatMulTest, StaticShapeKeepsUnknownOuterDimensions) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kFloat, {kUnknown, 3});
  Output w = Constant(Counting(3, 2));
  EXPECT_EQ(MatMul(x, w).shape(), TensorShape({kUnknown, 2}));
  EXPECT_EQ(MatMul(w, x, true, true).shape(), TensorShape({2, kUnknown}));
  EXPECT_EQ(MatMul(Placeholder(DataType::kFloat), w).shape(), TensorShape({kUnknown, 2}));
}

// Known inner dimensions that differ are a ValueError at build time naming the op and shapes.
TEST(MatMulTest, InnerDimensionMismatchIsAValueErrorNamingTheOp) {
  Graph g;
  DefaultGraphScope scope(g);
  Output a = Constant(Counting(2, 3));
  Output b = Constant(Counting(4, 5));
  EXPECT_THROW(MatMul(a, b, false, false, "dense"), ValueError);
  EXPECT_THAT(
      [&] { MatMul(a, b, false, false, "dense"); },
      ThrowsMessage<ValueError>(AllOf(HasSubstr("Dimensions must be equal, but are 3 and 4"),
                                      HasSubstr("'dense'"), HasSubstr("[2,3], [4,5]"))));
  // The transposes decide which dimensions are inner: a^T is [3,2], and [3,2] x ... needs 2.
  EXPECT_THROW(MatMul(a, b, true, false), ValueError);
  EXPECT_NO_THROW(MatMul(a, Constant(Counting(5, 3)), false, true));
}

// MatMul takes matrices only: any other known rank is a ValueError naming the op.
TEST(MatMulTest, NonMatrixIsAValueErrorNamingTheOp) {
  Graph g;
  DefaultGraphScope scope(g);
  Output vector = Constant(Tensor::Vector<float>({1, 2}));
  Output matrix = Constant(Counting(2, 2));
  EXPECT_THROW(MatMul(vector, matrix, false, false, "mm"), ValueError);
  EXPECT_THAT([&] { MatMul(matrix, vector, false, false, "mm"); },
              ThrowsMessage<ValueError>(AllOf(HasSubstr("rank 2"), HasSubstr("'mm'"))));
}

// Inner dimensions unknown at build time are checked when the op runs.
TEST(MatMulTest, RunTimeInnerMismatchIsInvalidArgument) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kFloat, {kUnknown, kUnknown});
  Output c = MatMul(x, Constant(Counting(3, 2)), false, false, "dense");
  EXPECT_EQ(Eval(c, {{x, Counting(1, 3)}}).shape(), TensorShape({1, 2}));
  EXPECT_THAT(
      [&] {
        Eval(c, {{x, Counting(1, 4)}});
      },
      ThrowsMessage<InvalidArgumentError>(
          AllOf(HasSubstr("Matrix size-incompatible"), HasSubstr("dense"))));
}

}  // namespace
}  // namespace mts
