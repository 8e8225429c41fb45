// bad_inputs_examples.cc: the rows of the bad-input table (bad_inputs.h) of stage
// "examples": the example programs run as a user runs them, with bad flags, a directory of
// the user's, a signal, a dead chief. Each row starts the program (ChildProcess), may act on
// it while it runs, and reports how it ended ("exit 2", "killed by SIGTERM") with the lines
// of its output that say what to do.
//
// A row for another program is one ProgramRow: the program's path in the runfiles (list the
// binary in the `data` of //tests/reliability's library, test and table), its arguments,
// the lines to keep, the ending and the advice. Rows that run a job keep it small (one or
// two workers, a few hundred steps) and wait for the line that says the moment came, never
// for a time.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/platform/file_system.h"
#include "tests/reliability/bad_input_support.h"
#include "tests/testing/child_process.h"
#include "tests/testing/local_socket.h"

namespace mts {
namespace {

const char kDistributed[] = "examples/distributed_spirals";

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A wait status as the table's "error class" column shows it.
std::string Ending(int status) {
  if (WIFSIGNALED(status)) return "killed by " + SignalName(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

// The lines of `text` that contain one of `keep`, each from where that text starts, with
// step numbers and step counts masked (see ProgramRow).
std::string KeptLines(const std::string& text, const std::vector<std::string>& keep) {
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const std::string& key : keep) {
      const size_t at = line.find(key);
      if (at == std::string::npos) continue;
      kept += (kept.empty() ? "" : "\n") + line.substr(at);
      break;
    }
  }
  kept = std::regex_replace(kept, std::regex(R"(step [0-9]+)"), "step N");
  return std::regex_replace(kept, std::regex(R"([0-9]+ steps)"), "N steps");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Reads the program's lines until one contains `text`, or throws: the moment never came.
std::string WaitForLine(ChildProcess& program, const std::string& text) {
  const std::optional<std::string> line = program.ReadLineContaining(text);
  if (!line) throw std::runtime_error("the program ended before printing '" + text + "'");
  return *line;
}

// The step a line "... saved checkpoint at global step N" names.
long long SavedStep(const std::string& line) {
  const std::string key = "saved checkpoint at global step ";
  return std::atoll(line.c_str() + line.find(key) + key.size());
}

// The flags of a small job that trains long enough for a row to strike while it runs.
std::vector<std::string> SmallJob(const std::string& checkpoint_dir, int train_steps) {
  return {"--num_workers=2",
          "--train_steps=" + std::to_string(train_steps),
          "--save_steps=20",
          "--log_every=20",
          "--step_delay_ms=5",
          "--checkpoint_dir=" + checkpoint_dir,
          "--timeout_secs=100"};
}

// The pids a drive step recorded, for the `after` check that none outlived the program.
using Pids = std::shared_ptr<std::vector<pid_t>>;

std::string NoneStillRuns(const Pids& pids) {
  std::string alive;
  for (pid_t pid : *pids) {
    // The launcher reaps its tasks: a pid still there is a process it left behind.
    if (::kill(pid, 0) == 0 || errno != ESRCH) alive += " " + std::to_string(pid);
  }
  return alive.empty() ? "" : "processes outlived the launcher:" + alive;
}

// ---- train_spirals ------------------------------------------------------------------------

const char kSpirals[] = "examples/train_spirals";
const char kLinear[] = "examples/train_linear_regression";

// Runs train_spirals to `steps` in `dir`, or throws what it printed on failure.
void TrainSpirals(const std::string& dir, int steps) {
  ChildProcess run(RunfilePath(kSpirals),
                   {"--steps=" + std::to_string(steps), "--log_every=100", "--checkpoint_dir=" + dir},
                   "/dev/null");
  run.ReadRest();
  const int status = run.Wait();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("train_spirals " + Ending(status) +
                             " while preparing " + dir + ": " + run.output());
  }
}

// A directory holding a finished 20-step run: model.ckpt-0, model.ckpt-20 and the state
// file, trained once per process and copied by every row that damages it. Few steps: the
// rows run under the sanitizers too.
const std::string& TrainedSpirals() {
  static const std::string* dir = [] {
    auto* trained = new std::string(FreshDir("spirals_trained"));
    TrainSpirals(*trained, 20);
    return trained;
  }();
  return *dir;
}

// Copies the trained run into `dir` (emptied first). Its state file, which names the
// original's files by absolute path, is kept as copied if `as_copied`, else rewritten to name
// the copy's own files, as if the run had trained there.
void CopyTrainedSpirals(const std::string& dir, bool as_copied) {
  std::filesystem::remove_all(dir);
  std::filesystem::copy(TrainedSpirals(), dir, std::filesystem::copy_options::recursive);
  if (!as_copied) {
    UpdateCheckpointStateFile(dir, JoinPath(dir, "model.ckpt-20"),
                              {JoinPath(dir, "model.ckpt-0"), JoinPath(dir, "model.ckpt-20")});
  }
}

// A row that resumes train_spirals in a copy of the trained run whose newest checkpoint was
// damaged by `damage`: it must fall back (to model.ckpt-0) and train on to step 30.
BadInput DamagedResumeRow(const std::string& tried, const std::string& name,
                          std::function<void(const std::string&)> damage,
                          const std::string& advice) {
  const std::string dir = JoinPath(FreshDir("spirals_damaged"), name);
  return ProgramRow(
      tried,
      {kSpirals,
       {"--steps=30", "--log_every=30", "--checkpoint_dir=" + dir},
       {"Resuming from", "restored the newest", "is unusable", "Stopped at"},
       nullptr,
       [dir, damage] {
         CopyTrainedSpirals(dir, /*as_copied=*/false);
         damage(JoinPath(dir, "model.ckpt-20"));
       }},
      "exit 0", advice);
}

// Every entry of `dir` with its size, modification time and contents' hash, one a line:
// equal listings mean nothing in the directory was written.
std::string DirectoryListing(const std::string& dir) {
  std::string listing;
  for (const std::string& name : DefaultFileSystem()->ListDirectory(dir)) {
    const std::string path = JoinPath(dir, name);
    struct stat info {};
    ::stat(path.c_str(), &info);
    listing += name + " " + std::to_string(info.st_size) + " " +
               std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) +
               " " + std::to_string(std::hash<std::string>()(ReadAll(path))) + "\n";
  }
  return listing;
}

void FlipByte(const std::string& path, size_t at) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(at));
  char byte = 0;
  file.get(byte);
  file.seekp(static_cast<std::streamoff>(at));
  file.put(static_cast<char>(byte ^ 0x10));
}

void AppendSpiralsRows(std::vector<BadInput>& rows) {
  // ---- Flags ---------------------------------------------------------------------------
  const std::string flags_dir = FreshDir("spirals_flags");
  for (const auto& [flag, advice] : std::vector<std::pair<std::string, std::string>>{
           {"--learning_rate=nan", "--learning_rate must be a positive finite number"},
           {"--learning_rate=-1", "--learning_rate must be a positive finite number"},
           {"--batch_size=1000", "--batch_size must be between 1 and the 300 training points"},
           {"--image_every=-1", "--image_every must be 0 (no pictures) or more"}}) {
    rows.push_back(ProgramRow("train_spirals " + flag,
                              {kSpirals, {flag, "--checkpoint_dir=" + flags_dir}}, "exit 2",
                              advice));
  }
  rows.push_back(ProgramRow("train_linear_regression --help (usage, nothing trains)",
                            {kLinear, {"--help"}, {"train_linear_regression: Fits", "final loss"}},
                            "exit 1", "Fits y = x w + b"));
  // Issue 32, item 17: it aborted on the NaN (an uncaught exception, exit 134).
  rows.push_back(ProgramRow("train_linear_regression --learning_rate=2 (the loss becomes NaN)",
                            {kLinear, {"--learning_rate=2"}, {"train_linear_regression failed"}},
                            "exit 1", "The model diverged: lower --learning_rate"));
  rows.push_back(ProgramRow("train_spirals --checkpoint_dir=/proc/self",
                            {kSpirals, {"--steps=10", "--checkpoint_dir=/proc/self"}}, "exit 1",
                            "exists but cannot hold new files"));
  const std::string long_parent = FreshDir("spirals_long_path");
  std::string long_dir = long_parent;
  while (long_dir.size() < 4200) long_dir = JoinPath(long_dir, "abcdefghij");
  rows.push_back(ProgramRow(
      "train_spirals --checkpoint_dir=<a path of 4,200 characters>",
      {kSpirals, {"--steps=10", "--checkpoint_dir=" + long_dir}, {"train_spirals failed"}},
      "exit 1", "choose a shorter path", [long_parent] {
        return DefaultFileSystem()->ListDirectory(long_parent).empty()
                   ? std::string()
                   : "directories were left behind in " + long_parent;
      }));
  rows.push_back(ProgramRow(
      "train_spirals --learning_rate=1e38 (the loss becomes NaN)",
      {kSpirals,
       {"--learning_rate=1e38", "--steps=100", "--checkpoint_dir=" + FreshDir("spirals_nan")},
       {"NaN loss", "diverged"}},
      "exit 1", "NaN loss during training", [] {
        // The run stopped at the NaN: its newest checkpoint is the finite one it began with.
        const std::optional<std::string> latest = LatestCheckpoint(FreshDir("spirals_nan"));
        return latest && Basename(*latest) == "model.ckpt-0"
                   ? std::string()
                   : "the newest checkpoint is not the finite model.ckpt-0";
      }));

  // Issue 32, item 19: the argument was ignored, and the run trained in /tmp/mts_spirals.
  rows.push_back(ProgramRow("train_spirals mydir (a directory given without its flag)",
                            {kSpirals, {"mydir"}}, "exit 2",
                            "did you mean --checkpoint_dir=mydir?"));
  // Issue 32, item 19: with nothing to train, the run still rewrote the newest checkpoint,
  // the state file and graph.pbtxt (and started an event file).
  const std::string done_dir = FreshDir("spirals_nothing_to_do");
  auto before = std::make_shared<std::string>();
  rows.push_back(ProgramRow(
      "train_spirals --steps=20 in a directory already at step 20",
      {kSpirals,
       {"--steps=20", "--checkpoint_dir=" + done_dir},
       {"nothing to train"},
       nullptr,
       [done_dir, before] {
         CopyTrainedSpirals(done_dir, /*as_copied=*/false);
         *before = DirectoryListing(done_dir);
       }},
      "exit 0", "nothing was written", [done_dir, before] {
        const std::string after = DirectoryListing(done_dir);
        return after == *before ? std::string()
                                : "the directory changed: before\n" + *before + "after\n" + after;
      }));

  // ---- A damaged, missing or strange newest checkpoint: the fallback -------------------
  const std::string fallback = "restored the newest earlier checkpoint that passes";
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint cut to 100 bytes", "truncated",
      [](const std::string& newest) { std::filesystem::resize_file(newest, 100); }, fallback));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint of zero length", "empty",
      [](const std::string& newest) { std::filesystem::resize_file(newest, 0); }, fallback));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; a bit flipped in its newest checkpoint's index", "flipped",
      [](const std::string& newest) { FlipByte(newest, 40); }, fallback));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint deleted", "deleted",
      [](const std::string& newest) { std::filesystem::remove(newest); }, fallback));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint is a FIFO", "fifo",
      [](const std::string& newest) {
        std::filesystem::remove(newest);
        if (::mkfifo(newest.c_str(), 0644) != 0) ThrowFileSystemError(newest, errno);
      },
      "is a FIFO, not a regular file"));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint is a link to /dev/zero", "dev_zero",
      [](const std::string& newest) {
        std::filesystem::remove(newest);
        std::filesystem::create_symlink("/dev/zero", newest);
      },
      "is a character device"));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its newest checkpoint is 64 GiB of zeros (sparse)", "sparse",
      [](const std::string& newest) {
        std::filesystem::remove(newest);
        std::ofstream(newest).close();
        std::filesystem::resize_file(newest, uintmax_t{1} << 36);
      },
      "does not start with the mts checkpoint magic"));
  rows.push_back(DamagedResumeRow(
      "train_spirals resumes; its `checkpoint` state file is empty", "empty_state",
      [](const std::string& newest) {
        std::ofstream(JoinPath(Dirname(newest), "checkpoint"), std::ios::trunc).close();
      },
      "is unusable; restoring from the 2 checkpoint file(s)"));

  // ---- The user's other runs -------------------------------------------------------------
  const std::string copy = FreshDir("spirals_copy");
  rows.push_back(ProgramRow(
      "train_spirals in a copy of a checkpoint directory (absolute paths in its state file)",
      {kSpirals,
       {"--steps=30", "--log_every=30", "--checkpoint_dir=" + copy},
       {"Resuming from", "names checkpoints in"},
       nullptr,
       [copy] { CopyTrainedSpirals(copy, /*as_copied=*/true); }},
      "exit 0", "the directory was copied or moved", [] {
        // The original keeps its two checkpoints, and its state file still names them.
        const std::optional<CheckpointState> state = GetCheckpointState(TrainedSpirals());
        if (!state || state->all_model_checkpoint_paths.size() != 2) {
          return std::string("the original's state file changed");
        }
        for (const std::string& path : state->all_model_checkpoint_paths) {
          if (!DefaultFileSystem()->Exists(path)) return "the original lost " + path;
        }
        return std::string();
      }));
  auto first_chief = std::make_shared<std::unique_ptr<ChildProcess>>();
  const std::string shared = FreshDir("spirals_two_chiefs");
  rows.push_back(ProgramRow(
      "a second train_spirals in the directory of one still training",
      {kSpirals,
       {"--steps=10", "--checkpoint_dir=" + shared},
       {"train_spirals failed"},
       nullptr,
       [first_chief, shared] {
         *first_chief = std::make_unique<ChildProcess>(
             RunfilePath(kSpirals),
             std::vector<std::string>{"--steps=1000000000", "--log_every=100",
                                      "--checkpoint_dir=" + shared},
             "/dev/null");
         WaitForLine(**first_chief, "step ");  // Training: the directory is locked.
       }},
      "exit 1", "is in use by another process: pid", [first_chief, shared] {
        // Issue 32, item 18: the refused run wrote nothing there, not even an event file
        // (TensorBoard would take a newer empty one for the live run's).
        const std::vector<std::string> events = ListEventFiles(shared);
        if (events.size() != 1) {
          (*first_chief)->Kill();
          return std::to_string(events.size()) + " event files in the first run's directory";
        }
        // The first run stops cleanly on SIGTERM, its final checkpoint whole.
        (*first_chief)->Signal(SIGTERM);
        (*first_chief)->ReadRest();
        const int status = (*first_chief)->Wait();
        first_chief->reset();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          return std::string("the first run did not end cleanly");
        }
        return LatestCheckpoint(shared) ? std::string() : std::string("no checkpoint");
      }));
}

// ---- Issue 32: a closed pipe, a planted directory, a file-size limit -------------------

// What a run stopped by a closed stdout must leave: its final checkpoint past the steps head
// saw, named by the state file, and its events on disk (not only the version record).
std::string StoppedWithCheckpointAndEvents(const std::string& dir) {
  const std::optional<std::string> latest = LatestCheckpoint(dir);
  if (!latest) return "no checkpoint";
  const long long step = std::atoll(latest->c_str() + latest->rfind('-') + 1);
  if (step < 200) return "the newest checkpoint is " + *latest + ", before the steps trained";
  for (const ScalarValue& value : ScalarSummaries(ReadEventDirectory(dir))) {
    if (value.tag.rfind("loss", 0) == 0 && value.step >= 100) return "";
  }
  return "the event file holds no summary of the steps trained";
}

void AppendHostileUseRows(std::vector<BadInput>& rows) {
  const std::string head_dir = FreshDir("spirals_head");
  rows.push_back(ProgramRow(
      "train_spirals | head -3 (its output closed after three lines)",
      {kSpirals,
       {"--steps=1000000000", "--log_every=100", "--checkpoint_dir=" + head_dir},
       {"standard output is closed (", "Standard output is closed ("},
       [](ChildProcess& trainer) {
         for (int line = 0; line < 3; ++line) WaitForLine(trainer, "");
         trainer.CloseStdout();  // head has its lines, and exits.
       }},
      "exit 0", "stopping after this step; the final checkpoint is written at close",
      [head_dir] { return StoppedWithCheckpointAndEvents(head_dir); }));

  // Another user made the directory first, open to all, the lock file a link to a file of
  // the victim's. (Mode 777 is what every user can set up; "owned by another user" needs
  // root to set up, and is tested in tests/platform.)
  const std::string planted = JoinPath(FreshDir("spirals_planted"), "mts_spirals");
  const std::string victim = JoinPath(FreshDir("spirals_victim"), "thesis.txt");
  rows.push_back(ProgramRow(
      "train_spirals in a directory another user made mode 777, checkpoint.lock a link to the "
      "user's file",
      {kSpirals,
       {"--steps=10", "--checkpoint_dir=" + planted},
       {"train_spirals failed"},
       nullptr,
       [planted, victim] {
         std::ofstream(victim) << "the user's own file\n";
         std::filesystem::remove_all(planted);
         std::filesystem::create_directories(planted);
         std::filesystem::permissions(planted, std::filesystem::perms::all);
         std::filesystem::create_symlink(victim, JoinPath(planted, "checkpoint.lock"));
       }},
      "exit 1", "chmod o-w", [victim] {
        return ReadAll(victim) == "the user's own file\n" ? std::string()
                                                          : "the user's file was overwritten";
      }));

  // Issue 32, item 8: the first signal was ignored while a task created its session; a
  // chief whose ps is missing retried forever, a worker waited for the chief until
  // --max_wait_secs. One signal now ends the wait, saying so, with the signal's status.
  const std::string missing_ps = AddressNobodyListensOn();
  rows.push_back(ProgramRow(
      "SIGTERM to a distributed_spirals chief whose ps is not there (it retries forever)",
      {kDistributed,
       {"--job_name=worker", "--task_index=0",
        "--cluster=ps=" + missing_ps + ";worker=" + AddressNobodyListensOn(),
        "--checkpoint_dir=" + FreshDir("chief_without_ps")},
       {"Received SIGTERM"},
       [](ChildProcess& chief) {
         WaitForLine(chief, "Preemption error while creating a session (attempt 2)");
         chief.Signal(SIGTERM);
       },
       nullptr,
       ChildProcessOptions{std::nullopt, /*stderr_to_stdout=*/true}},
      "killed by SIGTERM", "nothing was trained yet, so nothing is saved"));
  auto ps = std::make_shared<std::unique_ptr<ChildProcess>>();
  const std::string ps_address = AddressNobodyListensOn();
  const std::string waiting_cluster = "--cluster=ps=" + ps_address + ";worker=" +
                                      AddressNobodyListensOn() + "," + AddressNobodyListensOn();
  rows.push_back(ProgramRow(
      "Ctrl-C (SIGINT) to a distributed_spirals worker waiting for a chief that never comes",
      {kDistributed,
       {"--job_name=worker", "--task_index=1", waiting_cluster, "--max_wait_secs=86400"},
       {"Received SIGINT"},
       [](ChildProcess& worker) {
         WaitForLine(worker, "Waiting for model to be ready");
         worker.Signal(SIGINT);
       },
       [ps, waiting_cluster] {
         *ps = std::make_unique<ChildProcess>(
             RunfilePath(kDistributed),
             std::vector<std::string>{"--job_name=ps", "--task_index=0", waiting_cluster},
             "/dev/null");
         WaitForLine(**ps, "serving at");
       },
       ChildProcessOptions{std::nullopt, /*stderr_to_stdout=*/true}},
      "killed by SIGINT", "nothing was trained yet, so nothing is saved", [ps] {
        ps->reset();  // Kills and reaps the ps.
        return std::string();
      }));

#if !defined(MTS_THREAD_SANITIZER)
  // ulimit -f 12: below graph.pbtxt (about 125 KB), the first file a resumed run writes.
  // Not under ThreadSanitizer, whose runtime maps its memory through files that a file-size
  // limit cuts short: the program dies of SIGBUS inside the runtime before main.
  const std::string limited = FreshDir("spirals_file_size_limit");
  rows.push_back(ProgramRow(
      "train_spirals resumes under a file-size limit (ulimit -f 12)",
      {kSpirals,
       {"--steps=30", "--log_every=30", "--checkpoint_dir=" + limited},
       {"train_spirals failed"},
       nullptr,
       [limited] { CopyTrainedSpirals(limited, /*as_copied=*/false); },
       ChildProcessOptions{12 * 1024}},
      "exit 1", "raise the limit", [limited] {
        if (LatestCheckpoint(limited) != JoinPath(limited, "model.ckpt-20")) {
          return std::string("the state file no longer names model.ckpt-20");
        }
        for (const std::string& name : DefaultFileSystem()->ListDirectory(limited)) {
          if (name.find(".tmp.") != std::string::npos) return "a temporary was left: " + name;
        }
        return std::string();
      }));
#endif
}

}  // namespace

BadInput ProgramRow(std::string tried, ProgramRun run, std::string expected, std::string advice,
                    std::function<std::string()> after) {
  auto action = [run = std::move(run)] {
    static int runs = 0;
    const std::string stderr_path =
        JoinPath(FreshDir("program_rows"), "stderr_" + std::to_string(++runs));
    if (run.setup) run.setup();
    // With stderr in the pipe (run.start.stderr_to_stdout), the file stays empty.
    ChildProcess program(RunfilePath(run.program), run.args, stderr_path, run.start);
    if (run.drive) run.drive(program);
    program.ReadRest();
    const int status = program.Wait();
    const std::string err = ReadAll(stderr_path);
    throw ProgramEnded(Ending(status), run.keep.empty()
                                           ? KeptLines(err, {""})
                                           : KeptLines(program.output() + err, run.keep));
  };
  return Row("examples", std::move(tried), std::move(expected), std::move(advice),
             std::move(action), std::move(after));
}

void AppendExampleRows(std::vector<BadInput>& rows) {
  AppendSpiralsRows(rows);
  AppendHostileUseRows(rows);

  // ---- distributed_spirals: flags --------------------------------------------------------
  for (const auto& [value, advice] : std::vector<std::pair<std::string, std::string>>{
           {"--log_every=0", "--log_every=0: expected a whole number from 1 to 1000000000"},
           {"--train_steps=abc", "--train_steps=abc: expected a whole number from 1"},
           {"--train_steps=0", "--train_steps=0: expected a whole number from 1"},
           {"--num_workers=-1", "--num_workers=-1: expected a whole number from 1 to 16"},
           {"--num_workers=0", "--num_workers=0: expected a whole number from 1 to 16"}}) {
    rows.push_back(ProgramRow("distributed_spirals " + value, {kDistributed, {value}}, "exit 2",
                              advice));
  }
  rows.push_back(ProgramRow(
      "distributed_spirals --job_name=worker --task_index=abc",
      {kDistributed,
       {"--job_name=worker", "--cluster=ps=127.0.0.1:2222;worker=127.0.0.1:2223",
        "--task_index=abc"}},
      "exit 2", "--task_index=abc: expected a whole number from 0 to 0"));
  // Issue 32, item 10: on /dev/zero the task grew to 2.9 GB in 10 s; on a FIFO it blocked.
  const std::string fifo = JoinPath(FreshDir("cluster_fifo"), "cluster.json");
  rows.push_back(ProgramRow(
      "distributed_spirals --job_name=worker --cluster_file=<a FIFO>",
      {kDistributed,
       {"--job_name=worker", "--task_index=0", "--cluster_file=" + fifo},
       {},
       nullptr,
       [fifo] {
         std::filesystem::remove(fifo);
         if (::mkfifo(fifo.c_str(), 0600) != 0) ThrowFileSystemError(fifo, errno);
       }},
      "exit 2", "is a FIFO, not a regular file"));
  rows.push_back(ProgramRow("distributed_spirals --job_name=worker --cluster_file=/dev/zero",
                            {kDistributed,
                             {"--job_name=worker", "--task_index=0", "--cluster_file=/dev/zero"}},
                            "exit 2", "is a character device, not a regular file"));
  rows.push_back(ProgramRow("distributed_spirals --no_such_flag (absl refuses it)",
                            {kDistributed, {"--no_such_flag"}}, "exit 1",
                            "Unknown command line flag 'no_such_flag'"));
  rows.push_back(ProgramRow("distributed_spirals --help (usage, nothing runs)",
                            {kDistributed, {"--help"}, {"distributed_spirals: Trains"}}, "exit 1",
                            "Without --job_name it is the launcher"));

  // ---- distributed_spirals: the user's data and processes --------------------------------
  // The user's directory holds a file of theirs before the run (written as the row is made).
  const std::string users_dir = FreshDir("users_dir");
  std::ofstream(JoinPath(users_dir, "notes.txt")) << "the user's own file\n";
  rows.push_back(ProgramRow(
      "distributed_spirals --checkpoint_dir=DIR, DIR holding a file of the user's",
      {kDistributed,
       {"--num_workers=1", "--train_steps=20", "--save_steps=10", "--log_every=10",
        "--checkpoint_dir=" + users_dir},
       {"[launcher] checkpoints in "}},
      "exit 0", "never removed or emptied",
      [users_dir] {
        if (ReadAll(JoinPath(users_dir, "notes.txt")) != "the user's own file\n") {
          return std::string("the user's notes.txt is gone or changed");
        }
        if (!LatestCheckpoint(users_dir)) return std::string("no checkpoint was saved");
        return std::string();
      }));
  auto tasks = std::make_shared<std::vector<pid_t>>();
  rows.push_back(ProgramRow(
      "SIGTERM to the distributed_spirals launcher mid-run",
      {kDistributed, SmallJob(FreshDir("sigterm"), 1000000),
       {"[launcher] received", "[launcher] stopped"},
       [tasks](ChildProcess& launcher) {
         WaitForLine(launcher, "[worker:1] global step");
         *tasks = ChildrenOf(launcher.pid());
         launcher.Signal(SIGTERM);
       }},
      "killed by SIGTERM", "the chief writes its final checkpoint",
      [tasks] { return NoneStillRuns(tasks); }));
  rows.push_back(ProgramRow(
      "the chief of a distributed_spirals job killed while a worker trains",
      {kDistributed, SmallJob(FreshDir("chief_gone"), 400),
       {"[launcher] the chief", "(warning) the newest checkpoint"},
       [](ChildProcess& launcher) {
         while (SavedStep(WaitForLine(launcher, "[worker:0 chief] saved checkpoint")) < 20) {
         }
         for (pid_t pid : ChildrenOf(launcher.pid())) {
           const std::vector<std::string> args = ArgumentsOf(pid);
           if (args.size() > 2 && args[1] == "--job_name=worker" && args[2] == "--task_index=0") {
             ::kill(pid, SIGKILL);
           }
         }
       }},
      "exit 1", "no checkpoint will be written past step N"));
}

}  // namespace mts
