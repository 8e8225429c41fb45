// Reference solution of the CSV reader exercise.
#include "chapters/04_coordinated/exercises/csv_runner/csv_runner.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <utility>

#include "src/platform/errors.h"

namespace mts {
namespace {

std::vector<std::string> Split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.emplace_back();  // A last, empty field.
  return fields;
}

// `field` as a scalar of `dtype`; the whole field must parse. \throws InvalidArgumentError.
Tensor ParseField(const std::string& field, DataType dtype, const std::string& where) {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError(where + "field '" + field + "' is not " + what);
  };
  if (dtype == DataType::kString) return Tensor::Scalar(field);
  if (field.empty()) throw bad("a number");
  const char* begin = field.c_str();
  char* end = nullptr;
  errno = 0;
  switch (dtype) {
    case DataType::kInt32:
    case DataType::kInt64: {
      const long long value = std::strtoll(begin, &end, 10);
      if (*end != '\0') throw bad("an integer");
      if (dtype == DataType::kInt64) {
        if (errno == ERANGE) throw bad("an int64");
        return Tensor::Scalar<int64_t>(value);
      }
      if (errno == ERANGE || value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max()) {
        throw bad("an int32");
      }
      return Tensor::Scalar<int32_t>(static_cast<int32_t>(value));
    }
    case DataType::kFloat: {
      const float value = std::strtof(begin, &end);
      if (*end != '\0' || errno == ERANGE) throw bad("a float");
      return Tensor::Scalar(value);
    }
    case DataType::kDouble: {
      const double value = std::strtod(begin, &end);
      if (*end != '\0' || errno == ERANGE) throw bad("a double");
      return Tensor::Scalar(value);
    }
    default:
      throw InvalidArgumentError(where + "columns of this dtype cannot be parsed");
  }
}

void ReadRows(const std::string& path, const CsvEnqueueOps& ops, SessionInterface* session,
              Coordinator* coord, FileSystem* fs) {
  std::istringstream lines(fs->ReadFile(path));
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    if (coord->ShouldStop()) return;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    const std::vector<std::string> fields = Split(line, ',');
    if (fields.size() != ops.columns.size()) {
      throw InvalidArgumentError(where + std::to_string(fields.size()) + " fields, expected " +
                                 std::to_string(ops.columns.size()));
    }
    FeedDict feeds;
    for (size_t i = 0; i < fields.size(); ++i) {
      feeds[ops.columns[i]] = ParseField(fields[i], ops.columns[i].dtype(), where);
    }
    session->Run(ops.enqueue, feeds);  // Waits while the queue is full.
  }
}

}  // namespace

std::function<void()> MakeCsvReader(std::string path, CsvEnqueueOps ops,
                                    SessionInterface* session, Coordinator* coord,
                                    FileSystem* fs) {
  return [path = std::move(path), ops = std::move(ops), session, coord, fs] {
    // The error, if any, is recorded before the queue closes: a consumer woken by the close
    // already finds the stop (and the error) in the coordinator.
    coord->StopOnException([&] { ReadRows(path, ops, session, coord, fs); });
    try {
      session->Run(ops.close);
    } catch (...) {
      // Ignored on purpose: the queue may be closed already (CancelledError after a cancel
      // at a stop), or the session too (RuntimeError); a closed queue is all we wanted.
    }
  };
}

}  // namespace mts
