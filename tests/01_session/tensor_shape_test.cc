// Tests of tensor_shape.h: shapes known in part while a graph is built, how they are
// compared, merged and printed.
#include "src/01_session/tensor_shape.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// The default shape is a scalar: rank 0, one element, fully defined.
TEST(TensorShapeTest, DefaultIsAScalar) {
  TensorShape s;
  EXPECT_TRUE(s.has_rank());
  EXPECT_EQ(s.rank(), 0);
  EXPECT_TRUE(s.IsFullyDefined());
  EXPECT_EQ(s.num_elements(), 1);
}

// A shape is fully defined only when its rank and every dimension are known.
TEST(TensorShapeTest, FullyDefinedNeedsEveryDimension) {
  EXPECT_TRUE(TensorShape({2, 3}).IsFullyDefined());
  EXPECT_EQ(TensorShape({2, 3}).num_elements(), 6);
  EXPECT_EQ(TensorShape({2, 0}).num_elements(), 0);
  EXPECT_FALSE(TensorShape({kUnknown, 3}).IsFullyDefined());
  EXPECT_FALSE(TensorShape::Unknown().IsFullyDefined());
}

// ToString writes "?" for unknown dimensions and "<unknown>" for an unknown rank.
TEST(TensorShapeTest, ToStringShowsUnknowns) {
  EXPECT_EQ(TensorShape({2, 3}).ToString(), "[2,3]");
  EXPECT_EQ(TensorShape({kUnknown, 2}).ToString(), "[?,2]");
  EXPECT_EQ(TensorShape().ToString(), "[]");
  EXPECT_EQ(TensorShape::Unknown().ToString(), "<unknown>");
}

// An unknown rank knows nothing, and differs from a scalar, whose rank is known to be 0.
TEST(TensorShapeTest, UnknownRankIsNotAScalar) {
  TensorShape unknown = TensorShape::Unknown();
  EXPECT_FALSE(unknown.has_rank());
  EXPECT_NE(unknown, TensorShape());
  EXPECT_EQ(unknown, TensorShape::Unknown());
}

// Compatible means: could describe the same value. Unknowns match anything in their place.
TEST(TensorShapeTest, CompatibilityTreatsUnknownsAsWildcards) {
  struct Case {
    TensorShape a, b;
    bool compatible;
  };
  const Case cases[] = {
      {{2, 3}, {2, 3}, true},
      {{2, 3}, {3, 2}, false},
      {{kUnknown, 3}, {5, 3}, true},
      {{kUnknown, 3}, {5, 4}, false},
      {{2, 3}, {2, 3, 1}, false},  // Different ranks.
      {{}, {1}, false},            // A scalar is not a one-element vector.
      {TensorShape::Unknown(), {2, 3}, true},
      {TensorShape::Unknown(), {}, true},
      {TensorShape::Unknown(), TensorShape::Unknown(), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.a.ToString() + " vs " + c.b.ToString());
    EXPECT_EQ(c.a.IsCompatibleWith(c.b), c.compatible);
    EXPECT_EQ(c.b.IsCompatibleWith(c.a), c.compatible);  // Symmetric.
  }
}

// Merging keeps everything either shape knows.
TEST(TensorShapeTest, MergeKeepsWhatEitherShapeKnows) {
  EXPECT_EQ(TensorShape({kUnknown, 3}).MergeWith({5, kUnknown}), TensorShape({5, 3}));
  EXPECT_EQ(TensorShape::Unknown().MergeWith({2}), TensorShape({2}));
  EXPECT_EQ(TensorShape({2}).MergeWith(TensorShape::Unknown()), TensorShape({2}));
  EXPECT_EQ(TensorShape::Unknown().MergeWith(TensorShape::Unknown()), TensorShape::Unknown());
}

// Merging incompatible shapes raises ValueError naming both.
TEST(TensorShapeTest, MergingIncompatibleShapesRaisesValueError) {
  EXPECT_THAT(
      [&] {
        TensorShape({2, 3}).MergeWith({2, 4});
      },
      ThrowsMessage<ValueError>(StrEq("Shapes [2,3] and [2,4] are incompatible")));
}

// Equality is exact: an unknown dimension equals only an unknown dimension.
TEST(TensorShapeTest, EqualityIsExact) {
  EXPECT_EQ(TensorShape({kUnknown, 2}), TensorShape({kUnknown, 2}));
  EXPECT_NE(TensorShape({kUnknown, 2}), TensorShape({3, 2}));
  EXPECT_NE(TensorShape({2}), TensorShape({2, 1}));
}

// Ranks up to kInlineRank live inside the object; larger ones on the heap. Both behave alike.
TEST(TensorShapeTest, RanksBeyondTheInlineOnesWork) {
  const TensorShape big({1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_GT(big.rank(), TensorShape::kInlineRank);
  TensorShape copy = big;
  EXPECT_EQ(copy, big);
  EXPECT_EQ(copy.num_elements(), 40320);
  EXPECT_EQ(copy.ToString(), "[1,2,3,4,5,6,7,8]");
  EXPECT_EQ(std::vector<int64_t>(copy.dims()), std::vector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}));
  TensorShape moved = std::move(copy);
  EXPECT_EQ(moved.dim(7), 8);
  EXPECT_EQ(TensorShape({-1, 2, 3, 4, 5, 6, 7, 8}).MergeWith(big), big);
  EXPECT_NE(big, TensorShape({1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace mts
