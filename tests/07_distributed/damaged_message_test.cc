// Damaged or hostile messages between a worker and a parameter server: each is refused with
// an error that says so, before anything is allocated or run, and the store stays usable.
// tests/fuzz/ps_message_fuzzer.cc holds the same code to these promises for any bytes; these
// cases are the ones it taught us to check.
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/01_session/graph.h"
#include "src/01_session/tensor.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/parameter_server.pb.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/07_distributed/variable_store.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

distributed::TensorProto FloatsClaiming(std::initializer_list<int64_t> dims) {
  distributed::TensorProto proto;
  proto.set_dtype(static_cast<int>(DataType::kFloat));
  for (int64_t d : dims) proto.add_dims(d);
  return proto;  // No content at all.
}

TEST(DamagedMessageTest, AHugeShapeIsRefusedBeforeAnythingIsAllocated) {
  // 2^30 floats (4 GiB) with no bytes behind them: refused by comparing, not by allocating.
  EXPECT_THAT([] { DecodeTensor(FloatsClaiming({int64_t{1} << 30})); },
              ThrowsMessage<DataLossError>(HasSubstr("holds 0 bytes")));
  // Beyond what any message can carry, or overflowing int64 when multiplied out.
  EXPECT_THAT([] { DecodeTensor(FloatsClaiming({int64_t{1} << 40})); },
              ThrowsMessage<DataLossError>(HasSubstr("damaged")));
  EXPECT_THROW(DecodeTensor(FloatsClaiming({int64_t{1} << 32, int64_t{1} << 32})), DataLossError);
  EXPECT_THROW(DecodeTensor(FloatsClaiming({2, -1})), DataLossError);
  distributed::TensorProto unknown_dtype = FloatsClaiming({});
  unknown_dtype.set_dtype(42);
  EXPECT_THAT([&] { DecodeTensor(unknown_dtype); },
              ThrowsMessage<DataLossError>(HasSubstr("dtype number 42")));
}

TEST(DamagedMessageTest, AVariableDeclarationMustBeWhole) {
  VariableStore store;
  auto read = [&](const std::string& name, int dtype, std::initializer_list<int64_t> dims) {
    distributed::ReadVariablesRequest request;
    request.set_incarnation(store.incarnation());
    distributed::VariableSpec* spec = request.add_variables();
    spec->set_name(name);
    spec->set_dtype(dtype);
    for (int64_t d : dims) spec->add_dims(d);
    return store.Read(request);
  };
  const int kFloat = static_cast<int>(DataType::kFloat);
  EXPECT_THROW(read("", kFloat, {2}), InvalidArgumentError);
  EXPECT_THROW(read("w", 99, {2}), DataLossError);
  EXPECT_THROW(read("w", kFloat, {-3}), DataLossError);
  EXPECT_EQ(store.num_variables(), 0);  // Nothing was declared by the damaged requests.
  EXPECT_EQ(read("w", kFloat, {2}).values_size(), 1);
  EXPECT_EQ(store.num_variables(), 1);
}

class DamagedUpdateTest : public ::testing::Test {
 protected:
  // An update of variable w (float32 [2]) by op `type`, with `num_inputs` float [2] inputs.
  distributed::ApplyUpdatesRequest Update(const std::string& type, int num_variables,
                                          int num_inputs) {
    distributed::ApplyUpdatesRequest request;
    request.set_incarnation(store_.incarnation());
    distributed::Update* update = request.add_updates();
    update->set_type(type);
    update->set_op_name("worker/update");
    for (int i = 0; i < num_variables; ++i) {
      distributed::VariableSpec* w = update->add_variables();
      w->set_name("w");
      w->set_dtype(static_cast<int>(DataType::kFloat));
      w->add_dims(2);
    }
    for (int i = 0; i < num_inputs; ++i) {
      EncodeTensor(Tensor::Vector<float>({1, 2}), update->add_inputs());
    }
    return request;
  }
  VariableStore store_;
};

TEST_F(DamagedUpdateTest, OnlyOpsThatUpdateVariablesMayBeSent) {
  // Const takes no variable: running it would do nothing, SaveV2 or a queue op much worse.
  EXPECT_THAT(
      [&] { store_.Apply(Update("Const", 0, 0)); },
      ThrowsMessage<InvalidArgumentError>(HasSubstr("is not an op that updates variables")));
  EXPECT_THAT([&] { store_.Apply(Update("NoSuchOp", 1, 1)); },
              ThrowsMessage<NotFoundError>(HasSubstr("NoSuchOp")));
  EXPECT_EQ(store_.num_updates(), 0);
}

TEST_F(DamagedUpdateTest, AnUpdateMustHaveItsOpsNumberOfVariablesAndInputs) {
  EXPECT_THAT([&] { store_.Apply(Update("Assign", 1, 0)); },
              ThrowsMessage<InvalidArgumentError>(
                  HasSubstr("takes 1 variables and 1 other inputs, the update has 1 and 0")));
  EXPECT_THROW(store_.Apply(Update("Assign", 0, 2)), InvalidArgumentError);
  EXPECT_THROW(store_.Apply(Update("ApplyGradientDescent", 1, 1)), InvalidArgumentError);
  // The store is unharmed: a whole Assign still applies.
  store_.Apply(Update("Assign", 1, 1));
  EXPECT_EQ(store_.num_updates(), 1);
}

// The store's graph lives as long as the ps. An update that cannot be made must not leave
// its placeholders there, or a client could grow the ps one bad request at a time.
TEST_F(DamagedUpdateTest, AnUpdateThatCannotBeMadeLeavesTheStoresGraphAsItWas) {
  store_.Apply(Update("Assign", 1, 1));  // w, and an Assign with its placeholder.
  const int ops = store_.num_graph_ops();
  // Assigning float [n] to w, float [2], cannot be made. Each n is a new kind of update.
  for (int64_t n = 3; n < 103; ++n) {
    distributed::ApplyUpdatesRequest request = Update("Assign", 1, 0);
    EncodeTensor(Tensor::Zeros(DataType::kFloat, {n}), request.mutable_updates(0)->add_inputs());
    EXPECT_THROW(store_.Apply(request), InvalidArgumentError) << n;
  }
  EXPECT_EQ(store_.num_graph_ops(), ops);
  store_.Apply(Update("Assign", 1, 1));  // The Assign made before, reused.
  EXPECT_EQ(store_.num_graph_ops(), ops);
  EXPECT_EQ(store_.num_updates(), 2);
}

TEST(DamagedMessageTest, AWorkerRefusesAValueOfAnotherShapeOrDtype) {
  Graph graph;
  DefaultGraphScope scope(graph);
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  distributed::VariableValue value;
  value.set_name("w");
  EXPECT_FALSE(DecodeVariableValue(value, *w.op()).IsInitialized());  // Unset on the ps.
  value.set_initialized(true);
  EncodeTensor(Tensor::Vector<float>({3, 4}), value.mutable_value());
  EXPECT_TRUE(TensorEqual(DecodeVariableValue(value, *w.op()), Tensor::Vector<float>({3, 4})));

  value.clear_value();
  EncodeTensor(Tensor::Vector<float>({3, 4, 5}), value.mutable_value());
  EXPECT_THAT([&] { DecodeVariableValue(value, *w.op()); },
              ThrowsMessage<DataLossError>(
                  HasSubstr("sent variable w as float32 [3], but it is float32 [2]")));
  value.clear_value();
  EncodeTensor(Tensor::Vector<double>({3, 4}), value.mutable_value());
  EXPECT_THROW(DecodeVariableValue(value, *w.op()), DataLossError);
}

}  // namespace
}  // namespace mts
