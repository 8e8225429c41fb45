// Tests of tensor.h: making tensors from values, reading their elements, printing them,
// comparing them, and the handle semantics that keep the hot path free of copies.
#include "src/01_session/tensor.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/tensor_types.h"

namespace mts {
namespace {

// ---- Construction ------------------------------------------------------------------------

// Scalar makes a rank-0 tensor of one element, typed after its argument.
TEST(TensorTest, ScalarIsRankZeroWithOneElement) {
  Tensor t = Tensor::Scalar(2.5f);
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.dtype(), DataType::kFloat);
  EXPECT_EQ(t.shape(), TensorShape{});
  EXPECT_EQ(t.shape().rank(), 0);
  EXPECT_EQ(t.num_elements(), 1);
  EXPECT_EQ(t.scalar<float>(), 2.5f);
}

// Vector makes a rank-1 tensor holding the values in order.
TEST(TensorTest, VectorHoldsItsValuesInOrder) {
  Tensor t = Tensor::Vector<int64_t>({3, 1, 4});
  EXPECT_EQ(t.dtype(), DataType::kInt64);
  EXPECT_EQ(t.shape(), TensorShape({3}));
  EXPECT_EQ(t.ToVector<int64_t>(), (std::vector<int64_t>{3, 1, 4}));
}

// Matrix lays rows out row-major, as numpy does.
TEST(TensorTest, MatrixIsRowMajor) {
  Tensor t = Tensor::Matrix<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));
  EXPECT_EQ(t.ToVector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

// Rows of different lengths cannot make a matrix.
TEST(TensorTest, RaggedMatrixRowsRaiseValueError) {
  EXPECT_THROW(Tensor::Matrix<float>({{1, 2}, {3}}), ValueError);
  EXPECT_THROW(Tensor::Matrix<float>({{}, {3}}), ValueError);
}

// FromValues fills any shape row-major, and rejects a wrong number of values.
TEST(TensorTest, FromValuesNeedsExactlyOneValuePerElement) {
  Tensor t = Tensor::FromValues<double>({2, 1, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.shape(), TensorShape({2, 1, 2}));
  EXPECT_EQ(t.at<double>({1, 0, 1}), 4.0);
  EXPECT_THROW(Tensor::FromValues<double>({2, 2}, {1, 2, 3}), ValueError);
  EXPECT_THROW(Tensor::FromValues<double>({2, 2}, {1, 2, 3, 4, 5}), ValueError);
}

// A run-time tensor needs a fully defined shape.
TEST(TensorTest, AllocatingAPartlyKnownShapeRaisesValueError) {
  EXPECT_THROW(Tensor(DataType::kFloat, TensorShape({TensorShape::kUnknownDim, 2})), ValueError);
  EXPECT_THROW(Tensor(DataType::kFloat, TensorShape::Unknown()), ValueError);
}

// Zeros means 0, false or "" depending on the dtype.
TEST(TensorTest, ZerosFitTheDtype) {
  EXPECT_EQ(Tensor::Zeros(DataType::kFloat, {2}).ToVector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(Tensor::Zeros(DataType::kInt32, {2}).ToVector<int32_t>(),
            (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(Tensor::Zeros(DataType::kBool, {1}).ToVector<bool>(), (std::vector<bool>{false}));
  EXPECT_EQ(Tensor::Zeros(DataType::kString, {2}).ToVector<std::string>(),
            (std::vector<std::string>{"", ""}));
}

// A tensor with zero elements is still a value: initialized, printable, comparable.
TEST(TensorTest, AnEmptyTensorIsInitialized) {
  Tensor t = Tensor::Vector<float>({});
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.num_elements(), 0);
  EXPECT_EQ(t.ToString(), "[]");
  EXPECT_TRUE(TensorEqual(t, Tensor::Vector<float>({})));
}

// A default-constructed Tensor holds nothing: what an unset variable holds.
TEST(TensorTest, DefaultTensorIsUninitializedAndCannotBeRead) {
  Tensor t;
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_THROW(t.flat<float>(), FailedPreconditionError);
  EXPECT_EQ(t.ToString(), "<uninitialized>");
  EXPECT_FALSE(t.Copy().IsInitialized());
}

// ---- Every dtype -------------------------------------------------------------------------

// Each dtype round-trips its values and reports its TensorFlow name.
TEST(TensorTest, EveryDtypeRoundTripsItsValues) {
  EXPECT_EQ(Tensor::Vector<float>({1.5f}).ToVector<float>(), (std::vector<float>{1.5f}));
  EXPECT_EQ(Tensor::Vector<double>({-2.25}).ToVector<double>(), (std::vector<double>{-2.25}));
  EXPECT_EQ(Tensor::Vector<int32_t>({-7}).ToVector<int32_t>(), (std::vector<int32_t>{-7}));
  EXPECT_EQ(Tensor::Vector<int64_t>({int64_t{1} << 40}).ToVector<int64_t>(),
            (std::vector<int64_t>{int64_t{1} << 40}));
  EXPECT_EQ(Tensor::Scalar(true).scalar<bool>(), true);
  EXPECT_EQ(Tensor::Vector<std::string>({"a", std::string("\0b", 2)}).ToVector<std::string>(),
            (std::vector<std::string>{"a", std::string("\0b", 2)}));

  struct Case {
    Tensor t;
    DataType dtype;
    const char* name;
  };
  const Case cases[] = {
      {Tensor::Scalar(1.0f), DataType::kFloat, "float32"},
      {Tensor::Scalar(1.0), DataType::kDouble, "float64"},
      {Tensor::Scalar(int32_t{1}), DataType::kInt32, "int32"},
      {Tensor::Scalar(int64_t{1}), DataType::kInt64, "int64"},
      {Tensor::Scalar(true), DataType::kBool, "bool"},
      {Tensor::Scalar(std::string("x")), DataType::kString, "string"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.t.dtype(), c.dtype);
    EXPECT_STREQ(DataTypeName(c.t.dtype()), c.name);
  }
}

// String tensors own their strings: a copy is independent, and destruction frees them
// (ASan checks the latter).
TEST(TensorTest, StringTensorsOwnTheirStrings) {
  Tensor a = Tensor::Vector<std::string>({std::string(100, 'x'), "y"});
  Tensor b = a.Copy();
  b.flat<std::string>()(0) = "changed";
  EXPECT_EQ(a.at<std::string>({0}), std::string(100, 'x'));
  EXPECT_EQ(b.at<std::string>({0}), "changed");
}

// ---- Element access ----------------------------------------------------------------------

// at, scalar, flat and matrix all address the same row-major elements.
TEST(TensorTest, ElementAccessorsAgree) {
  Tensor t = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(t.at<float>({1, 2}), 6.0f);
  EXPECT_EQ(t.flat<float>()(4), 5.0f);
  EXPECT_EQ(t.matrix<float>()(1, 0), 4.0f);
  EXPECT_EQ(t.matrix<float>().rows(), 2);
  EXPECT_EQ(t.matrix<float>().cols(), 3);
  t.matrix<float>()(0, 1) = 20;  // Writes go to the same buffer.
  EXPECT_EQ(t.at<float>({0, 1}), 20.0f);
  EXPECT_EQ(Tensor::Vector<int32_t>({9}).scalar<int32_t>(), 9);  // One element of any rank.
}

// Reading elements as the wrong C++ type raises instead of reinterpreting bytes.
TEST(TensorTest, ReadingWithTheWrongDtypeRaisesInvalidArgumentError) {
  Tensor t = Tensor::Vector<float>({1, 2});
  EXPECT_THROW(t.flat<double>(), InvalidArgumentError);
  EXPECT_THROW(t.at<int32_t>({0}), InvalidArgumentError);
  EXPECT_THROW(t.ToVector<std::string>(), InvalidArgumentError);
  EXPECT_THROW(Tensor::Scalar(1).scalar<int64_t>(), InvalidArgumentError);
}

// Accessors check rank, index range and element count.
TEST(TensorTest, AccessorsCheckRankIndexAndCount) {
  Tensor t = Tensor::Vector<float>({1, 2});
  EXPECT_THROW(t.matrix<float>(), InvalidArgumentError);   // Rank 1, not 2.
  EXPECT_THROW(t.scalar<float>(), InvalidArgumentError);   // Two elements.
  EXPECT_THROW(t.at<float>({2}), InvalidArgumentError);    // Out of range.
  EXPECT_THROW(t.at<float>({-1}), InvalidArgumentError);   // Negative.
  EXPECT_THROW(t.at<float>({0, 0}), InvalidArgumentError); // Wrong rank of index.
}

// ---- Printing ----------------------------------------------------------------------------

// A matrix prints as numpy prints it.
TEST(TensorTest, MatrixPrintsLikeNumpy) {
  std::ostringstream os;
  os << Tensor::Matrix<int32_t>({{1, 2}, {3, 4}});
  EXPECT_EQ(os.str(), "[[1 2]\n [3 4]]");
  EXPECT_EQ(Tensor::Matrix<float>({{1.5f, -2}}).ToString(), "[[1.5 -2]]");
}

// Scalars print bare; bools print as Python does; strings as Python bytes.
TEST(TensorTest, ScalarsBoolsAndStringsPrintLikePython) {
  EXPECT_EQ(Tensor::Scalar(int64_t{42}).ToString(), "42");
  EXPECT_EQ(Tensor::Vector<bool>({true, false}).ToString(), "[True False]");
  EXPECT_EQ(Tensor::Vector<std::string>({"w", "b"}).ToString(), "[b'w' b'b']");
}

// Rank 3 separates its matrices by a blank line, as numpy does.
TEST(TensorTest, RankThreePrintsLikeNumpy) {
  Tensor t = Tensor::FromValues<int32_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(t.ToString(), "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]");
}

// A long tensor is cut short after max_elements elements.
TEST(TensorTest, LongTensorsAreAbbreviated) {
  Tensor t = Tensor::Vector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(t.ToString(3), "[0 1 2 ...]");
  EXPECT_EQ(t.ToString(8), "[0 1 2 3 4 5 6 7]");
}

// DebugString gives dtype, shape and elements on one line, for messages and logs.
TEST(TensorTest, DebugStringIsOneLine) {
  EXPECT_EQ(Tensor::Matrix<float>({{1, 2}, {3, 4}}).DebugString(),
            "Tensor<float32 [2,2]: [[1 2] [3 4]]>");
  EXPECT_EQ(Tensor::Scalar(true).DebugString(), "Tensor<bool []: True>");
}

// ---- Comparison --------------------------------------------------------------------------

// TensorEqual needs the same dtype, shape and elements.
TEST(TensorTest, TensorEqualComparesDtypeShapeAndElements) {
  Tensor a = Tensor::Vector<float>({1, 2});
  EXPECT_TRUE(TensorEqual(a, Tensor::Vector<float>({1, 2})));
  EXPECT_FALSE(TensorEqual(a, Tensor::Vector<float>({1, 3})));
  EXPECT_FALSE(TensorEqual(a, Tensor::Vector<double>({1, 2})));
  EXPECT_FALSE(TensorEqual(a, Tensor::Matrix<float>({{1, 2}})));
  EXPECT_FALSE(TensorEqual(a, Tensor()));
  EXPECT_TRUE(TensorEqual(Tensor(), Tensor()));
  EXPECT_TRUE(TensorEqual(Tensor::Vector<std::string>({"a"}), Tensor::Vector<std::string>({"a"})));
}

// TensorAllClose tolerates rounding, as numpy's allclose does.
TEST(TensorTest, TensorAllCloseToleratesRounding) {
  Tensor a = Tensor::Vector<double>({1.0, 100.0});
  EXPECT_TRUE(TensorAllClose(a, Tensor::Vector<double>({1.0 + 1e-9, 100.0 + 1e-4})));
  EXPECT_FALSE(TensorAllClose(a, Tensor::Vector<double>({1.0, 100.1})));
  EXPECT_TRUE(TensorAllClose(a, Tensor::Vector<double>({1.0, 100.1}), /*rtol=*/1e-2));
  EXPECT_FALSE(TensorAllClose(a, Tensor::Vector<float>({1.0f, 100.0f})));  // dtypes differ
  EXPECT_TRUE(TensorAllClose(Tensor::Vector<int32_t>({3}), Tensor::Vector<int32_t>({3})));
  EXPECT_FALSE(TensorAllClose(Tensor::Vector<int32_t>({3}), Tensor::Vector<int32_t>({4})));
}

// NaN matches NaN in TensorAllClose (as in TensorFlow's assertAllClose) but not in
// TensorEqual; infinities match themselves in both.
TEST(TensorTest, NanAndInfinityInComparisons) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor with_nan = Tensor::Vector<float>({1, nan});
  EXPECT_TRUE(TensorAllClose(with_nan, Tensor::Vector<float>({1, nan})));
  EXPECT_FALSE(TensorAllClose(with_nan, Tensor::Vector<float>({1, 2})));
  EXPECT_FALSE(TensorAllClose(Tensor::Vector<float>({1, 2}), with_nan));
  EXPECT_FALSE(TensorEqual(with_nan, with_nan));
  Tensor with_inf = Tensor::Vector<float>({inf, -inf});
  EXPECT_TRUE(TensorAllClose(with_inf, Tensor::Vector<float>({inf, -inf})));
  EXPECT_FALSE(TensorAllClose(with_inf, Tensor::Vector<float>({-inf, inf})));
  EXPECT_TRUE(TensorEqual(with_inf, Tensor::Vector<float>({inf, -inf})));
}

// ---- Handles and buffers -----------------------------------------------------------------

// Copying a Tensor copies the handle: both see the same buffer.
TEST(TensorTest, CopyingTheHandleSharesTheBuffer) {
  Tensor a = Tensor::Vector<float>({1, 2});
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor b = a;
  EXPECT_TRUE(b.SharesBufferWith(a));
  EXPECT_FALSE(a.RefCountIsOne());
  b.flat<float>()(0) = 9;
  EXPECT_EQ(a.at<float>({0}), 9.0f);
}

// The last handle is the only owner again once the others are gone.
TEST(TensorTest, RefCountIsOneAfterOtherHandlesDie) {
  Tensor a = Tensor::Vector<float>({1});
  { Tensor b = a; EXPECT_FALSE(a.RefCountIsOne()); }
  EXPECT_TRUE(a.RefCountIsOne());
}

// Assigning a handle drops the old buffer and shares the new one; moving leaves the source
// empty; self-assignment changes nothing.
TEST(TensorTest, AssignmentAndMoveTransferHandles) {
  Tensor a = Tensor::Vector<float>({1, 2});
  Tensor b = Tensor::Scalar(3.0f);
  Tensor old_b = b;
  b = a;
  EXPECT_TRUE(b.SharesBufferWith(a));
  EXPECT_TRUE(old_b.RefCountIsOne());  // b no longer holds the scalar.
  Tensor c = std::move(b);
  EXPECT_FALSE(b.IsInitialized());  // NOLINT(bugprone-use-after-move): the documented state.
  EXPECT_TRUE(c.SharesBufferWith(a));
  const Tensor& same = c;
  c = same;
  EXPECT_EQ(c.ToVector<float>(), (std::vector<float>{1, 2}));
  c = Tensor();
  EXPECT_FALSE(c.IsInitialized());
  EXPECT_TRUE(a.RefCountIsOne());
}

// WithShape views the same elements in another shape: zero copy, as Reshape needs.
TEST(TensorTest, WithShapeSharesTheBuffer) {
  Tensor a = Tensor::Vector<int32_t>({1, 2, 3, 4, 5, 6});
  Tensor m = a.WithShape({2, 3});
  EXPECT_TRUE(m.SharesBufferWith(a));
  EXPECT_EQ(m.shape(), TensorShape({2, 3}));
  EXPECT_EQ(a.shape(), TensorShape({6}));  // The original handle keeps its shape.
  EXPECT_EQ(m.at<int32_t>({1, 0}), 4);
  m.matrix<int32_t>()(0, 0) = 10;
  EXPECT_EQ(a.at<int32_t>({0}), 10);
}

// WithShape refuses shapes with another element count or unknown dimensions.
TEST(TensorTest, WithShapeNeedsTheSameElementCount) {
  Tensor a = Tensor::Vector<int32_t>({1, 2, 3, 4});
  EXPECT_THROW(a.WithShape({3}), InvalidArgumentError);
  EXPECT_THROW(a.WithShape({TensorShape::kUnknownDim, 2}), InvalidArgumentError);
}

// Copy makes an independent buffer with equal contents.
TEST(TensorTest, CopyDoesNotShareTheBuffer) {
  Tensor a = Tensor::Matrix<double>({{1, 2}, {3, 4}});
  Tensor b = a.Copy();
  EXPECT_FALSE(b.SharesBufferWith(a));
  EXPECT_TRUE(a.RefCountIsOne());
  EXPECT_TRUE(TensorEqual(a, b));
  b.matrix<double>()(0, 0) = -1;
  EXPECT_EQ(a.at<double>({0, 0}), 1.0);
}

// The buffer is 64-byte aligned, which the Eigen maps promise.
TEST(TensorTest, BufferIsSixtyFourByteAligned) {
  for (int n : {1, 3, 17}) {
    Tensor t(DataType::kDouble, TensorShape({n}));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data<double>()) % 64, 0u);
  }
}

}  // namespace
}  // namespace mts
