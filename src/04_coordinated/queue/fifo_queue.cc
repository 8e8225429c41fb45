#include "src/04_coordinated/queue/fifo_queue.h"

#include <utility>

#include "src/01_session/op_kernel_context.h"
#include "src/04_coordinated/queue/fifo_queue_resource.h"

namespace mts {

namespace {

constexpr const char* kQueueOpType = "FIFOQueueV2";

const Operation* Self(const Operation& op) { return &op; }

// Every op that uses a queue takes the queue op's output as its reference input 0: the
// executor hands the kernel the queue's resource through it, and never materialises it.
OpDef QueueUserDef(const char* type, ShapeFn shape, KernelFn kernel) {
  OpDef def{type, shape, kernel};
  def.stateful = true;
  def.num_ref_inputs = 1;
  return def;
}

FIFOQueueResource& QueueOf(OpKernelContext& ctx) { return ctx.ref_resource<FIFOQueueResource>(0); }

// The components of the queue behind input 0. \throws TypeError if input 0 is no queue.
QueueComponents CheckedQueueInput(const ShapeContext& ctx) {
  if (ctx.inputs.empty() || ctx.inputs[0].op()->type() != kQueueOpType) {
    throw TypeError("'" + ctx.op_name + "' needs a queue handle as its first input" +
                    (ctx.inputs.empty() ? std::string() : ", got '" + ctx.inputs[0].name() + "'"));
  }
  return QueueComponentsOf(*ctx.inputs[0].op());
}

// Build-time checks shared by both enqueue ops: count and dtypes of the components.
QueueComponents CheckEnqueueInputs(const ShapeContext& ctx) {
  QueueComponents queue = CheckedQueueInput(ctx);
  const std::string& queue_name = ctx.inputs[0].op()->name();
  const size_t given = ctx.inputs.size() - 1;
  if (given != queue.dtypes.size()) {
    throw ValueError("'" + ctx.op_name + "': FIFOQueue '" + queue_name + "' expects " +
                     std::to_string(queue.dtypes.size()) + " components, got " +
                     std::to_string(given));
  }
  for (size_t i = 0; i < given; ++i) {
    const DataType dtype = ctx.inputs[i + 1].dtype();
    if (dtype != queue.dtypes[i]) {
      throw TypeError("'" + ctx.op_name + "': component " + std::to_string(i) + " of FIFOQueue '" +
                      queue_name + "' has dtype " + DataTypeName(queue.dtypes[i]) + ", got " +
                      DataTypeName(dtype) + " from '" + ctx.inputs[i + 1].name() + "'");
    }
  }
  return queue;
}

// Merges static shapes, turning TensorShape's ValueError into one that names the op.
void CheckCompatible(const std::string& op_name, const TensorShape& expected,
                     const TensorShape& given) {
  try {
    expected.MergeWith(given);
  } catch (const ValueError& e) {
    throw ValueError("'" + op_name + "': " + e.what());
  }
}

std::string TupleComponent(size_t i) { return "tuple component " + std::to_string(i); }

// Run-time check of one element against the queue (TensorFlow's ValidateTuple).
// The session feeds only tensors of the static dtype, so the dtype check is a last line
// of defence; the shape check is real, since an input's static shape may be unknown.
void ValidateElement(OpKernelContext& ctx, const FIFOQueueResource& queue,
                     const std::vector<Tensor>& tuple) {
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != queue.dtypes()[i]) {
      throw InvalidArgumentError("Type mismatch in " + TupleComponent(i) + ". Expected " +
                                     DataTypeName(queue.dtypes()[i]) + ", got " +
                                     DataTypeName(tuple[i].dtype()),
                                 ctx.op().name());
    }
    if (!queue.shapes().empty() && tuple[i].shape() != queue.shapes()[i]) {
      throw InvalidArgumentError("Shape mismatch in " + TupleComponent(i) + ". Expected " +
                                     queue.shapes()[i].ToString() + ", got " +
                                     tuple[i].shape().ToString(),
                                 ctx.op().name());
    }
  }
}

std::vector<Tensor> DataInputs(OpKernelContext& ctx) {
  std::vector<Tensor> tuple;
  for (int i = 1; i < ctx.op().num_inputs(); ++i) tuple.push_back(ctx.input(i));
  return tuple;
}

TensorShape WithBatchDim(int64_t batch, const TensorShape& element) {
  if (!element.has_rank()) return TensorShape::Unknown();
  std::vector<int64_t> dims{batch};
  dims.insert(dims.end(), element.dims().begin(), element.dims().end());
  return TensorShape(std::move(dims));
}

// ---- FIFOQueueV2: declares the queue; its output is only a handle --------------------------

void QueueShape(ShapeContext& ctx) { ctx.AddOutput(DataType::kString, TensorShape{}); }
void QueueKernel(OpKernelContext& ctx) {
  // Nothing reads this value (queue users take the handle as a reference input); the name
  // makes it self-describing should someone fetch it.
  ctx.set_output(0, Tensor::Scalar(ctx.op().name()));
}
const OpRegistration queue_op([] {
  OpDef def{kQueueOpType, QueueShape, QueueKernel};
  def.stateful = true;
  def.resource_owner = Self;
  def.resource_factory = FIFOQueueResource::Create;
  return def;
}());

// ---- QueueEnqueueV2 -------------------------------------------------------------------------

void EnqueueShape(ShapeContext& ctx) {
  QueueComponents queue = CheckEnqueueInputs(ctx);
  for (size_t i = 0; i < queue.shapes.size(); ++i) {
    CheckCompatible(ctx.op_name, queue.shapes[i], ctx.inputs[i + 1].shape());
  }
}
void EnqueueKernel(OpKernelContext& ctx) {
  FIFOQueueResource& queue = QueueOf(ctx);
  std::vector<Tensor> tuple = DataInputs(ctx);
  ValidateElement(ctx, queue, tuple);
  queue.Enqueue(std::move(tuple), ctx.op().name(), ctx.deadline());
}
const OpRegistration enqueue_op(QueueUserDef("QueueEnqueueV2", EnqueueShape, EnqueueKernel));

// ---- QueueEnqueueManyV2 ---------------------------------------------------------------------

void EnqueueManyShape(ShapeContext& ctx) {
  QueueComponents queue = CheckEnqueueInputs(ctx);
  TensorShape batch{TensorShape::kUnknownDim};
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    const TensorShape& shape = ctx.inputs[i].shape();
    if (!shape.has_rank()) continue;
    if (shape.rank() == 0) {
      throw ValueError("'" + ctx.op_name + "': component " + std::to_string(i - 1) + " ('" +
                       ctx.inputs[i].name() + "') must have rank at least 1, the batch " +
                       "dimension, but is a scalar");
    }
    const TensorShape first{shape.dim(0)};
    CheckCompatible(ctx.op_name, batch, first);
    batch = batch.MergeWith(first);
    if (!queue.shapes.empty()) {
      std::vector<int64_t> rest(shape.dims().begin() + 1, shape.dims().end());
      CheckCompatible(ctx.op_name, queue.shapes[i - 1], TensorShape(std::move(rest)));
    }
  }
}
void EnqueueManyKernel(OpKernelContext& ctx) {
  FIFOQueueResource& queue = QueueOf(ctx);
  std::vector<Tensor> batch = DataInputs(ctx);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].shape().rank() == 0) {
      throw InvalidArgumentError(
          "EnqueueMany needs each component to have a batch "
          "dimension; " +
              TupleComponent(i) + " is a scalar",
          ctx.op().name());
    }
  }
  const int64_t rows = batch[0].shape().dim(0);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].dtype() != queue.dtypes()[i]) {
      throw InvalidArgumentError("Type mismatch in " + TupleComponent(i) + ". Expected " +
                                     DataTypeName(queue.dtypes()[i]) + ", got " +
                                     DataTypeName(batch[i].dtype()),
                                 ctx.op().name());
    }
    if (!queue.shapes().empty()) {
      const TensorShape expected = WithBatchDim(rows, queue.shapes()[i]);
      if (batch[i].shape() != expected) {
        throw InvalidArgumentError("Shape mismatch in " + TupleComponent(i) + ". Expected " +
                                       expected.ToString() + ", got " + batch[i].shape().ToString(),
                                   ctx.op().name());
      }
    } else if (batch[i].shape().dim(0) != rows) {
      throw InvalidArgumentError(
          "All input tensors must have the same size in the 0th dimension. Component " +
              std::to_string(i) + " has " + std::to_string(batch[i].shape().dim(0)) +
              ", and should have " + std::to_string(rows),
          ctx.op().name());
    }
  }
  queue.EnqueueMany(batch, ctx.op().name());
}
const OpRegistration enqueue_many_op(QueueUserDef("QueueEnqueueManyV2", EnqueueManyShape,
                                                  EnqueueManyKernel));

// ---- QueueDequeueV2 -------------------------------------------------------------------------

void DequeueShape(ShapeContext& ctx) {
  QueueComponents queue = CheckedQueueInput(ctx);
  for (size_t i = 0; i < queue.dtypes.size(); ++i) {
    ctx.AddOutput(queue.dtypes[i], queue.shapes.empty() ? TensorShape::Unknown() : queue.shapes[i]);
  }
}
void DequeueKernel(OpKernelContext& ctx) {
  std::vector<Tensor> tuple = QueueOf(ctx).Dequeue(ctx.op().name(), ctx.deadline());
  for (size_t i = 0; i < tuple.size(); ++i) {
    ctx.set_output(static_cast<int>(i), std::move(tuple[i]));
  }
}
const OpRegistration dequeue_op(QueueUserDef("QueueDequeueV2", DequeueShape, DequeueKernel));

// ---- QueueDequeueManyV2 ---------------------------------------------------------------------

void DequeueManyShape(ShapeContext& ctx) {
  QueueComponents queue = CheckedQueueInput(ctx);
  const int64_t n = ctx.attr<int64_t>("n");
  if (n < 0) {
    throw ValueError("'" + ctx.op_name + "': cannot dequeue a negative number of elements (" +
                     std::to_string(n) + ")");
  }
  for (size_t i = 0; i < queue.dtypes.size(); ++i) {
    ctx.AddOutput(queue.dtypes[i],
                  queue.shapes.empty() ? TensorShape::Unknown() : WithBatchDim(n, queue.shapes[i]));
  }
}
void DequeueManyKernel(OpKernelContext& ctx) {
  FIFOQueueResource& queue = QueueOf(ctx);
  if (queue.shapes().empty()) {
    throw InvalidArgumentError(
        "FIFOQueue's DequeueMany and DequeueUpTo require the "
        "components to have specified shapes.",
        ctx.op().name());
  }
  std::vector<Tensor> stacked = queue.DequeueMany(ctx.op().attr<int64_t>("n"), ctx.op().name());
  for (size_t i = 0; i < stacked.size(); ++i) {
    ctx.set_output(static_cast<int>(i), std::move(stacked[i]));
  }
}
const OpRegistration dequeue_many_op(QueueUserDef("QueueDequeueManyV2", DequeueManyShape,
                                                  DequeueManyKernel));

// ---- QueueCloseV2 and QueueSizeV2 -----------------------------------------------------------

void CloseShape(ShapeContext& ctx) { CheckedQueueInput(ctx); }
void CloseKernel(OpKernelContext& ctx) {
  QueueOf(ctx).CloseQueue(ctx.op().attr<bool>("cancel_pending_enqueues"), ctx.op().name());
}
const OpRegistration close_op(QueueUserDef("QueueCloseV2", CloseShape, CloseKernel));

void SizeShape(ShapeContext& ctx) {
  CheckedQueueInput(ctx);
  ctx.AddOutput(DataType::kInt32, TensorShape{});
}
void SizeKernel(OpKernelContext& ctx) { ctx.set_output(0, Tensor::Scalar(QueueOf(ctx).Size())); }
const OpRegistration size_op(QueueUserDef("QueueSizeV2", SizeShape, SizeKernel));

}  // namespace

// ---- The handle -----------------------------------------------------------------------------

Queue::Queue(Operation* queue_op) : op_(queue_op) {
  if (queue_op == nullptr || queue_op->type() != kQueueOpType) {
    throw TypeError("Queue needs a " + std::string(kQueueOpType) + " op, got " +
                    (queue_op == nullptr
                         ? std::string("null")
                         : "'" + queue_op->name() + "' (" + queue_op->type() + ")"));
  }
  QueueComponents components = QueueComponentsOf(*queue_op);
  dtypes_ = std::move(components.dtypes);
  shapes_ = std::move(components.shapes);
}

const std::string& Queue::name() const { return op_->name(); }

int64_t Queue::capacity() const { return op_->attr<int64_t>("capacity"); }

Operation* Queue::AddQueueOp(const std::string& type, const std::string& name,
                             const std::string& default_suffix, std::vector<Output> inputs,
                             AttrMap attrs) const {
  inputs.insert(inputs.begin(), op_->output(0));
  // TensorFlow's default names the queue's ops after it: "fifo_queue_Dequeue".
  const std::string base = name.empty() ? op_->name() + default_suffix : name;
  return op_->graph()->AddOperation(type, base, std::move(inputs), std::move(attrs));
}

Operation* Queue::Enqueue(const std::vector<Output>& components, const std::string& name) const {
  return AddQueueOp("QueueEnqueueV2", name, "_enqueue", components);
}

Operation* Queue::EnqueueMany(const std::vector<Output>& components,
                              const std::string& name) const {
  return AddQueueOp("QueueEnqueueManyV2", name, "_EnqueueMany", components);
}

std::vector<Output> Queue::Dequeue(const std::string& name) const {
  Operation* op = AddQueueOp("QueueDequeueV2", name, "_Dequeue", {});
  std::vector<Output> outputs;
  for (int i = 0; i < op->num_outputs(); ++i) outputs.push_back(op->output(i));
  return outputs;
}

std::vector<Output> Queue::DequeueMany(int64_t n, const std::string& name) const {
  Operation* op = AddQueueOp("QueueDequeueManyV2", name, "_DequeueMany", {}, {{"n", n}});
  std::vector<Output> outputs;
  for (int i = 0; i < op->num_outputs(); ++i) outputs.push_back(op->output(i));
  return outputs;
}

Operation* Queue::Close(bool cancel_pending_enqueues, const std::string& name) const {
  return AddQueueOp("QueueCloseV2", name, "_Close", {},
                    {{"cancel_pending_enqueues", cancel_pending_enqueues}});
}

Output Queue::Size(const std::string& name) const {
  return AddQueueOp("QueueSizeV2", name, "_Size", {})->output(0);
}

// [mts:fifo-queue-build]
Queue FIFOQueue(int64_t capacity, const std::vector<DataType>& dtypes,
                const std::vector<TensorShape>& shapes, const std::string& name) {
  if (dtypes.empty()) {
    throw ValueError("FIFOQueue '" + name + "' needs at least one component dtype");
  }
  if (!shapes.empty() && shapes.size() != dtypes.size()) {
    throw ValueError("FIFOQueue '" + name + "': queue shapes must have the same length as " +
                     "dtypes (" + std::to_string(shapes.size()) + " shapes, " +
                     std::to_string(dtypes.size()) + " dtypes)");
  }
  for (const TensorShape& shape : shapes) {
    if (!shape.IsFullyDefined()) {
      throw ValueError("FIFOQueue '" + name + "': all shapes must be fully defined, got " +
                       shape.ToString());
    }
  }
  // The op attributes have no list-of-dtypes or list-of-shapes type: one attribute per
  // component instead.
  AttrMap attrs{{"capacity", capacity}, {"num_components", static_cast<int64_t>(dtypes.size())}};
  for (size_t i = 0; i < dtypes.size(); ++i) {
    attrs["component_type_" + std::to_string(i)] = dtypes[i];
    if (!shapes.empty()) attrs["shape_" + std::to_string(i)] = shapes[i];
  }
  return Queue(GetDefaultGraph().AddOperation(kQueueOpType, name, {}, std::move(attrs)));
}
// [mts:fifo-queue-build-end]

}  // namespace mts
