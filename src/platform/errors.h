// errors.h: the exceptions of mts, one per canonical error code of tf.errors.
//
// Platform, below every stage: a Session raises them, the file system too, and the layers
// above sort them by class, never by message (preemption errors are recovered, stage 05;
// OutOfRangeError is a clean end of input, stage 06). Every OpError carries a canonical
// code; ValueError, TypeError and RuntimeError mirror the Python exceptions TensorFlow
// raises for mistakes made while building a graph or using a closed session. Messages name
// the op, tensor or file at fault.
//
// TensorFlow: tensorflow/python/framework/errors_impl.py.
#ifndef MTS_SRC_PLATFORM_ERRORS_H_
#define MTS_SRC_PLATFORM_ERRORS_H_

#include <stdexcept>
#include <string>

namespace mts {

/// The canonical error codes, with TensorFlow's numbering.
enum class ErrorCode {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

/// The name of a code as TensorFlow spells it ("ABORTED", "OUT_OF_RANGE", ...).
const char* ErrorCodeName(ErrorCode code);

/// The base of every error raised while running a graph (TensorFlow's `tf.errors.OpError`).
///
/// Catch `OpError` to handle any of them, or a subclass to handle one code. `op_name()`
/// names the operation that failed when there is one ("" otherwise).
class OpError : public std::runtime_error {
 public:
  /// Makes an error with `code`, a message, and the name of the op at fault (may be empty).
  OpError(ErrorCode code, const std::string& message, const std::string& op_name = "");

  /// The canonical code of this error.
  ErrorCode code() const { return code_; }
  /// The message alone, without the op annotation `what()` adds.
  const std::string& message() const { return message_; }
  /// The name of the operation that failed, or "" when none is known.
  const std::string& op_name() const { return op_name_; }

 private:
  ErrorCode code_;
  std::string message_;
  std::string op_name_;
};

// One class per canonical code, written out so that `grep "class AbortedError"` finds it.
// They add nothing but their type, which is what the layers above catch.

/// TensorFlow's `tf.errors.CancelledError`: the operation was cancelled (a queue closed under a waiting dequeue, a session closed mid-run).
class CancelledError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit CancelledError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kCancelled, message, op_name) {}
};

/// TensorFlow's `tf.errors.UnknownError`: an error of no other class.
class UnknownError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit UnknownError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kUnknown, message, op_name) {}
};

/// TensorFlow's `tf.errors.InvalidArgumentError`: a bad argument at run time: a feed of the wrong shape, an unfed placeholder.
class InvalidArgumentError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit InvalidArgumentError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kInvalidArgument, message, op_name) {}
};

/// TensorFlow's `tf.errors.DeadlineExceededError`: a deadline passed before the operation completed.
class DeadlineExceededError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit DeadlineExceededError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kDeadlineExceeded, message, op_name) {}
};

/// TensorFlow's `tf.errors.NotFoundError`: a file, tensor or target that does not exist.
class NotFoundError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit NotFoundError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kNotFound, message, op_name) {}
};

/// TensorFlow's `tf.errors.AlreadyExistsError`: something to be created already exists.
class AlreadyExistsError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit AlreadyExistsError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kAlreadyExists, message, op_name) {}
};

/// TensorFlow's `tf.errors.PermissionDeniedError`: the caller may not do this (a file it cannot write).
class PermissionDeniedError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit PermissionDeniedError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kPermissionDenied, message, op_name) {}
};

/// TensorFlow's `tf.errors.ResourceExhaustedError`: a resource ran out: a full disk, too many open files, memory.
class ResourceExhaustedError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit ResourceExhaustedError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kResourceExhausted, message, op_name) {}
};

/// TensorFlow's `tf.errors.FailedPreconditionError`: the system is not in the state the operation needs (an uninitialized variable).
class FailedPreconditionError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit FailedPreconditionError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kFailedPrecondition, message, op_name) {}
};

/// TensorFlow's `tf.errors.AbortedError`: the operation was aborted, typically by a restarted server: a preemption error.
class AbortedError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit AbortedError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kAborted, message, op_name) {}
};

/// TensorFlow's `tf.errors.OutOfRangeError`: past the end of a range: a dequeue from a closed, empty queue is the clean end of input.
class OutOfRangeError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit OutOfRangeError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kOutOfRange, message, op_name) {}
};

/// TensorFlow's `tf.errors.UnimplementedError`: the operation is not implemented or not supported.
class UnimplementedError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit UnimplementedError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kUnimplemented, message, op_name) {}
};

/// TensorFlow's `tf.errors.InternalError`: an invariant of mts itself was broken.
class InternalError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit InternalError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kInternal, message, op_name) {}
};

/// TensorFlow's `tf.errors.UnavailableError`: the service is unavailable for now (a parameter server down): a preemption error.
class UnavailableError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit UnavailableError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kUnavailable, message, op_name) {}
};

/// TensorFlow's `tf.errors.DataLossError`: data was lost or corrupted: a damaged checkpoint or event file.
class DataLossError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit DataLossError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kDataLoss, message, op_name) {}
};

/// TensorFlow's `tf.errors.UnauthenticatedError`: the caller could not be authenticated.
class UnauthenticatedError : public OpError {
 public:
  /// Makes the error with a message and, optionally, the op at fault.
  explicit UnauthenticatedError(const std::string& message, const std::string& op_name = "")
      : OpError(ErrorCode::kUnauthenticated, message, op_name) {}
};

/// True for the preemption errors, AbortedError and UnavailableError: the ones that mean
/// "the session was lost; build a new one and carry on". The recoverable layer (stage 05)
/// catches exactly these; this is the one place the set is defined (TensorFlow's
/// _PREEMPTION_ERRORS).
inline bool IsPreemptionError(ErrorCode code) {
  return code == ErrorCode::kAborted || code == ErrorCode::kUnavailable;
}

/// Throws the OpError subclass that matches `code` (used where a code crosses a boundary,
/// such as an RPC status in stage 07). `code` must not be kOk.
[[noreturn]] void ThrowOpError(ErrorCode code, const std::string& message,
                               const std::string& op_name = "");

/// Python's `ValueError` as TensorFlow raises it while building a graph: a bad shape, a bad
/// name, a tensor from another graph, a feed that does not fit its tensor.
class ValueError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Python's `TypeError` as TensorFlow raises it while building a graph: a wrong dtype.
class TypeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Python's `RuntimeError` as TensorFlow raises it: a closed session, a finalized graph.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_ERRORS_H_
