// errors.h: the exceptions of mts, one per canonical error code of tf.errors.
//
//   RecoverableSession     catches the preemption set (AbortedError, UnavailableError)
//     CoordinatedSession   carries errors across threads as std::exception_ptr
//       HookedSession
//         Chief / Worker
//           Session        <-- raises these; every layer above routes them
//
// Every error a Session raises while running the graph is an OpError carrying one of the
// sixteen canonical codes. The layers above sort errors by class, never by message:
// preemption errors are recovered (stage 05), OutOfRangeError is a clean end of input
// (stage 06), everything else propagates. Messages name the op, tensor or file at fault.
//
// TensorFlow's Python front end also raises the built-in ValueError, TypeError and
// RuntimeError for mistakes made while *building* a graph or using a closed session;
// mts mirrors those three too, so tests can match TensorFlow's behaviour and texts.
//
// TensorFlow: tensorflow/python/framework/errors_impl.py.
#ifndef MTS_SRC_01_SESSION_ERRORS_H_
#define MTS_SRC_01_SESSION_ERRORS_H_

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

// One class per canonical code. They add nothing but their type, which is what the layers
// above catch.
#define MTS_DEFINE_OP_ERROR(Name, Code)                                           \
  /** TensorFlow's `tf.errors.Name` (code Code). */                               \
  class Name : public OpError {                                                   \
   public:                                                                        \
    /** Makes the error with a message and, optionally, the op at fault. */       \
    explicit Name(const std::string& message, const std::string& op_name = "")   \
        : OpError(ErrorCode::Code, message, op_name) {}                           \
  };

MTS_DEFINE_OP_ERROR(CancelledError, kCancelled)
MTS_DEFINE_OP_ERROR(UnknownError, kUnknown)
MTS_DEFINE_OP_ERROR(InvalidArgumentError, kInvalidArgument)
MTS_DEFINE_OP_ERROR(DeadlineExceededError, kDeadlineExceeded)
MTS_DEFINE_OP_ERROR(NotFoundError, kNotFound)
MTS_DEFINE_OP_ERROR(AlreadyExistsError, kAlreadyExists)
MTS_DEFINE_OP_ERROR(PermissionDeniedError, kPermissionDenied)
MTS_DEFINE_OP_ERROR(ResourceExhaustedError, kResourceExhausted)
MTS_DEFINE_OP_ERROR(FailedPreconditionError, kFailedPrecondition)
MTS_DEFINE_OP_ERROR(AbortedError, kAborted)
MTS_DEFINE_OP_ERROR(OutOfRangeError, kOutOfRange)
MTS_DEFINE_OP_ERROR(UnimplementedError, kUnimplemented)
MTS_DEFINE_OP_ERROR(InternalError, kInternal)
MTS_DEFINE_OP_ERROR(UnavailableError, kUnavailable)
MTS_DEFINE_OP_ERROR(DataLossError, kDataLoss)
MTS_DEFINE_OP_ERROR(UnauthenticatedError, kUnauthenticated)

#undef MTS_DEFINE_OP_ERROR

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

#endif  // MTS_SRC_01_SESSION_ERRORS_H_
