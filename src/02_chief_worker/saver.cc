// saver.cc: Save (one Run, one atomic file, then the state file, then rotation) and Restore
// (validate everything, then one grouped assign).
#include "src/02_chief_worker/saver.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <set>
#include <thread>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/runs_hooks.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

constexpr double kSecondsPerHour = 3600.0;

// The time a file was last modified, in seconds since the epoch; nullopt if there is none.
// The FileSystem interface has no such call, so this asks stat(2) directly: it serves only
// RecoverLastCheckpoints, whose paths are real files on the local disk.
std::optional<double> ModificationTime(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<double>(info.st_mtim.tv_sec) + static_cast<double>(info.st_mtim.tv_nsec) / 1e9;
}

// [mts:read-in-parallel]
// Reads the named tensors of `reader`, verifying each, on this thread and, for a large
// checkpoint, one more: reading a tensor is a copy out of the page cache and a checksum of
// what arrived, both bound by one core, so two cores restore a large checkpoint in about
// half the time. A small one is read here alone, where starting a thread would cost more
// than it saves. If any tensor fails, the error of the first failing one in `names`'s order
// is thrown, whichever thread met it, so the message does not depend on timing.
std::vector<Tensor> ReadAll(const CheckpointReader& reader, const std::vector<std::string>& names) {
  constexpr int64_t kBytesWorthAThread = int64_t{8} << 20;
  int64_t bytes = 0;
  for (const std::string& name : names) {
    const CheckpointTensorInfo& info = reader.Info(name);
    bytes += info.shape.num_elements() * static_cast<int64_t>(DataTypeSize(info.dtype));
  }
  std::vector<Tensor> values(names.size());
  std::vector<std::exception_ptr> errors(names.size());
  std::atomic<size_t> next{0};
  auto read_some = [&] {
    for (size_t i = next++; i < names.size(); i = next++) {
      try {
        values[i] = reader.Read(names[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::thread helper;
  if (bytes >= kBytesWorthAThread && names.size() > 1) helper = std::thread(read_some);
  read_some();
  if (helper.joinable()) helper.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return values;
}
// [mts:read-in-parallel-end]

// True unless some element of `n` floating-point values of `Bits` width (whose exponent bits
// are `exponent`) is a NaN or an infinity: both have every exponent bit set, and only then
// does adding the lowest exponent bit to the masked exponent carry into the sign bit. So the
// sign bit of those sums OR-ed together says whether any element is not finite. AND, ADD and
// OR with no compare and no branch, over blocks of a fixed length: a loop g++ turns into
// vector instructions even at -O2 and for plain x86-64, so the check costs a fraction of the
// checksum the file gets anyway.
template <typename Bits>
bool AllExponentsFinite(const char* data, size_t n, Bits exponent) {
  constexpr size_t kBlock = 64 / sizeof(Bits);  // One cache line.
  const Bits lowest = exponent & (~exponent + 1);
  const Bits sign = Bits{1} << (8 * sizeof(Bits) - 1);
  Bits lanes[kBlock] = {};  // One sum per position in a block: independent, so vectorized.
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (size_t j = 0; j < kBlock; ++j) {
      Bits bits;
      std::memcpy(&bits, data + (i + j) * sizeof(Bits), sizeof(Bits));
      lanes[j] |= (bits & exponent) + lowest;
    }
  }
  Bits sums = 0;
  for (Bits lane : lanes) sums |= lane;
  for (; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    sums |= (bits & exponent) + lowest;
  }
  return (sums & sign) == 0;
}

// True if every float and double element of `t` is finite (other dtypes always are).
bool AllFinite(const Tensor& t) {
  const size_t n = static_cast<size_t>(t.num_elements());
  switch (t.dtype()) {
    case DataType::kFloat:
      return AllExponentsFinite<uint32_t>(reinterpret_cast<const char*>(t.data<float>()), n,
                                          0x7f800000u);
    case DataType::kDouble:
      return AllExponentsFinite<uint64_t>(reinterpret_cast<const char*>(t.data<double>()), n,
                                          0x7ff0000000000000ull);
    default:
      return true;
  }
}

// Whether the checkpoint at `path` holds only finite values. A file that cannot be read or
// fails its checksums is no model to keep either.
bool FiniteOnDisk(FileSystem& fs, const std::string& path) {
  try {
    CheckpointReader reader(fs, path);
    for (const CheckpointTensorInfo& info : reader.tensors()) {
      if (!AllFinite(reader.Read(info.name))) return false;
    }
    return true;
  } catch (const OpError&) {
    return false;
  }
}

std::string ShapeAndDtype(const TensorShape& shape, DataType dtype) {
  return "shape " + shape.ToString() + " and dtype " + DataTypeName(dtype);
}

}  // namespace

Saver::Saver(std::vector<Variable> var_list, SaverOptions options) : options_(options) {
  if (options_.clock == nullptr) options_.clock = RealClock();
  if (options_.file_system == nullptr) options_.file_system = DefaultFileSystem();
  next_checkpoint_time_ = Now() + options_.keep_checkpoint_every_n_hours * kSecondsPerHour;
  if (var_list.empty()) var_list = GlobalVariables();
  if (var_list.empty()) {
    if (!options_.allow_empty) {
      throw ValueError(
          "No variables to save. Create the variables before the Saver, or set "
          "SaverOptions::allow_empty for a saver that saves nothing.");
    }
    return;  // An empty saver: Save writes nothing, Restore does nothing.
  }

  Graph* graph = var_list.front().graph();
  std::set<std::string> names;
  for (const Variable& v : var_list) {
    if (v.op() == nullptr) throw ValueError("Saver: the variable list holds a null Variable");
    if (v.graph() != graph) {
      throw ValueError("Saver: variables '" + var_list.front().name() + "' and '" + v.name() +
                       "' belong to different graphs");
    }
    if (!names.insert(v.name()).second) {
      throw ValueError("At least two variables have the same name: " + v.name());
    }
  }
  if (graph->finalized()) {
    throw RuntimeError("Saver: graph is finalized; make the Saver while building the graph");
  }

  // One placeholder and one Assign per variable, grouped, so that a restore is a single Run
  // that assigns every variable or, if anything is fed wrongly, none.
  DefaultGraphScope as_default(*graph);
  NameScope scope(*graph, "save");
  std::vector<Operation*> assigns;
  for (const Variable& v : var_list) {
    Output value = Placeholder(v.dtype(), v.shape(), "restore_value");
    restore_placeholders_.push_back(value);
    assigns.push_back(v.Assign(value).op());
  }
  restore_op_ = Group(assigns, "restore_all");
  variables_ = std::move(var_list);
}

double Saver::Now() const { return static_cast<double>(options_.clock->WallTimeMicros()) / 1e6; }

std::optional<std::string> Saver::Save(SessionInterface& session, const std::string& save_path,
                                       std::optional<int64_t> global_step,
                                       const std::string& latest_filename, bool write_state) {
  const std::string prefix = CheckpointPath(save_path, global_step, latest_filename);
  if (dynamic_cast<const RunsHooks*>(&session) != nullptr) {
    throw TypeError(
        "'sess' must be a Session; this one runs hooks (a MonitoredSession), and a save through "
        "it would run them too. Let a CheckpointSaverHook save (MonitoredTrainingSession's "
        "checkpoint_dir, or the Scaffold's saver in a hook of yours), or save on the raw "
        "session inside RunStepFn: saver.Save(step_context.session(), path, step).");
  }
  if (empty()) return std::nullopt;
  try {
    SaveAtomically(session, prefix, Dirname(save_path), latest_filename, write_state);
  } catch (const OpError& e) {
    ThrowIfParentDirectoryMissing(e, save_path);
    throw;
  }
  return prefix;
}

std::string Saver::CheckpointPath(const std::string& save_path, std::optional<int64_t> global_step,
                                  const std::string& latest_filename) const {
  if (latest_filename.find('/') != std::string::npos) {
    throw ValueError("'latest_filename' must not contain path components");
  }
  if (!global_step) {
    if (Basename(save_path) == latest_filename) {
      throw ValueError("'latest_filename' collides with 'save_path': '" + latest_filename +
                       "' and '" + save_path + "'");
    }
    return save_path;
  }
  char step[32];
  std::snprintf(step, sizeof(step), options_.pad_step_number ? "-%08lld" : "-%lld",
                static_cast<long long>(*global_step));
  return save_path + step;
}

void Saver::SaveAtomically(SessionInterface& session, const std::string& prefix,
                           const std::string& save_dir, const std::string& latest_filename,
                           bool write_state) {
  FileSystem& fs = *options_.file_system;
  // [mts:atomic-save]
  // [mts:lab 02_chief_worker]
  // 1. Read every variable in one Run, so the checkpoint is one consistent snapshot.
  std::vector<Output> reads;
  for (const Variable& v : variables_) reads.push_back(v.value());
  const std::vector<Tensor> values = session.Run(reads);
  std::vector<NamedTensor> tensors;
  for (size_t i = 0; i < variables_.size(); ++i) {
    tensors.emplace_back(variables_[i].name(), values[i]);
  }
  // 2. Write the checkpoint: temporary name, fsync, rename. Until the rename completes
  //    nothing points at it; after, it is whole.
  WriteCheckpoint(fs, prefix, tensors);
  if (write_state) {
    // 3. Name it in the state file, atomically replaced. A crash before this leaves the
    //    old state file naming the old, whole checkpoints.
    const bool finite = std::all_of(values.begin(), values.end(), AllFinite);
    auto [kept, to_delete] = RecordLastCheckpoint(prefix, finite);
    std::vector<std::string> kept_paths;
    for (const Tracked& entry : kept) kept_paths.push_back(entry.path);
    UpdateCheckpointStateFile(save_dir, prefix, kept_paths, latest_filename,
                              options_.save_relative_paths, &fs);
    last_checkpoints_ = std::move(kept);
    checkpoints_to_be_deleted_ = std::move(to_delete);
    // 4. Only now delete the oldest: the state file no longer names it.
    MaybeDeleteOldCheckpoints(save_dir);
  }
  // [mts:lab-end]
  // [mts:atomic-save-end]
}

void Saver::ThrowIfParentDirectoryMissing(const OpError& error,
                                          const std::string& save_path) const {
  const std::string save_dir = Dirname(save_path);
  if ((error.code() == ErrorCode::kNotFound || error.code() == ErrorCode::kFailedPrecondition) &&
      !save_dir.empty() && !options_.file_system->Exists(save_dir)) {
    throw ValueError("Parent directory of " + save_path +
                     " doesn't exist, can't save. Create the directory first, or save "
                     "elsewhere.");
  }
}

std::pair<Saver::TrackedList, Saver::TrackedList> Saver::RecordLastCheckpoint(
    const std::string& path, bool finite) const {
  TrackedList kept = last_checkpoints_;
  TrackedList to_delete = checkpoints_to_be_deleted_;
  if (options_.max_to_keep <= 0) return {kept, to_delete};  // Tracks nothing.
  // Saving to a tracked path again moves it to the newest place.
  kept.erase(std::remove_if(kept.begin(), kept.end(),
                            [&](const Tracked& entry) { return entry.path == path; }),
             kept.end());
  kept.push_back({path, Now(), finite});
  if (kept.size() <= static_cast<size_t>(options_.max_to_keep)) return {kept, to_delete};

  // [mts:keep-newest-finite]
  // TensorFlow drops the oldest. Beyond it: after a save of NaN or Inf values, the newest
  // checkpoint whose values are all finite may be the oldest, and dropping it would leave
  // nothing but diverged models. It is kept (max_to_keep is exceeded) and the next oldest
  // goes instead; never the save just made. The check reads the disk only here, on this
  // path of a diverged model, and only for checkpoints never looked at.
  size_t victim = 0;
  if (!finite) {
    const std::optional<size_t> newest_finite = NewestFinite(kept);
    if (newest_finite == 0) {
      MTS_LOG(WARNING) << "Keeping " << kept.front().path
                       << ": it is the newest checkpoint whose values are all finite, and " << path
                       << " holds NaN or Inf.";
      victim = 1;
    }
  }
  if (victim + 1 < kept.size()) {
    to_delete.push_back(kept[victim]);
    kept.erase(kept.begin() + static_cast<ptrdiff_t>(victim));
  }
  // [mts:keep-newest-finite-end]
  return {kept, to_delete};
}

std::optional<size_t> Saver::NewestFinite(TrackedList& kept) const {
  for (size_t i = kept.size(); i-- > 0;) {
    if (!kept[i].finite) kept[i].finite = FiniteOnDisk(*options_.file_system, kept[i].path);
    if (*kept[i].finite) return i;
  }
  return std::nullopt;
}

void Saver::MaybeDeleteOldCheckpoints(const std::string& save_dir) {
  // At most one per save, as TensorFlow does.
  if (checkpoints_to_be_deleted_.empty()) return;
  const Tracked oldest = checkpoints_to_be_deleted_.front();
  checkpoints_to_be_deleted_.erase(checkpoints_to_be_deleted_.begin());
  if (oldest.time > next_checkpoint_time_) {
    // Kept forever: it leaves the tracked list, so it is never deleted and never listed.
    next_checkpoint_time_ += options_.keep_checkpoint_every_n_hours * kSecondsPerHour;
    return;
  }
  if (!IsInDirectory(oldest.path, save_dir)) {
    // Beyond TensorFlow: a state file from elsewhere (a copied directory whose original is
    // gone, an edited file) can name another directory's files. They are not this job's.
    MTS_LOG(WARNING) << "Not deleting " << oldest.path << ": it is outside the checkpoint "
                     << "directory " << (save_dir.empty() ? "." : save_dir) << ".";
    return;
  }
  try {
    options_.file_system->DeleteFile(oldest.path);
  } catch (const OpError& e) {
    // A checkpoint that cannot be deleted costs disk space, not correctness: the new one is
    // saved and named. Training goes on.
    MTS_LOG(WARNING) << "Ignoring: " << e.what();
  }
}

void Saver::Restore(SessionInterface& session, const std::string& save_path) {
  if (empty()) return;
  FileSystem& fs = *options_.file_system;
  if (!fs.Exists(save_path)) {
    throw ValueError("The passed save_path is not a valid checkpoint: " + save_path +
                     ". Pass a path that Saver::Save returned or that LatestCheckpoint(dir) "
                     "names.");
  }
  MTS_LOG(INFO) << "Restoring parameters from " << save_path;
  // [mts:restore-all-or-nothing]
  // Everything that can be wrong with the file is found before any variable changes: the
  // index (CheckpointReader), the names, dtypes and shapes, every tensor's checksum. Only
  // then does one Run assign all variables together.
  CheckpointReader reader(fs, save_path);
  std::string missing;
  int num_missing = 0;
  for (const Variable& v : variables_) {
    if (reader.Has(v.name())) continue;
    missing += (num_missing++ == 0 ? "" : ", ") + v.name();
  }
  if (num_missing > 0) {
    throw NotFoundError("Restoring from checkpoint failed: " + std::to_string(num_missing) +
                        " variable(s) of the graph are not in checkpoint " + save_path + ": " +
                        missing + ". The graph differs from the one that wrote the " +
                        "checkpoint: was a variable added or renamed?");
  }
  std::vector<std::string> names;
  for (const Variable& v : variables_) {
    const CheckpointTensorInfo& stored = reader.Info(v.name());
    if (stored.dtype != v.dtype() || stored.shape != v.shape()) {
      throw InvalidArgumentError("Restoring from checkpoint failed: variable '" + v.name() +
                                 "' has " + ShapeAndDtype(v.shape(), v.dtype()) +
                                 " in the graph but " + ShapeAndDtype(stored.shape, stored.dtype) +
                                 " in checkpoint " + save_path);
    }
    names.push_back(v.name());
  }
  std::vector<Tensor> values = ReadAll(reader, names);
  FeedDict feeds;
  for (size_t i = 0; i < variables_.size(); ++i) {
    feeds.emplace(restore_placeholders_[i], std::move(values[i]));
  }
  session.Run({}, feeds, {restore_op_});
  // [mts:restore-all-or-nothing-end]
}

std::vector<std::string> Saver::last_checkpoints() const {
  std::vector<std::string> paths;
  for (const Tracked& entry : last_checkpoints_) paths.push_back(entry.path);
  return paths;
}

void Saver::SetLastCheckpointsWithTime(std::vector<std::pair<std::string, double>> checkpoints) {
  last_checkpoints_.clear();
  for (auto& [path, time] : checkpoints) {
    last_checkpoints_.push_back({std::move(path), time, std::nullopt});
  }
}

void Saver::RecoverLastCheckpoints(const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, double>> found;
  for (const std::string& path : paths) {
    if (std::optional<double> mtime = ModificationTime(path)) found.emplace_back(path, *mtime);
  }
  SetLastCheckpointsWithTime(std::move(found));
}

std::shared_ptr<Saver> GetSaverOrDefault(Graph* graph) {
  Graph& g = graph != nullptr ? *graph : GetDefaultGraph();
  std::vector<std::shared_ptr<Saver>> savers =
      g.GetCollection<std::shared_ptr<Saver>>(GraphKeys::kSavers);
  if (savers.size() > 1) {
    throw RuntimeError(
        "More than one item in collection savers. Pass the one to use to the Scaffold.");
  }
  if (savers.size() == 1) return savers.front();
  DefaultGraphScope as_default(g);
  SaverOptions options;
  options.allow_empty = true;
  auto saver = std::make_shared<Saver>(GlobalVariables(&g), options);
  g.AddToCollection(GraphKeys::kSavers, saver);
  return saver;
}

}  // namespace mts
