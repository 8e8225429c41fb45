// VariableStore on its own, without gRPC: a variable comes into being, unset, with the first
// request that names it; a read says which variables are set; updates run in order as the
// worker's own ops, each kind of update made once; a request of another incarnation is
// aborted; and requests from several threads at once see each batch whole.
//
// Unlike the tests that go through a Server, this one loads the store's library as a shared
// object, so the labs' checks (//tools/labs:fixtures_test, labs_test) can swap a student's
// version of it in.
#include "src/07_distributed/variable_store.h"

#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/07_distributed/parameter_server.pb.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class VariableStoreTest : public ::testing::Test {
 protected:
  // Declares a float32 variable `name` of shape `dims` in `spec`.
  static void Declare(distributed::VariableSpec* spec, const std::string& name,
                      std::vector<int64_t> dims = {2}, DataType dtype = DataType::kFloat) {
    spec->set_name(name);
    spec->set_dtype(static_cast<int>(dtype));
    for (int64_t d : dims) spec->add_dims(d);
  }

  // A request to read the float32 [2] variables `names`, made against `incarnation` (the
  // store's own by default).
  distributed::ReadVariablesRequest ReadRequest(const std::vector<std::string>& names,
                                                std::optional<uint64_t> incarnation = {}) {
    distributed::ReadVariablesRequest request;
    request.set_incarnation(incarnation.value_or(store_.incarnation()));
    for (const std::string& name : names) Declare(request.add_variables(), name);
    return request;
  }

  // Adds to `request` the update `type` ("Assign", "AssignAdd") of the float32 [2] variable
  // `name` by `value`, as the worker's op "worker/<type>".
  static void AddUpdate(distributed::ApplyUpdatesRequest& request, const std::string& type,
                        const std::string& name, const std::vector<float>& value) {
    distributed::Update* update = request.add_updates();
    update->set_type(type);
    update->set_op_name("worker/" + type);
    Declare(update->add_variables(), name);
    EncodeTensor(Tensor::Vector<float>(value), update->add_inputs());
  }

  // One update, as a request of its own.
  void Apply(const std::string& type, const std::string& name, const std::vector<float>& value) {
    distributed::ApplyUpdatesRequest request;
    request.set_incarnation(store_.incarnation());
    AddUpdate(request, type, name, value);
    store_.Apply(request);
  }

  // The value the store holds for `name`, or nullopt while it is unset.
  std::optional<std::vector<float>> ValueOf(const std::string& name) {
    const distributed::ReadVariablesResponse response = store_.Read(ReadRequest({name}));
    if (response.values_size() != 1 || !response.values(0).initialized()) return std::nullopt;
    return DecodeTensor(response.values(0).value()).ToVector<float>();
  }

  VariableStore store_;
};

// A variable exists on the ps from the first request that names it, unset; a read of it is
// no error: the response says it is not initialized, and the worker decides.
TEST_F(VariableStoreTest, AVariableComesIntoBeingUnsetAndIsReadAsUnset) {
  const distributed::ReadVariablesResponse response = store_.Read(ReadRequest({"w", "b"}));
  ASSERT_EQ(response.values_size(), 2);
  EXPECT_EQ(response.values(0).name(), "w");
  EXPECT_FALSE(response.values(0).initialized());
  EXPECT_EQ(response.values(1).name(), "b");
  EXPECT_EQ(store_.num_variables(), 2);
  store_.Read(ReadRequest({"w"}));
  EXPECT_EQ(store_.num_variables(), 2);  // Named again, not made again.
}

// Updates run in order, on the current values, and the values stay for later requests.
TEST_F(VariableStoreTest, UpdatesRunInOrderAndTheirValuesStay) {
  distributed::ApplyUpdatesRequest request;
  request.set_incarnation(store_.incarnation());
  AddUpdate(request, "Assign", "w", {1, 2});
  AddUpdate(request, "AssignAdd", "w", {10, 10});  // Fails unless the Assign ran first.
  store_.Apply(request);
  EXPECT_EQ(ValueOf("w"), (std::vector<float>{11, 12}));
  EXPECT_EQ(store_.num_updates(), 2);
}

// An update that fails raises the update op's error, naming the worker's op; the updates
// before it in the batch stay applied, and it is not counted.
TEST_F(VariableStoreTest, AFailingUpdateNamesTheWorkersOpAndKeepsTheOnesBeforeIt) {
  distributed::ApplyUpdatesRequest request;
  request.set_incarnation(store_.incarnation());
  AddUpdate(request, "Assign", "w", {1, 2});
  AddUpdate(request, "AssignAdd", "unset", {1, 1});
  EXPECT_THAT([&] { store_.Apply(request); },
              ThrowsMessage<FailedPreconditionError>(
                  HasSubstr("On the parameter server, applying worker/AssignAdd")));
  EXPECT_EQ(ValueOf("w"), (std::vector<float>{1, 2}));
  EXPECT_EQ(ValueOf("unset"), std::nullopt);
  EXPECT_EQ(store_.num_updates(), 1);
}

// A request made against another incarnation (a ps that restarted since the session was
// made) raises AbortedError, which RecoverableSession recovers from; nothing is declared.
TEST_F(VariableStoreTest, ARequestOfAnotherIncarnationIsAborted) {
  const uint64_t before_a_restart = store_.incarnation() + 1;
  EXPECT_THAT([&] { store_.Read(ReadRequest({"w"}, before_a_restart)); },
              ThrowsMessage<AbortedError>(HasSubstr("restarted and lost its variables")));
  distributed::ApplyUpdatesRequest request;
  request.set_incarnation(before_a_restart);
  AddUpdate(request, "Assign", "w", {1, 2});
  EXPECT_THROW(store_.Apply(request), AbortedError);
  EXPECT_EQ(store_.num_variables(), 0);
  EXPECT_EQ(store_.num_updates(), 0);
}

// Two clients that declare one name with different shapes or dtypes built different models:
// the later one is told, with InvalidArgumentError, and the variable stays as it was.
TEST_F(VariableStoreTest, AVariableDeclaredAgainWithAnotherShapeOrDtypeIsRefused) {
  Apply("Assign", "w", {1, 2});
  distributed::ReadVariablesRequest other_shape = ReadRequest({});
  Declare(other_shape.add_variables(), "w", {3});
  EXPECT_THAT(
      [&] { store_.Read(other_shape); },
      ThrowsMessage<InvalidArgumentError>(HasSubstr("all tasks must build the same model")));
  distributed::ReadVariablesRequest other_dtype = ReadRequest({});
  Declare(other_dtype.add_variables(), "w", {2}, DataType::kDouble);
  EXPECT_THROW(store_.Read(other_dtype), InvalidArgumentError);
  EXPECT_EQ(ValueOf("w"), (std::vector<float>{1, 2}));
  EXPECT_EQ(store_.num_variables(), 1);
}

// Each kind of update (its op type, its variables, its inputs' dtypes and shapes, its
// attributes) is made once in the store's graph and reused: repeating an update adds no op,
// and an update of another variable is another op, which updates that variable.
TEST_F(VariableStoreTest, EachKindOfUpdateIsMadeOnceAndUpdatesItsOwnVariables) {
  Apply("Assign", "w", {1, 2});
  const int ops = store_.num_graph_ops();
  Apply("Assign", "w", {3, 4});
  EXPECT_EQ(store_.num_graph_ops(), ops);
  Apply("Assign", "v", {5, 6});
  EXPECT_GT(store_.num_graph_ops(), ops);
  Apply("AssignAdd", "v", {1, 1});
  const int more = store_.num_graph_ops();
  Apply("AssignAdd", "v", {1, 1});
  EXPECT_EQ(store_.num_graph_ops(), more);
  EXPECT_EQ(ValueOf("w"), (std::vector<float>{3, 4}));
  EXPECT_EQ(ValueOf("v"), (std::vector<float>{7, 8}));
}

// Workers' threads apply batches and read at once, as gRPC's threads do, all released
// together, each reader declaring a new variable with each read for as long as any writer
// runs: each batch is applied whole with respect to every read (a reader never sees half of
// one), no update is lost and every variable is declared once. Under ThreadSanitizer a
// store that skips its mutex anywhere fails here.
TEST_F(VariableStoreTest, ConcurrentBatchesAndReadsSeeEachBatchWhole) {
  Apply("Assign", "w", {0, 0});
  constexpr int kWriters = 3;
  constexpr int kBatches = 100;
  constexpr int kReaders = 2;
  constexpr int kMinReads = 50;  // Each reader's, however fast the writers are.
  std::promise<void> go;
  std::shared_future<void> started = go.get_future().share();
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> declared{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&] {
      started.wait();
      for (int i = 0; i < kBatches; ++i) {
        distributed::ApplyUpdatesRequest request;
        request.set_incarnation(store_.incarnation());
        AddUpdate(request, "AssignAdd", "w", {1, 0});
        AddUpdate(request, "AssignAdd", "w", {0, 1});
        store_.Apply(request);
      }
      --writers_left;
    });
  }
  std::mutex torn_mu;
  std::vector<std::vector<float>> torn;  // Guarded by torn_mu.
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      started.wait();
      for (int i = 0; i < kMinReads || writers_left > 0; ++i) {
        const std::string name = "read_" + std::to_string(r) + "_" + std::to_string(i);
        const distributed::ReadVariablesResponse response = store_.Read(ReadRequest({"w", name}));
        ++declared;
        const std::vector<float> value = DecodeTensor(response.values(0).value()).ToVector<float>();
        if (value[0] != value[1]) {
          std::lock_guard<std::mutex> lock(torn_mu);
          torn.push_back(value);
        }
      }
    });
  }
  go.set_value();
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(torn.empty()) << torn.size() << " reads saw half a batch, e.g. w = ["
                            << torn.front()[0] << ", " << torn.front()[1] << "]";
  EXPECT_EQ(ValueOf("w"), (std::vector<float>{kWriters * kBatches, kWriters * kBatches}));
  EXPECT_EQ(store_.num_updates(), 1 + 2 * kWriters * kBatches);
  EXPECT_EQ(store_.num_variables(), 1 + declared);
}

}  // namespace
}  // namespace mts
