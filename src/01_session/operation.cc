#include "src/01_session/operation.h"

#include "src/01_session/graph.h"

namespace mts {

// An Output holds the non-const pointer the Graph hands out for its ops (targets, control
// inputs and collections take that pointer). The graph owns its ops, so it is the graph
// that turns this const op back into its handle, as a container turns a const_iterator
// into an iterator; an Operation never changes after creation, whoever holds it.
Output Operation::output(int i) const { return Output(graph_->OperationById(id_), i); }

Graph* Output::graph() const { return op_->graph(); }

std::string Output::name() const { return op_->name() + ":" + std::to_string(index_); }

DataType Output::dtype() const { return op_->output_dtype(index_); }

const TensorShape& Output::shape() const { return op_->output_shape(index_); }

bool Output::operator<(const Output& other) const {
  // Ops of one graph compare by creation id, which makes FeedDict iteration deterministic;
  // the pointer breaks ties between graphs.
  if (op_ != other.op_) {
    if (op_ == nullptr || other.op_ == nullptr) return op_ < other.op_;
    if (op_->id() != other.op_->id()) return op_->id() < other.op_->id();
    return op_ < other.op_;
  }
  return index_ < other.index_;
}

}  // namespace mts
