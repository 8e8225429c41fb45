#include "src/01_session/operation.h"

namespace mts {

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
