#include "src/07_distributed/cluster_spec.h"

#include <cctype>
#include <sstream>
#include <utility>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

void CheckAddress(const std::string& job, const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    throw ValueError("Cluster job '" + job + "' has the address '" + address +
                     "', which is not host:port; give every task as host:port, e.g. "
                     "127.0.0.1:2222.");
  }
}

// A job named twice is almost always two lists that were meant to be one: refuse it rather
// than keep one of them (a flag would keep the last, a JSON reader might merge them).
[[noreturn]] void ThrowDuplicateJob(const std::string& job) {
  throw ValueError("Cluster job '" + job +
                   "' is named twice; list all its tasks in one entry, task 0 first.");
}

// A small JSON reader for exactly the cluster format: an object of arrays of strings.
class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : text_(text) {}

  std::map<std::string, std::vector<std::string>> ReadCluster() {
    std::map<std::string, std::vector<std::string>> jobs;
    Expect('{');
    if (!Accept('}')) {
      do {
        const std::string job = ReadString();
        if (jobs.count(job)) ThrowDuplicateJob(job);
        Expect(':');
        std::vector<std::string>& tasks = jobs[job];
        Expect('[');
        if (!Accept(']')) {
          do {
            tasks.push_back(ReadString());
          } while (Accept(','));
          Expect(']');
        }
      } while (Accept(','));
      Expect('}');
    }
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing text");
    return jobs;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Accept(c)) Fail(std::string("expected '") + c + "'");
  }
  std::string ReadString() {
    Expect('"');
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') Fail("escapes are not supported in a cluster spec");
      value += text_[pos_++];
    }
    Expect('"');
    return value;
  }
  [[noreturn]] void Fail(const std::string& what) {
    throw ValueError("Cluster spec JSON: " + what + " at offset " + std::to_string(pos_) +
                     "; the format is {\"ps\": [\"host:port\"], \"worker\": [...]}.");
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

ClusterSpec::ClusterSpec(std::map<std::string, std::vector<std::string>> jobs)
    : jobs_(std::move(jobs)) {
  for (const auto& [job, tasks] : jobs_) {
    if (job.empty()) throw ValueError("A cluster job needs a name, e.g. ps=host:port.");
    if (tasks.empty()) {
      throw ValueError("Cluster job '" + job +
                       "' has no tasks; list at least one host:port for it, or leave it out.");
    }
    for (const std::string& address : tasks) CheckAddress(job, address);
  }
}

ClusterSpec ClusterSpec::FromFlag(const std::string& flag) {
  std::map<std::string, std::vector<std::string>> jobs;
  for (const std::string& entry : Split(flag, ';')) {
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      throw ValueError("Cluster flag entry '" + entry +
                       "' is not job=host:port,...; e.g. ps=127.0.0.1:2222;worker=...");
    }
    const std::string job = entry.substr(0, eq);
    if (jobs.count(job)) ThrowDuplicateJob(job);
    jobs[job] = Split(entry.substr(eq + 1), ',');
  }
  return ClusterSpec(std::move(jobs));
}

ClusterSpec ClusterSpec::FromJson(const std::string& json) {
  return ClusterSpec(JsonReader(json).ReadCluster());
}

ClusterSpec ClusterSpec::FromJsonFile(const std::string& path) {
  // Through the file system's reader: a FIFO or a device (/dev/zero) is refused before a
  // byte is read, and no more than one byte past the limit is ever read.
  const std::string text = DefaultFileSystem()->ReadFilePrefix(path, kMaxFileBytes + 1);
  if (text.size() > kMaxFileBytes) {
    throw ValueError("The cluster spec file " + path + " is larger than " +
                     std::to_string(kMaxFileBytes >> 10) +
                     " KiB, too large for a list of host:port addresses; check the path "
                     "(the format is {\"ps\": [\"host:port\"], \"worker\": [...]}).");
  }
  return FromJson(text);
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> names;
  for (const auto& [job, tasks] : jobs_) names.push_back(job);
  return names;
}

int ClusterSpec::num_tasks(const std::string& job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

const std::string& ClusterSpec::task_address(const std::string& job, int task_index) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end() || task_index < 0 || task_index >= static_cast<int>(it->second.size())) {
    throw ValueError("The cluster has no task /job:" + job + "/task:" + std::to_string(task_index) +
                     " (cluster: " + ToFlag() +
                     "); use a job and task index the cluster lists (task indices start at 0).");
  }
  return it->second[task_index];
}

std::string ClusterSpec::ToJson() const {
  std::string json = "{";
  for (const auto& [job, tasks] : jobs_) {
    if (json.size() > 1) json += ", ";
    json += "\"" + job + "\": [";
    for (size_t i = 0; i < tasks.size(); ++i) json += (i ? ", \"" : "\"") + tasks[i] + "\"";
    json += "]";
  }
  return json + "}";
}

std::string ClusterSpec::ToFlag() const {
  std::string flag;
  for (const auto& [job, tasks] : jobs_) {
    if (!flag.empty()) flag += ";";
    flag += job + "=";
    for (size_t i = 0; i < tasks.size(); ++i) flag += (i ? "," : "") + tasks[i];
  }
  return flag;
}

}  // namespace mts
