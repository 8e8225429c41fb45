#include "src/07_distributed/sync_replicas/sync_token_queue.h"

#include <utility>

#include "src/01_session/op_kernel_context.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

constexpr char kQueueType[] = "SyncTokenQueue";
// A job puts one token per replica per update; a request for more than this many at once is
// refused before anything is queued, so no message can make a ps allocate without bound.
constexpr int64_t kMaxTokensAtOnce = int64_t{1} << 20;

const Operation* Self(const Operation& op) { return &op; }

void QueueShape(ShapeContext& ctx) { ctx.AddOutput(DataType::kString, TensorShape{}); }
void QueueKernel(OpKernelContext& ctx) { ctx.set_output(0, Tensor::Scalar(ctx.op().name())); }
const OpRegistration queue_op([] {
  OpDef def{kQueueType, QueueShape, QueueKernel};
  def.stateful = true;
  def.resource_owner = Self;
  def.resource_factory = SyncTokenQueueResource::Create;
  return def;
}());

void CheckHandle(const ShapeContext& ctx) {
  if (ctx.inputs.empty() || ctx.inputs[0].op()->type() != kQueueType) {
    throw TypeError("'" + ctx.op_name + "' needs a SyncTokenQueue as its first input");
  }
}
void EnqueueShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  if (ctx.inputs.size() != 2 || ctx.inputs[1].dtype() != DataType::kInt64) {
    throw TypeError("'" + ctx.op_name + "' takes the queue and an int64 token");
  }
  if (ctx.attr<int64_t>("num_tokens") < 0) {
    throw ValueError("'" + ctx.op_name + "' cannot enqueue a negative number of tokens");
  }
}
void DequeueShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  ctx.AddOutput(DataType::kInt64, TensorShape{});
}
void SizeShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  ctx.AddOutput(DataType::kInt32, TensorShape{});
}
const OpRegistration enqueue_op(SharedResourceOpDef("EnqueueTokens", EnqueueShape));
const OpRegistration dequeue_op(SharedResourceOpDef("DequeueToken", DequeueShape));
const OpRegistration size_op(SharedResourceOpDef("TokenQueueSize", SizeShape));

const bool registered = [] {
  RegisterSharedResourceType(kQueueType, SyncTokenQueueResource::CreateShared);
  return true;
}();

}  // namespace

SyncTokenQueueResource::SyncTokenQueueResource(std::string name) : name_(std::move(name)) {
  (void)registered;
}

std::shared_ptr<ResourceBase> SyncTokenQueueResource::Create(const Operation& owner) {
  return std::make_shared<SyncTokenQueueResource>(SharedNameOf(owner));
}

std::shared_ptr<SharedResource> SyncTokenQueueResource::CreateShared(const std::string& name,
                                                                     const AttrMap&) {
  return std::make_shared<SyncTokenQueueResource>(name);
}

void SyncTokenQueueResource::Enqueue(int64_t token, int64_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < count; ++i) tokens_.push_back(token);
  NotifyLocked();
}

std::optional<int64_t> SyncTokenQueueResource::Dequeue(const WaitLimit& wait,
                                                       const std::string& op_name) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!WaitLocked(
          lock, [&] { return !tokens_.empty(); }, wait, op_name, "a token in " + name_)) {
    return std::nullopt;
  }
  const int64_t token = tokens_.front();
  tokens_.pop_front();
  return token;
}

int32_t SyncTokenQueueResource::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int32_t>(tokens_.size());
}

void SyncTokenQueueResource::WaitForSize(int32_t n) {
  std::unique_lock<std::mutex> lock(mu_);
  WaitLocked(
      lock, [&] { return static_cast<int32_t>(tokens_.size()) >= n; }, {}, "WaitForSize",
      std::to_string(n) + " tokens in " + name_);
}

std::optional<std::vector<Tensor>> SyncTokenQueueResource::RunOp(const std::string& op_type,
                                                                 const std::string& op_name,
                                                                 const std::vector<Tensor>& inputs,
                                                                 const AttrMap& attrs,
                                                                 const WaitLimit& wait) {
  if (op_type == "EnqueueTokens") {
    auto count = attrs.find("num_tokens");
    if (inputs.size() != 1 || inputs[0].dtype() != DataType::kInt64 ||
        inputs[0].num_elements() != 1 || count == attrs.end() ||
        !std::holds_alternative<int64_t>(count->second) || std::get<int64_t>(count->second) < 0) {
      throw InvalidArgumentError(
          op_name + " needs an int64 token and a count of at least 0; the message is damaged.",
          op_name);
    }
    if (std::get<int64_t>(count->second) > kMaxTokensAtOnce) {
      throw InvalidArgumentError(
          op_name + " asks for " + std::to_string(std::get<int64_t>(count->second)) +
              " tokens at once; at most " + std::to_string(kMaxTokensAtOnce) + " can be put.",
          op_name);
    }
    Enqueue(inputs[0].scalar<int64_t>(), std::get<int64_t>(count->second));
    return std::vector<Tensor>{};
  }
  if (op_type == "DequeueToken") {
    std::optional<int64_t> token = Dequeue(wait, op_name);
    if (!token) return std::nullopt;
    return std::vector<Tensor>{Tensor::Scalar(*token)};
  }
  if (op_type == "TokenQueueSize") return std::vector<Tensor>{Tensor::Scalar(Size())};
  throw InvalidArgumentError(op_type + " is not an op on a SyncTokenQueue.", op_name);
}

SyncTokenQueue::SyncTokenQueue(const std::string& shared_name, const std::string& name) {
  op_ = GetDefaultGraph().AddOperation(kQueueType, name.empty() ? shared_name : name, {},
                                       {{"shared_name", shared_name}});
}

Operation* SyncTokenQueue::EnqueueTokens(const Output& token, int64_t count,
                                         const std::string& name) const {
  return op_->graph()->AddOperation("EnqueueTokens",
                                    name.empty() ? op_->name() + "_EnqueueTokens" : name,
                                    {op_->output(0), token}, {{"num_tokens", count}});
}

Output SyncTokenQueue::DequeueToken(double wait_warning_secs, const std::string& wait_warning,
                                    const std::string& name) const {
  return op_->graph()
      ->AddOperation("DequeueToken", name.empty() ? op_->name() + "_Dequeue" : name,
                     {op_->output(0)},
                     {{"wait_warning_secs", wait_warning_secs}, {"wait_warning", wait_warning}})
      ->output(0);
}

Output SyncTokenQueue::Size(const std::string& name) const {
  return op_->graph()
      ->AddOperation("TokenQueueSize", name.empty() ? op_->name() + "_Size" : name,
                     {op_->output(0)})
      ->output(0);
}

}  // namespace mts
