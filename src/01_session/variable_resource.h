// variable_resource.h: where one session keeps one variable's value.
//
//   Session  <-- its ResourceMgr holds a VariableResource per variable op it has run
//
// The graph's VariableV2 op is only a name and a shape; the value lives here, in the
// session, guarded by its own mutex so concurrent steps never see a torn tensor. Updates
// (Assign, AssignAdd, the optimizers' Apply ops) replace the value, or change it in place
// when no one else holds the buffer, which is what makes a training step allocation-free.
//
// TensorFlow: the ref-typed buffer behind a VariableV2 kernel
// (tensorflow/core/kernels/variable_ops.h).
#ifndef MTS_SRC_01_SESSION_VARIABLE_RESOURCE_H_
#define MTS_SRC_01_SESSION_VARIABLE_RESOURCE_H_

#include <mutex>

#include "src/01_session/resource_mgr.h"
#include "src/01_session/tensor.h"

namespace mts {

/// One variable's value in one session. Unset (`!value.IsInitialized()`) until assigned.
class VariableResource : public ResourceBase {
 public:
  /// Guards `value`.
  std::mutex mu;
  /// The current value; guarded by mu.
  Tensor value;

  /// The value, ready to be changed in place: copied first if another handle shares its
  /// buffer (a fetched value, the constant it was assigned from), so no reader sees the
  /// change. \pre mu is held. 	hrows FailedPreconditionError naming `variable_name` (and
  /// the updating op `op_name`) if the variable is unset.
  Tensor& MutableValue(const std::string& variable_name, const std::string& op_name);

  /// Makes the resource for a VariableV2 op (used as its OpDef resource factory).
  static std::shared_ptr<ResourceBase> Create(const Operation& owner);
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_VARIABLE_RESOURCE_H_
