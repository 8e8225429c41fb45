// RemoteSession's shared resources: the ops on a gradient accumulator or a token queue
// placed on a ps task run there, one RunResourceOp RPC each (remote_session.h).
#include <grpcpp/grpcpp.h>

#include "src/07_distributed/remote_session.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

thread_local std::unique_lock<std::mutex>* RemoteSession::current_step_lock_ = nullptr;

RemoteSession::StepLockScope::StepLockScope(std::unique_lock<std::mutex>* lock)
    : previous(current_step_lock_) {
  current_step_lock_ = lock;
}

RemoteSession::StepLockScope::~StepLockScope() { current_step_lock_ = previous; }

bool RemoteSession::IsPlacedVariableUpdate(const Operation& op) const {
  for (int i = 0; i < op.def().num_ref_inputs; ++i) {
    const Operation& ref = *op.input(i).op();
    if (ref.type() == "VariableV2" && placement_.count(ref.name())) return true;
  }
  return false;
}

// Whether `op` runs after an update of a placed variable, through data or control edges.
bool RemoteSession::DependsOnUpdate(const Operation& op,
                                    std::map<const Operation*, bool>& memo) const {
  auto it = memo.find(&op);
  if (it != memo.end()) return it->second;
  memo[&op] = false;  // Graphs are acyclic; this only stops repeated work.
  bool depends = false;
  for (int i = 0; i < op.num_inputs() && !depends; ++i) {
    const Operation& in = *op.input(i).op();
    depends = IsPlacedVariableUpdate(in) || DependsOnUpdate(in, memo);
  }
  for (const Operation* in : op.control_inputs()) {
    if (depends) break;
    depends = IsPlacedVariableUpdate(*in) || DependsOnUpdate(*in, memo);
  }
  return memo[&op] = depends;
}

// [mts:remote-deferred]
// An op on a placed shared resource runs on its ps task while the step waits, except one
// that depends on the step's updates (the chief's "put the tokens" after the aggregated
// update): the updates reach the ps only when the step ends, so it runs after them, with
// its inputs fetched like an update's.
void RemoteSession::PlanSharedResourceOp(const Operation& op, StepPlan& plan,
                                         std::map<const Operation*, bool>& memo) {
  auto placed = placement_.find(op.input(0).op()->name());
  if (placed == placement_.end() || !DependsOnUpdate(op, memo)) return;
  if (op.num_outputs() > 0) {
    throw UnimplementedError("Op " + op.name() + " on shared resource " + op.input(0).op()->name() +
                                 " depends on an update of a variable on a ps task and has "
                                 "outputs; only ops without outputs can run after the updates.",
                             op.name());
  }
  {
    std::lock_guard<std::mutex> lock(plans_mu_);
    deferred_.insert(&op);
  }
  plan.deferred.push_back({&op, placed->second, static_cast<int>(plan.extra_fetches.size())});
  for (int i = 1; i < op.num_inputs(); ++i) plan.extra_fetches.push_back(op.input(i));
}
// [mts:remote-deferred-end]

void RemoteSession::RunDeferred(const StepPlan& plan, const std::vector<Tensor>& results,
                                size_t offset) {
  for (const StepPlan::Writer& deferred : plan.deferred) {
    const auto first =
        results.begin() + static_cast<std::ptrdiff_t>(offset + deferred.first_extra_fetch);
    CallOwnerTask(*deferred.op, std::vector<Tensor>(first, first + deferred.op->num_inputs() - 1),
                  deferred.task);
  }
}

std::optional<std::vector<Tensor>> RemoteSession::RunOnOwnerTask(
    const Operation& op, const std::vector<Tensor>& inputs) {
  auto placed = placement_.find(op.input(0).op()->name());
  if (placed == placement_.end()) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(plans_mu_);
    if (deferred_.count(&op)) return std::vector<Tensor>{};  // RunDeferred sends it.
  }
  return CallOwnerTask(op, inputs, placed->second);
}

namespace {

// The RunResourceOp request for `op` (its resource, inputs and attributes).
distributed::RunResourceOpRequest ResourceOpRequest(const Operation& op,
                                                    const std::vector<Tensor>& inputs,
                                                    uint64_t incarnation) {
  const Operation& owner = *op.input(0).op();
  distributed::RunResourceOpRequest request;
  request.set_incarnation(incarnation);
  request.mutable_resource()->set_name(SharedNameOf(owner));
  request.mutable_resource()->set_type(owner.type());
  for (const auto& [name, value] : owner.attrs()) {
    EncodeAttr(value, &(*request.mutable_resource()->mutable_attrs())[name]);
  }
  request.set_op_type(op.type());
  request.set_op_name(op.name());
  for (const Tensor& t : inputs) EncodeTensor(t, request.add_inputs());
  for (const auto& [name, value] : op.attrs()) EncodeAttr(value, &(*request.mutable_attrs())[name]);
  const double slice = WaitWarningSecs(op);
  request.set_max_wait_secs(slice > 0 ? slice : 0);
  return request;
}

// Lets the step lock go for the life of this object, if `lock` holds it.
class StepUnlock {
 public:
  explicit StepUnlock(std::unique_lock<std::mutex>* lock)
      : lock_(lock != nullptr && lock->owns_lock() ? lock : nullptr) {
    if (lock_ != nullptr) lock_->unlock();
  }
  ~StepUnlock() {
    if (lock_ != nullptr) lock_->lock();
  }

 private:
  std::unique_lock<std::mutex>* lock_;
};

}  // namespace

// [mts:remote-resource-op]
std::vector<Tensor> RemoteSession::CallOwnerTask(const Operation& op,
                                                 const std::vector<Tensor>& inputs, int task) {
  const distributed::RunResourceOpRequest request =
      ResourceOpRequest(op, inputs, incarnations_.at(task));
  // While an op that can wait (a take, a token) waits, other steps of this session go on:
  // on the chief, the train op waits for a token only the queue runner's step can put.
  // Only such ops let the lock go, and a worker's step runs them after its gradients are
  // computed, so no step computes from local copies another step is changing.
  StepUnlock unlock(op.attrs().count("wait_warning_secs") ? current_step_lock_ : nullptr);
  for (double waited = 0;;) {
    const distributed::RunResourceOpResponse response = CancellableCall(op, request, task);
    if (!response.timed_out()) {
      std::vector<Tensor> outputs;
      for (const auto& proto : response.outputs()) outputs.push_back(DecodeTensor(proto));
      return outputs;
    }
    waited += request.max_wait_secs();
    MTS_LOG(WARNING) << WaitWarningMessage(op, waited);
  }
}
// [mts:remote-resource-op-end]

distributed::RunResourceOpResponse RemoteSession::CancellableCall(
    const Operation& op, const distributed::RunResourceOpRequest& request, int task) {
  grpc::ClientContext context;
  {
    std::lock_guard<std::mutex> lock(waits_mu_);
    if (waits_cancelled_) {
      throw CancelledError(op.name() + " on " + request.resource().name() +
                               " was not run: this session's waits on shared resources were "
                               "cancelled (its Coordinator stopped, or it closed).",
                           op.name());
    }
    waits_.insert(&context);
  }
  struct Unregister {
    RemoteSession* session;
    grpc::ClientContext* context;
    ~Unregister() {
      std::lock_guard<std::mutex> lock(session->waits_mu_);
      session->waits_.erase(context);
    }
  } unregister{this, &context};
  distributed::RunResourceOpResponse response = clients_.at(task)->RunResourceOp(request, context);
  std::lock_guard<std::mutex> lock(stats_mu_);
  ++num_rpcs_;
  return response;
}

bool RemoteSession::CancelOwnerTaskWaits(const Operation& owner) {
  if (!placement_.count(owner.name())) return false;
  std::lock_guard<std::mutex> lock(waits_mu_);
  waits_cancelled_ = true;
  for (grpc::ClientContext* context : waits_) context->TryCancel();
  return true;
}

void RemoteSession::Close() {
  {
    std::lock_guard<std::mutex> lock(waits_mu_);
    waits_cancelled_ = true;
    for (grpc::ClientContext* context : waits_) context->TryCancel();
  }
  Session::Close();
}

}  // namespace mts
