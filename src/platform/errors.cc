#include "src/platform/errors.h"

namespace mts {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "OK";
    case ErrorCode::kCancelled: return "CANCELLED";
    case ErrorCode::kUnknown: return "UNKNOWN";
    case ErrorCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case ErrorCode::kNotFound: return "NOT_FOUND";
    case ErrorCode::kAlreadyExists: return "ALREADY_EXISTS";
    case ErrorCode::kPermissionDenied: return "PERMISSION_DENIED";
    case ErrorCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case ErrorCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case ErrorCode::kAborted: return "ABORTED";
    case ErrorCode::kOutOfRange: return "OUT_OF_RANGE";
    case ErrorCode::kUnimplemented: return "UNIMPLEMENTED";
    case ErrorCode::kInternal: return "INTERNAL";
    case ErrorCode::kUnavailable: return "UNAVAILABLE";
    case ErrorCode::kDataLoss: return "DATA_LOSS";
    case ErrorCode::kUnauthenticated: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

namespace {
// TensorFlow appends the failing node as "[[node NAME]]"; so do we, so a reader of a log
// sees at once which op to look at.
std::string Annotate(const std::string& message, const std::string& op_name) {
  if (op_name.empty()) return message;
  return message + "\n\t [[node " + op_name + "]]";
}
}  // namespace

OpError::OpError(ErrorCode code, const std::string& message, const std::string& op_name)
    : std::runtime_error(Annotate(message, op_name)),
      code_(code),
      message_(message),
      op_name_(op_name) {}

void ThrowOpError(ErrorCode code, const std::string& message, const std::string& op_name) {
  switch (code) {
    case ErrorCode::kCancelled: throw CancelledError(message, op_name);
    case ErrorCode::kUnknown: throw UnknownError(message, op_name);
    case ErrorCode::kInvalidArgument: throw InvalidArgumentError(message, op_name);
    case ErrorCode::kDeadlineExceeded: throw DeadlineExceededError(message, op_name);
    case ErrorCode::kNotFound: throw NotFoundError(message, op_name);
    case ErrorCode::kAlreadyExists: throw AlreadyExistsError(message, op_name);
    case ErrorCode::kPermissionDenied: throw PermissionDeniedError(message, op_name);
    case ErrorCode::kResourceExhausted: throw ResourceExhaustedError(message, op_name);
    case ErrorCode::kFailedPrecondition: throw FailedPreconditionError(message, op_name);
    case ErrorCode::kAborted: throw AbortedError(message, op_name);
    case ErrorCode::kOutOfRange: throw OutOfRangeError(message, op_name);
    case ErrorCode::kUnimplemented: throw UnimplementedError(message, op_name);
    case ErrorCode::kInternal: throw InternalError(message, op_name);
    case ErrorCode::kUnavailable: throw UnavailableError(message, op_name);
    case ErrorCode::kDataLoss: throw DataLossError(message, op_name);
    case ErrorCode::kUnauthenticated: throw UnauthenticatedError(message, op_name);
    case ErrorCode::kOk: break;
  }
  throw InternalError("ThrowOpError called with code OK for: " + message, op_name);
}

}  // namespace mts
