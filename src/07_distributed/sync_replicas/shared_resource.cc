#include "src/07_distributed/sync_replicas/shared_resource.h"

#include <chrono>
#include <map>
#include <sstream>

#include "src/01_session/graph.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/session.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// A waiter looks at its cancellation this often; a condition change wakes it at once.
constexpr std::chrono::milliseconds kPollInterval(50);

std::mutex& RegistryMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

std::map<std::string, SharedResourceFactory>& Registry() {
  static auto* registry = new std::map<std::string, SharedResourceFactory>;
  return *registry;
}

std::vector<Tensor> InputsAfterHandle(OpKernelContext& ctx) {
  std::vector<Tensor> inputs;
  for (int i = 1; i < ctx.op().num_inputs(); ++i) inputs.push_back(ctx.input(i));
  return inputs;
}

// [mts:shared-resource-kernel]
// Every op on a shared resource: run where the resource lives, else here; a long wait is
// logged, naming what is missing, and the op asks again.
void SharedResourceKernel(OpKernelContext& ctx) {
  const Operation& op = ctx.op();
  const std::vector<Tensor> inputs = InputsAfterHandle(ctx);
  std::optional<std::vector<Tensor>> outputs;
  if (auto* runner = dynamic_cast<SharedResourceRunner*>(ctx.session())) {
    outputs = runner->RunOnOwnerTask(op, inputs);
  }
  if (!outputs) {
    SharedResource& resource = ctx.ref_resource<SharedResource>(0);
    const double slice = WaitWarningSecs(op);
    double waited = 0;
    while (!(outputs = resource.RunOp(op.type(), op.name(), inputs, op.attrs(), {{}, slice}))) {
      waited += slice;
      MTS_LOG(WARNING) << WaitWarningMessage(op, waited);
    }
  }
  for (size_t i = 0; i < outputs->size(); ++i) ctx.set_output(static_cast<int>(i), (*outputs)[i]);
}
// [mts:shared-resource-kernel-end]

void CancelShape(ShapeContext& ctx) {
  if (ctx.inputs.size() != 1 || FindSharedResourceType(ctx.inputs[0].op()->type()) == nullptr) {
    throw TypeError("'" + ctx.op_name + "' needs the owner op of a shared resource as its input");
  }
}
void CancelKernel(OpKernelContext& ctx) {
  const Operation& owner = *ctx.op().input(0).op();
  auto* runner = dynamic_cast<SharedResourceRunner*>(ctx.session());
  if (runner != nullptr && runner->CancelOwnerTaskWaits(owner)) return;
  ctx.ref_resource<SharedResource>(0).Close();
}
const OpRegistration cancel_op([] {
  OpDef def{kCancelSharedResourceWaits, CancelShape, CancelKernel};
  def.stateful = true;
  def.num_ref_inputs = 1;
  def.num_inputs = 1;
  return def;
}());

std::string Seconds(double secs) {
  std::ostringstream out;
  out << secs;
  return out.str();
}

}  // namespace

void SharedResource::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

bool SharedResource::WaitLocked(std::unique_lock<std::mutex>& lock,
                                const std::function<bool()>& ready, const WaitLimit& wait,
                                const std::string& op_name, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const bool limited = wait.max_wait_secs >= 0;
  const Clock::time_point give_up =
      Clock::now() +
      std::chrono::microseconds(static_cast<int64_t>((limited ? wait.max_wait_secs : 0) * 1e6));
  for (;;) {
    if (closed_ || (wait.cancelled && wait.cancelled())) {
      throw CancelledError(op_name + " was cancelled while waiting for " + what +
                               " (the session closed, the server stopped, or the Coordinator "
                               "asked the threads to stop).",
                           op_name);
    }
    if (ready()) return true;
    const Clock::time_point now = Clock::now();
    if (limited && now >= give_up) return false;
    Clock::time_point until = now + kPollInterval;
    if (limited && give_up < until) until = give_up;
    cv_.wait_until(lock, until);
  }
}

void RegisterSharedResourceType(const std::string& owner_type, SharedResourceFactory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry()[owner_type] = factory;
}

SharedResourceFactory FindSharedResourceType(const std::string& owner_type) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(owner_type);
  return it == Registry().end() ? nullptr : it->second;
}

const std::string& SharedNameOf(const Operation& owner) {
  return owner.attr<std::string>("shared_name");
}

double WaitWarningSecs(const Operation& op) {
  auto it = op.attrs().find("wait_warning_secs");
  if (it == op.attrs().end() || !std::holds_alternative<double>(it->second)) return -1;
  const double secs = std::get<double>(it->second);
  return secs > 0 ? secs : -1;
}

std::string WaitWarningMessage(const Operation& op, double waited_secs) {
  std::string text = op.name() + " (" + op.type() + " on " + SharedNameOf(*op.input(0).op()) +
                     ") has waited " + Seconds(waited_secs) + " s";
  auto it = op.attrs().find("wait_warning");
  if (it != op.attrs().end() && std::holds_alternative<std::string>(it->second)) {
    text += " for " + std::get<std::string>(it->second);
  }
  return text + ". It goes on waiting.";
}

OpDef SharedResourceOpDef(const char* type, ShapeFn shape) {
  OpDef def{type, shape, SharedResourceKernel};
  def.stateful = true;
  def.num_ref_inputs = 1;
  return def;
}

Operation* CancelWaits(Operation* owner, const std::string& name) {
  return owner->graph()->AddOperation(kCancelSharedResourceWaits,
                                      name.empty() ? owner->name() + "_CancelWaits" : name,
                                      {owner->output(0)});
}

}  // namespace mts
