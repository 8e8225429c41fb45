// RemoteSession against a Server in the same process, on a free port of 127.0.0.1.
#include "src/07_distributed/remote_session.h"

#include <chrono>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session_factory.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/platform/logging.h"
#include "tests/testing/local_socket.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class RemoteSessionTest : public ::testing::Test {
 protected:
  RemoteSessionTest() {
    StartPs();
    {
      ReplicaDeviceSetter on_ps(1);
      w_ = Variable(Tensor::Vector<float>({1, 2}), "w");
      global_step_ = GetOrCreateGlobalStep();
      loss_ = ReduceSum(Mul(w_.value(), w_.value()));
      train_op_ = GradientDescentOptimizer(0.25).Minimize(loss_, global_step_);
    }
    local_ = LocalVariable(Tensor::Scalar<float>(7), "local");
    init_ = GlobalVariablesInitializer();
  }

  void StartPs() {
    ps_ = std::make_unique<Server>(ClusterSpec({{"ps", {address_}}}), "ps", 0);
    address_ = "127.0.0.1:" + std::to_string(ps_->port());  // The same port after restarts.
  }
  std::string master() const { return "grpc://" + address_; }
  std::unique_ptr<Session> NewRemote() { return NewSession(&graph_, SessionOptions{master()}); }

  std::string address_ = "127.0.0.1:0";
  std::unique_ptr<Server> ps_;
  Graph graph_;
  DefaultGraphScope as_default_{graph_};  // The tests build ops too.
  Variable w_, global_step_, local_;
  Output loss_;
  Operation* train_op_ = nullptr;
  Operation* init_ = nullptr;
};

TEST_F(RemoteSessionTest, AGrpcTargetMakesARemoteSessionAndTheEmptyTargetALocalOne) {
  EXPECT_NE(dynamic_cast<RemoteSession*>(NewRemote().get()), nullptr);
  EXPECT_EQ(dynamic_cast<RemoteSession*>(NewSession(&graph_, SessionOptions{}).get()), nullptr);
  // Any other target is an error, not a session that quietly trains alone.
  EXPECT_THROW(NewSession(&graph_, SessionOptions{"127.0.0.1:2222"}), NotFoundError);
  EXPECT_EQ(DeviceOf(graph_, "w"), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(graph_, "local"), "");  // Local variables stay on the worker.
}

// A model built outside any ReplicaDeviceSetter would train one copy per task: said, once.
TEST_F(RemoteSessionTest, AModelWithNoVariableOnThePsIsWarnedAbout) {
  {
    ScopedLogCapture capture;
    NewRemote();  // w and the global step are placed.
    EXPECT_FALSE(capture.Contains("placed on a ps task"))
        << ::testing::PrintToString(capture.lines());
  }
  Graph unplaced;
  DefaultGraphScope scope(unplaced);
  Variable v(Tensor::Scalar<float>(1), "v");
  ScopedLogCapture capture;
  NewSession(&unplaced, SessionOptions{master()});
  EXPECT_TRUE(capture.Contains("finds none of the 1 global variables placed on a ps task"))
      << ::testing::PrintToString(capture.lines());
  EXPECT_TRUE(capture.Contains("inside a ReplicaDeviceSetter scope"));
}

TEST_F(RemoteSessionTest, VariablesLiveOnThePsAndOutliveTheSessions) {
  std::unique_ptr<Session> chief = NewRemote();
  chief->Run(init_);
  chief->Close();
  EXPECT_GE(ps_->store().num_variables(), 2);
  // A new session, as after a worker restart: the values are still on the ps.
  std::unique_ptr<Session> worker = NewRemote();
  EXPECT_EQ(worker->Run(w_.value()).ToVector<float>(), (std::vector<float>{1, 2}));
  worker->Run(w_.AssignAdd(Constant(Tensor::Vector<float>({10, 10}))).op());
  EXPECT_EQ(NewRemote()->Run(w_.value()).ToVector<float>(), (std::vector<float>{11, 12}));
}

// [mts:test-one-round-trip]
TEST_F(RemoteSessionTest, AStepIsOneReadRpcAndOneUpdateRpc) {
  std::unique_ptr<Session> session = NewRemote();
  auto& remote = dynamic_cast<RemoteSession&>(*session);
  session->Run(init_);
  const int64_t before = remote.num_rpcs();
  session->Run(train_op_);  // Reads w and the step, updates both: two RPCs, not four.
  EXPECT_EQ(remote.num_rpcs() - before, 2);
  session->Run(loss_);  // Reads only.
  EXPECT_EQ(remote.num_rpcs() - before, 3);
  session->Run(local_.initializer());  // Worker-local: no RPC.
  EXPECT_EQ(remote.num_rpcs() - before, 3);
  // The gradient step ran on the ps: w - 0.25 * 2w = w / 2.
  EXPECT_EQ(session->Run(w_.value()).ToVector<float>(), (std::vector<float>{0.5f, 1}));
  EXPECT_EQ(session->Run(global_step_.value()).scalar<int64_t>(), 1);
}
// [mts:test-one-round-trip-end]

TEST_F(RemoteSessionTest, UpdatesOfTwoWorkersAddUpOnThePs) {
  std::unique_ptr<Session> a = NewRemote(), b = NewRemote();
  a->Run(init_);
  a->Run(train_op_);
  b->Run(train_op_);
  EXPECT_EQ(a->Run(global_step_.value()).scalar<int64_t>(), 2);
  EXPECT_EQ(b->Run(w_.value()).ToVector<float>(), (std::vector<float>{0.25f, 0.5f}));
}

TEST_F(RemoteSessionTest, TheReadyOpAsksThePs) {
  Output ready = ReportUninitializedVariables({w_, global_step_});
  std::unique_ptr<Session> worker = NewRemote();
  EXPECT_EQ(worker->Run(ready).ToVector<std::string>(),
            (std::vector<std::string>{"w", "global_step"}));
  NewRemote()->Run(init_);  // The chief, in another session.
  EXPECT_EQ(worker->Run(ready).num_elements(), 0);
}

TEST_F(RemoteSessionTest, APsThatIsDownRaisesUnavailableError) {
  std::unique_ptr<Session> session = NewRemote();
  session->Run(init_);
  ps_->Stop();
  EXPECT_THROW(session->Run(train_op_), UnavailableError);
  EXPECT_THROW(NewRemote(), UnavailableError);
}

TEST_F(RemoteSessionTest, APsThatRestartedRaisesAbortedErrorAndHasLostItsVariables) {
  std::unique_ptr<Session> session = NewRemote();
  session->Run(init_);
  const uint64_t first = dynamic_cast<RemoteSession&>(*session).incarnation(0);
  ps_.reset();
  StartPs();
  EXPECT_NE(ps_->store().incarnation(), first);
  EXPECT_THAT([&] { session->Run(train_op_); },
              ThrowsMessage<AbortedError>(HasSubstr("restarted")));
  // A new session works against the new incarnation, which starts empty.
  EXPECT_THROW(NewRemote()->Run(w_.value()), FailedPreconditionError);
}

TEST_F(RemoteSessionTest, AnRpcToAServerThatNeverAnswersMissesItsDeadline) {
  // A socket that accepts connections (the kernel's backlog does) but never speaks.
  LocalSocket listening(/*listening=*/true);
  const std::string silent = listening.address();

  const auto start = std::chrono::steady_clock::now();
  // gRPC gives up on the connection (no HTTP/2 greeting) or on the call, whichever comes
  // first; both are bounded by the deadline.
  EXPECT_THROW(RemoteSession(&graph_, SessionOptions{"grpc://" + silent},
                             ClusterSpec({{"ps", {silent}}}), RemoteSessionOptions{0.3}),
               UnavailableError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(TensorCodingTest, TensorsAndAttributesSurviveTheWire) {
  for (const Tensor& t :
       {Tensor::Matrix<float>({{1, 2}, {3, 4}}), Tensor::Scalar<int64_t>(-5),
        Tensor::Vector<std::string>({"a", "", "ccc"}), Tensor::Vector<bool>({true, false})}) {
    distributed::TensorProto proto;
    EncodeTensor(t, &proto);
    EXPECT_TRUE(TensorEqual(DecodeTensor(proto), t)) << t.DebugString();
  }
  for (const AttrValue& a :
       {AttrValue(true), AttrValue(int64_t{3}), AttrValue(0.5), AttrValue(std::string("s")),
        AttrValue(DataType::kInt64), AttrValue(TensorShape({2, TensorShape::kUnknownDim})),
        AttrValue(TensorShape::Unknown()), AttrValue(std::vector<int64_t>{1, 2}),
        // Empty lists once arrived as "no value" (found by tests/fuzz/ps_message_fuzzer).
        AttrValue(std::vector<int64_t>{}), AttrValue(std::vector<std::string>{})}) {
    distributed::AttrProto proto;
    EncodeAttr(a, &proto);
    EXPECT_EQ(DecodeAttr(proto).index(), a.index());
  }
  distributed::TensorProto bad;
  EncodeTensor(Tensor::Vector<float>({1, 2}), &bad);
  bad.add_dims(3);  // Now claims 6 elements.
  EXPECT_THROW(DecodeTensor(bad), DataLossError);
}

}  // namespace
}  // namespace mts
