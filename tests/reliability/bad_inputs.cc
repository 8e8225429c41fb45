// bad_inputs.cc: the rows of the bad-input table (bad_inputs.h) of stages 01 to 05, then
// those of stages 06 and 07 (bad_inputs_monitored_distributed.cc) and of the example
// programs (bad_inputs_examples.cc): one table, in stage order; and the runner that plays
// a row.
//
// Each action builds its own graph and directory, so the rows are independent and can run
// in any order. Rows that touch files check afterwards that nothing was lost.
#include "tests/reliability/bad_inputs.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/logging_tensor_hook.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/hooks/step_counter_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/reliability/bad_input_support.h"
#include "tests/testing/failing_file_system.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

// ---- Helpers ---------------------------------------------------------------------------------

// A model with one float variable w (3.0) saved as <dir>/model.ckpt-1 (w = 7.0); the
// checkpoint every file row starts from, so it can check the checkpoint survived.
struct SavedModel {
  explicit SavedModel(const std::string& name) : dir(FreshDir(name)) {
    Session session(&fresh.graph);
    session.Run(GlobalVariablesInitializer());
    session.Run(w.Assign(Constant(7.0f)).op());
    path = *saver->Save(session, JoinPath(dir, "model.ckpt"), 1);
  }
  Fresh fresh;
  Variable w{Tensor::Scalar(3.0f), "w"};
  std::shared_ptr<Saver> saver = std::make_shared<Saver>();
  std::string dir;
  std::string path;
};

// Saves the SavedModel's w through a file system whose writes fail with `err`.
void SaveThroughFailingDisk(const std::string& name, int err) {
  SavedModel model(name);
  FailingWritesFileSystem disk(model.dir, err);  // Declared first: the Saver points to it.
  SaverOptions options;
  options.file_system = &disk;
  Saver saver({model.w}, options);
  Session session(&model.fresh.graph);
  session.Run(GlobalVariablesInitializer());
  saver.Save(session, JoinPath(model.dir, "model.ckpt"), 2);
}

// Runs a HookedSession with a hook throwing in BeforeRun or AfterRun.
void RunWithThrowingHook(const std::string& where) {
  Fresh fresh;
  Output c = Constant(1.0f);
  HookedSession session(std::make_unique<Session>(&fresh.graph),
                        {std::make_shared<ThrowingHook>(where)});
  session.Run(c);
}

// Writes an event file with two events into a fresh directory and returns its path.
std::string WriteEventFile(const std::string& name) {
  const std::string dir = FreshDir(name);
  {
    FileWriter writer(dir);
    tensorflow::Event event;
    event.set_step(1);
    writer.AddEvent(event);
    writer.Close();
  }
  return ListEventFiles(dir).front();
}

// ---- The rows of stages 01 to 05: a function a topic, called in table order by MakeRows ----

// 01: feeds and fetches that do not fit, names that do not exist, tensors of two graphs.
void AppendFeedAndFetchRows(std::vector<BadInput>& rows) {
  rows.push_back(
      Row("01", "a feed of the wrong dtype (int32 into a float placeholder)", "TypeError",
          "Feed a value of dtype float32 instead", [] {
            Fresh fresh;
            Output x = Placeholder(DataType::kFloat, {2}, "x");
            Session(&fresh.graph).Run(Identity(x), {{x, Tensor::Vector<int32_t>({1, 2})}});
          }));
  rows.push_back(
      Row("01", "a feed of the wrong shape ([3] into a [2] placeholder)", "ValueError",
          "Feed a value of that shape instead", [] {
            Fresh fresh;
            Output x = Placeholder(DataType::kFloat, {2}, "x");
            Session(&fresh.graph).Run(Identity(x), {{x, Tensor::Vector<float>({1, 2, 3})}});
          }));
  rows.push_back(Row("01", "a placeholder left unfed", "InvalidArgumentError",
                     "You must feed a value for placeholder tensor 'x'", [] {
                       Fresh fresh;
                       Output x = Placeholder(DataType::kFloat, {2}, "x");
                       Session(&fresh.graph).Run(Identity(x));
                     }));
  rows.push_back(Row("01", "an unknown fetch name (\"nope:0\")", "ValueError",
                     "Check the spelling and the name scope", [] {
                       Fresh fresh;
                       Constant(1.0f, "c");
                       fresh.graph.GetTensorByName("nope:0");
                     }));
  rows.push_back(Row("01", "a malformed tensor name (\"c:x\")", "ValueError",
                     "Tensor names are '<op name>:<output index>'", [] {
                       Fresh fresh;
                       Constant(1.0f, "c");
                       fresh.graph.GetTensorByName("c:x");
                     }));
  rows.push_back(Row("01", "a fetch from another graph", "ValueError",
                     "Fetch only tensors of the graph this Session runs", [] {
                       Fresh fresh;
                       Constant(1.0f);
                       Graph other;
                       Output elsewhere = [&] {
                         DefaultGraphScope scope(other);
                         return Constant(2.0f);
                       }();
                       Session(&fresh.graph).Run(elsewhere);
                     }));
  rows.push_back(Row("01", "a feed key from another graph", "ValueError",
                     "Feed only tensors of the graph this Session runs", [] {
                       Fresh fresh;
                       Output c = Constant(1.0f);
                       Graph other;
                       Output elsewhere = [&] {
                         DefaultGraphScope scope(other);
                         return Placeholder(DataType::kFloat, {}, "p");
                       }();
                       Session(&fresh.graph).Run(c, {{elsewhere, Tensor::Scalar(1.0f)}});
                     }));
  rows.push_back(Row("01", "an op whose inputs come from two graphs", "ValueError",
                     "Build an op and its inputs in one graph", [] {
                       Fresh fresh;
                       Output a = Constant(1.0f);
                       Graph other;
                       Output b = [&] {
                         DefaultGraphScope scope(other);
                         return Constant(2.0f);
                       }();
                       Add(a, b);
                     }));
}

// 01: a session closed or run on an empty graph, an op added to a finalized graph.
void AppendSessionLifecycleRows(std::vector<BadInput>& rows) {
  rows.push_back(
      Row("01", "run after close", "RuntimeError", "Make a new session to run again", [] {
        Fresh fresh;
        Output c = Constant(1.0f);
        Session session(&fresh.graph);
        session.Close();
        session.Run(c);
      }));
  rows.push_back(Row("01", "close twice", "none", "", [] {
    Fresh fresh;
    Session session(&fresh.graph);
    session.Close();
    session.Close();
  }));
  rows.push_back(Row("01", "run on an empty graph", "RuntimeError",
                     "Add operations to the graph before calling run()", [] {
                       Fresh fresh;
                       Session(&fresh.graph).Run(std::vector<Output>{});
                     }));
  rows.push_back(Row("01", "adding an op to a finalized graph", "RuntimeError",
                     "It was finalized by a call of Graph::Finalize(). Build every op", [] {
                       Fresh fresh;
                       fresh.graph.Finalize();
                       Constant(1.0f);
                     }));
}

// 01: variables read before they are set or assigned what does not fit; tensors built or
// read wrongly.
void AppendVariableAndTensorRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("01", "reading a variable before initialising it", "FailedPreconditionError",
                     "uninitialized value w", [] {
                       Fresh fresh;
                       Variable w(Tensor::Scalar(1.0f), "w");
                       Session(&fresh.graph).Run(w.value());
                     }));
  rows.push_back(Row("01", "assigning a value of another shape to a variable", "ValueError",
                     "assign a value of shape [2] instead", [] {
                       Fresh fresh;
                       Variable w(Tensor::Vector<float>({1, 2}), "w");
                       w.Assign(Constant(Tensor::Vector<float>({1, 2, 3})));
                     }));
  rows.push_back(Row("01", "assigning a value of another dtype to a variable", "TypeError",
                     "assign a value of dtype float32 instead", [] {
                       Fresh fresh;
                       Variable w(Tensor::Scalar(1.0f), "w");
                       w.Assign(Constant(int32_t{1}));
                     }));
  rows.push_back(Row("01", "a ragged matrix literal", "ValueError",
                     "give every row the same number of values", [] {
                       Tensor::Matrix<float>({{1, 2}, {3}});
                     }));
  rows.push_back(Row("01", "scalar() of a tensor with several elements", "InvalidArgumentError",
                     "element", [] {
                       Tensor::Vector<float>({1, 2}).scalar<float>();
                     }));
  rows.push_back(Row("01", "reading a float tensor as int64", "InvalidArgumentError", "float",
                     [] { Tensor::Scalar(1.0f).scalar<int64_t>(); }));
}

// 02: one checkpoint file: a Saver that cannot save it (no variables, no directory, a full
// or unwritable disk) or cannot restore it (missing, of another model, damaged).
void AppendSaverRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("02", "a Saver with no variables", "ValueError",
                     "Create the variables before the Saver", [] {
                       Fresh fresh;
                       Saver saver;
                     }));
  rows.push_back(Row("02", "saving into a missing checkpoint directory", "ValueError",
                     "Create the directory first", [] {
                       SavedModel model("missing_dir");
                       Session session(&model.fresh.graph);
                       session.Run(GlobalVariablesInitializer());
                       model.saver->Save(session, JoinPath(model.dir, "no/such/dir/model.ckpt"), 2);
                     }));
  rows.push_back(Row(
      "02", "a full disk while saving (ENOSPC through the FileSystem seam)",
      "ResourceExhaustedError", "free disk space",
      [] { SaveThroughFailingDisk("full_disk", ENOSPC); },
      [] {
        return CheckpointIntact(JoinPath(FreshDir(""), "full_disk"),
                                JoinPath(FreshDir(""), "full_disk/model.ckpt-1"));
      }));
  rows.push_back(Row(
      "02", "an unwritable checkpoint directory (EACCES through the seam)", "PermissionDeniedError",
      "make the directory writable", [] { SaveThroughFailingDisk("unwritable", EACCES); },
      [] {
        return CheckpointIntact(JoinPath(FreshDir(""), "unwritable"),
                                JoinPath(FreshDir(""), "unwritable/model.ckpt-1"));
      }));
  rows.push_back(Row("02", "restoring from a path with no checkpoint", "ValueError",
                     "Pass a path that Saver::Save returned", [] {
                       SavedModel model("no_checkpoint");
                       Session session(&model.fresh.graph);
                       model.saver->Restore(session, JoinPath(model.dir, "model.ckpt-99"));
                     }));
  rows.push_back(Row("02", "restoring a checkpoint of another model (a variable missing)",
                     "NotFoundError", "was a variable added or renamed", [] {
                       SavedModel model("other_model");
                       Fresh fresh;
                       Variable v(Tensor::Scalar(1.0f), "v");
                       Saver saver;
                       Session session(&fresh.graph);
                       saver.Restore(session, model.path);
                     }));
  rows.push_back(Row("02", "restoring into a variable of another shape", "InvalidArgumentError",
                     "in the graph but", [] {
                       SavedModel model("other_shape");
                       Fresh fresh;
                       Variable w(Tensor::Vector<float>({1, 2}), "w");
                       Saver saver;
                       Session session(&fresh.graph);
                       saver.Restore(session, model.path);
                     }));
  rows.push_back(Row("02", "restoring a truncated checkpoint", "DataLossError",
                     "Restore an earlier checkpoint", [] {
                       SavedModel model("truncated_ckpt");
                       const std::string bytes = DefaultFileSystem()->ReadFile(model.path);
                       DefaultFileSystem()->WriteFileAtomically(model.path,
                                                                bytes.substr(0, bytes.size() - 3));
                       Session session(&model.fresh.graph);
                       model.saver->Restore(session, model.path);
                     }));
  rows.push_back(Row("02", "restoring a file that is not a checkpoint", "DataLossError",
                     "Restore an earlier checkpoint", [] {
                       SavedModel model("not_a_checkpoint");
                       DefaultFileSystem()->WriteFileAtomically(model.path, "hello, world\n");
                       Session session(&model.fresh.graph);
                       model.saver->Restore(session, model.path);
                     }));
}

// 02: a checkpoint directory: a damaged newest checkpoint, a state file of garbage or
// naming a deleted file, NaN saves against rotation.
void AppendCheckpointDirectoryRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("02", "the latest checkpoint damaged, an earlier one sound", "none",
                     "restored the newest earlier checkpoint that passes", [] {
                       SavedModel model("damaged_latest");
                       Session session(&model.fresh.graph);
                       session.Run(GlobalVariablesInitializer());
                       const std::string second =
                           *model.saver->Save(session, JoinPath(model.dir, "model.ckpt"), 2);
                       std::string bytes = DefaultFileSystem()->ReadFile(second);
                       bytes.back() ^= 1;
                       DefaultFileSystem()->WriteFileAtomically(second, bytes);
                       PrepareSessionOptions restore;
                       restore.saver = model.saver.get();
                       restore.checkpoint_dir = model.dir;
                       SessionManager().PrepareSession("", restore);
                     }));
  rows.push_back(Row("02", "a state file of garbage", "none", "checkpoint state", [] {
    SavedModel model("garbage_state");
    DefaultFileSystem()->WriteFileAtomically(JoinPath(model.dir, "checkpoint"), "}{ not text");
    LatestCheckpoint(model.dir);
  }));
  rows.push_back(
      Row("02", "a state file naming a deleted checkpoint", "none", "Couldn't match files", [] {
        SavedModel model("deleted_ckpt");
        DefaultFileSystem()->DeleteFile(model.path);
        LatestCheckpoint(model.dir);
      }));
  rows.push_back(Row("02", "saves of NaN values after a finite one (max_to_keep 2)", "none",
                     "it is the newest checkpoint whose values are all finite",
                     [] {
                       SavedModel model("nan_rotation");
                       SaverOptions options;
                       options.max_to_keep = 2;
                       Saver saver({model.w}, options);
                       saver.RecoverLastCheckpoints({model.path});  // As after a restart.
                       Session session(&model.fresh.graph);
                       session.Run(GlobalVariablesInitializer());
                       session.Run(model.w.Assign(Constant(std::nanf(""))).op());
                       for (int step = 2; step <= 5; ++step) {
                         saver.Save(session, JoinPath(model.dir, "model.ckpt"), step);
                       }
                     },
                     [] {
                       // The finite model.ckpt-1 is still listed, beside the newest NaN one.
                       const std::string dir = FreshDir("nan_rotation");
                       const std::optional<CheckpointState> state = GetCheckpointState(dir);
                       const std::vector<std::string> expected = {
                           JoinPath(dir, "model.ckpt-1"), JoinPath(dir, "model.ckpt-5")};
                       if (!state || state->all_model_checkpoint_paths != expected) {
                         return std::string("the state file lost model.ckpt-1");
                       }
                       return DefaultFileSystem()->Exists(expected[0])
                                  ? std::string()
                                  : std::string("model.ckpt-1 was deleted");
                     }));
}

// 02, issue 32 item 5: a state file naming DIR/sub/../victim.txt, DIR/sub a link to another
// directory. The kernel resolves that to the file beside the link's target, which rotation
// unlinked: its "inside the directory" check collapsed ".." as text.
void AppendRotationThroughALinkRow(std::vector<BadInput>& rows) {
  rows.push_back(Row(
      "02",
      "a state-file entry DIR/sub/../victim.txt, DIR/sub a symbolic link to another "
      "directory, then rotation",
      "none", "it is outside the checkpoint directory",
      [] {
        SavedModel model("rotation_link");
        const std::string elsewhere = JoinPath(FreshDir("rotation_link_target"), "deep");
        DefaultFileSystem()->CreateDirectories(elsewhere);
        DefaultFileSystem()->WriteFileAtomically(JoinPath(Dirname(elsewhere), "victim.txt"),
                                                 "the user's file");
        const std::string link = JoinPath(model.dir, "sub");
        if (::symlink(elsewhere.c_str(), link.c_str()) != 0) ThrowFileSystemError(link, errno);
        UpdateCheckpointStateFile(model.dir, model.path,
                                  {JoinPath(link, "../victim.txt"), model.path});
        SaverOptions options;
        options.max_to_keep = 1;
        Saver saver({model.w}, options);
        saver.RecoverLastCheckpoints(GetCheckpointState(model.dir)->all_model_checkpoint_paths);
        Session session(&model.fresh.graph);
        session.Run(GlobalVariablesInitializer());
        saver.Save(session, JoinPath(model.dir, "model.ckpt"), 2);
      },
      [] {
        const std::string victim = JoinPath(FreshDir("rotation_link_target"), "victim.txt");
        return DefaultFileSystem()->Exists(victim) ? std::string() : "rotation deleted " + victim;
      }));
}

// 02: SessionManager: contradictory paths, nothing to initialise with, a worker whose
// chief never comes.
void AppendSessionManagerRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("02", "both checkpoint_dir and checkpoint_filename_with_path", "ValueError",
                     "Can not provide both", [] {
                       SavedModel model("both_dir_and_file");
                       PrepareSessionOptions both;
                       both.saver = model.saver.get();
                       both.checkpoint_dir = model.dir;
                       both.checkpoint_filename_with_path = model.path;
                       SessionManager().PrepareSession("", both);
                     }));
  rows.push_back(Row("02", "a chief with nothing to restore and nothing to initialise with",
                     "RuntimeError", "init_op", [] {
                       Fresh fresh;
                       Variable w(Tensor::Scalar(1.0f), "w");
                       SessionManagerOptions options;
                       options.ready_op = ReportUninitializedVariables();
                       SessionManager(options).PrepareSession("");
                     }));
  rows.push_back(Row("02", "a worker waiting for a model nobody initialises",
                     "DeadlineExceededError", "Check that the chief is running", [] {
                       Fresh fresh;
                       Variable w(Tensor::Scalar(1.0f), "w");
                       SessionManagerOptions options;
                       options.ready_op = ReportUninitializedVariables();
                       SessionManager(options).WaitForSession(
                           "", 0);  // One check, no sleep: no time passes.
                     }));
}

// 03: hooks and timers given contradictory or missing settings.
void AppendHookSettingRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("03", "StopAtStepHook with both num_steps and last_step", "ValueError",
                     "Only one of", [] { StopAtStepHook(10, 20); }));
  rows.push_back(Row("03", "StopAtStepHook with neither", "ValueError", "must be specified",
                     [] { StopAtStepHook(std::nullopt, std::nullopt); }));
  rows.push_back(Row("03", "StopAtStepHook with negative num_steps", "ValueError",
                     "num_steps must be >= 0", [] { StopAtStepHook(-5, std::nullopt); }));
  rows.push_back(Row("03", "a timer with both every_secs and every_steps", "ValueError",
                     "Can not provide both", [] { SecondOrStepTimer(1.0, 10); }));
  rows.push_back(Row("03", "CheckpointSaverHook with both save_secs and save_steps", "ValueError",
                     "Can not provide both",
                     [] {
                       CheckpointSaverHookOptions options;
                       options.save_secs = 60.0;
                       options.save_steps = 100;
                       CheckpointSaverHook(FreshDir("both_secs_steps"), options);
                     }));
  rows.push_back(Row("03", "a timer with negative every_steps", "ValueError",
                     "every_steps must be >= 0", [] { SecondOrStepTimer(std::nullopt, -1); }));
  rows.push_back(Row("03", "LoggingTensorHook with no frequency and no at_end", "ValueError",
                     "every_n_iter", [] {
                       Fresh fresh;
                       LoggingTensorHook({Constant(1.0f)}, LoggingTensorHookOptions{});
                     }));
  rows.push_back(Row("03", "CheckpointSaverHook in a graph without a global step", "RuntimeError",
                     "Global step should be created", [] {
                       Fresh fresh;
                       Variable w(Tensor::Scalar(1.0f), "w");
                       CheckpointSaverHookOptions options;
                       options.save_steps = 10;
                       CheckpointSaverHook(FreshDir("no_global_step"), options).Begin();
                     }));
}

// 03: hooks that throw (the one in AfterCreateSession is a row of stage 04, whose
// coordinated layer calls it).
void AppendThrowingHookRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("03", "a hook that throws in BeforeRun", "InvalidArgumentError",
                     "fix the hook", [] { RunWithThrowingHook("BeforeRun"); }));
  rows.push_back(Row("03", "a hook that throws in AfterRun", "InvalidArgumentError", "fix the hook",
                     [] { RunWithThrowingHook("AfterRun"); }));
  rows.push_back(Row(
      "04", "a hook that throws in AfterCreateSession", "InvalidArgumentError", "fix the hook", [] {
        Fresh fresh;
        Constant(1.0f);
        auto creator = std::make_shared<FunctionSessionCreator>(
            [&] { return std::make_unique<Session>(&fresh.graph); });
        CoordinatedSessionCreator(creator, {std::make_shared<ThrowingHook>("AfterCreateSession")})
            .CreateSession();
      }));
}

// A Summary holding one scalar value.
tensorflow::Summary ScalarSummary(const std::string& tag, float value) {
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return summary;
}

// "" if the event files of `dir` are `files` in number and hold the scalar steps `first` to
// `last`, each once, in order; else what is wrong.
std::string StepsInEventFiles(const std::string& dir, int64_t first, int64_t last, size_t files) {
  if (ListEventFiles(dir).size() != files) {
    return std::to_string(ListEventFiles(dir).size()) + " event files in " + dir;
  }
  std::vector<int64_t> steps;
  for (const ScalarValue& value : ScalarSummaries(ReadEventDirectory(dir))) {
    steps.push_back(value.step);
  }
  for (int64_t step = first; step <= last; ++step) {
    if (steps.size() != static_cast<size_t>(last - first + 1) || steps[step - first] != step) {
      return "the event files do not hold steps " + std::to_string(first) + " to " +
             std::to_string(last) + " once each";
    }
  }
  return "";
}

// 03: event files damaged, missing or contended, and a summary directory that is a file.
void AppendEventFileRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("03", "a truncated event file", "OutOfRangeError",
                     "If a writer is still writing the file, read again later", [] {
                       const std::string path = WriteEventFile("truncated_events");
                       const std::string bytes = DefaultFileSystem()->ReadFile(path);
                       DefaultFileSystem()->WriteFileAtomically(path,
                                                                bytes.substr(0, bytes.size() - 5));
                       ReadEventFile(path);
                     }));
  rows.push_back(Row("03", "a corrupted event file", "DataLossError",
                     "the records before this offset passed their checksums", [] {
                       const std::string path = WriteEventFile("corrupt_events");
                       std::string bytes = DefaultFileSystem()->ReadFile(path);
                       bytes[bytes.size() - 6] ^= 1;
                       DefaultFileSystem()->WriteFileAtomically(path, bytes);
                       ReadEventFile(path);
                     }));
  rows.push_back(Row("03", "a missing event file", "NotFoundError", "check the path", [] {
    ReadEventFile(JoinPath(FreshDir("missing_events"), "events.out.tfevents.1.h"));
  }));
  rows.push_back(Row("03", "two event writers opening files in the same second", "none",
                     "is taken (another writer opened it this second)", [] {
                       const std::string dir = FreshDir("same_second");
                       FakeClock clock;  // Both open at the same second, however slow the run.
                       FileWriterOptions on_clock;
                       on_clock.clock = &clock;
                       FileWriter first(dir, on_clock);
                       FileWriter second(dir, on_clock);
                       first.AddSessionLog({}, 1);
                       first.Flush();
                       second.AddSessionLog({}, 2);
                       second.Flush();
                       // Two runs started together: neither file may be the other's.
                       if (first.filename() == second.filename()) {
                         throw InternalError("both writers write " + first.filename());
                       }
                     }));
  // Issue 32, item 4: the writer appended to the deleted file, and every later event was lost.
  rows.push_back(Row(
      "03", "the event file deleted mid-run (rm DIR/events.out.tfevents.*)", "none",
      "has disappeared",
      [] {
        FakeClock clock;
        FileWriterOptions on_clock;
        on_clock.clock = &clock;
        FileWriter writer(FreshDir("events_deleted"), on_clock);
        writer.AddSummary(ScalarSummary("loss", 1.0f), 1);
        writer.Flush();
        DefaultFileSystem()->DeleteFile(writer.filename());
        for (int step = 2; step <= 5; ++step) {
          writer.AddSummary(ScalarSummary("loss", static_cast<float>(step)), step);
          writer.Flush();
        }
      },
      [] { return StepsInEventFiles(FreshDir("events_deleted"), 2, 5, 1); }));
  // Issue 32, item 11: a new, empty event file at every failed flush (485 in 8 s).
  rows.push_back(Row(
      "03", "the disk under the event file full for 20 flushes, then freed", "none",
      "are kept and written again",
      [] {
        FailingWritesFileSystem disk("tfevents", ENOSPC);
        disk.set_failing(false);
        FakeClock clock;
        FileWriterOptions on_disk;
        on_disk.clock = &clock;
        on_disk.fs = &disk;
        FileWriter writer(FreshDir("events_full_disk"), on_disk);
        writer.AddSummary(ScalarSummary("loss", 1.0f), 1);
        writer.Flush();
        disk.set_failing(true);
        for (int step = 2; step <= 21; ++step) {
          writer.AddSummary(ScalarSummary("loss", static_cast<float>(step)), step);
          writer.Flush();
        }
        disk.set_failing(false);
        writer.AddSummary(ScalarSummary("loss", 22.0f), 22);
        writer.Close();
      },
      [] { return StepsInEventFiles(FreshDir("events_full_disk"), 1, 22, 1); }));
  rows.push_back(Row("03", "a summary directory whose path is a file", "FailedPreconditionError",
                     "choose another path", [] {
                       const std::string dir = FreshDir("logdir_is_file");
                       DefaultFileSystem()->WriteFileAtomically(JoinPath(dir, "file"), "x");
                       FileWriter writer(JoinPath(dir, "file/logs"));
                     }));
}

// 04: queue runners and queues misused, a thread that ignores a stop request.
void AppendCoordinatorRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("04", "a QueueRunner without enqueue ops", "ValueError",
                     "Must provide queue and enqueue_ops", [] {
                       Fresh fresh;
                       Queue queue = FIFOQueue(10, {DataType::kFloat});
                       QueueRunner(queue, {});
                     }));
  rows.push_back(Row("04", "enqueueing a component of the wrong dtype", "TypeError", "dtype", [] {
    Fresh fresh;
    Queue queue = FIFOQueue(10, {DataType::kFloat});
    queue.Enqueue({Constant(int32_t{1})});
  }));
  rows.push_back(
      Row("04", "dequeueing from a closed, empty queue", "OutOfRangeError", "closed", [] {
        Fresh fresh;
        Queue queue = FIFOQueue(10, {DataType::kFloat});
        Operation* close = queue.Close();
        std::vector<Output> dequeued = queue.Dequeue();
        Session session(&fresh.graph);
        session.Run({}, {}, {close});
        session.Run(dequeued);
      }));
  rows.push_back(
      Row("04", "a thread that ignores a stop request past the grace period", "RuntimeError",
          "threads still running", [] {
            // The grace period is 10 ms of real time; the thread is released right after.
            Coordinator coord;
            std::atomic<bool> release{false};
            auto thread = std::make_shared<CoordinatedThread>("stubborn", [&release] {
              while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
            thread->Start();
            coord.RequestStop();
            struct Release {  // Let the thread end whatever Join does, so nothing outlives the row.
              std::atomic<bool>& flag;
              std::shared_ptr<CoordinatedThread> thread;
              ~Release() {
                flag = true;
                while (thread->IsAlive()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
              }
            } release_at_exit{release, thread};
            coord.Join({thread}, 0.01);
          }));
}

// 05: a master that never comes back, a RecoverableSession run after close.
void AppendRecoverableRows(std::vector<BadInput>& rows) {
  rows.push_back(
      Row("05", "a master that stays unreachable (every creation Unavailable)", "UnavailableError",
          "check that the master and parameter servers are up", [] {
            Fresh fresh;
            auto creator =
                std::make_shared<FunctionSessionCreator>([]() -> std::unique_ptr<SessionInterface> {
                  throw UnavailableError("the master at grpc://nowhere:2222 is unreachable");
                });
            RecoveryOptions options;
            options.max_creation_attempts = 3;  // No backoff by default: no time passes.
            RecoverableSession session(creator, options);
          }));
  rows.push_back(Row("05", "run after close of a RecoverableSession", "RuntimeError",
                     "Make a new session to run again", [] {
                       Fresh fresh;
                       Output c = Constant(1.0f);
                       auto creator = std::make_shared<FunctionSessionCreator>(
                           [&] { return std::make_unique<Session>(&fresh.graph); });
                       RecoverableSession session(creator);
                       session.Close();
                       session.Run(c);
                     }));
}

std::vector<BadInput> MakeRows() {
  std::vector<BadInput> rows;
  AppendFeedAndFetchRows(rows);
  AppendSessionLifecycleRows(rows);
  AppendVariableAndTensorRows(rows);
  AppendSaverRows(rows);
  AppendCheckpointDirectoryRows(rows);
  AppendRotationThroughALinkRow(rows);
  AppendSessionManagerRows(rows);
  AppendHookSettingRows(rows);
  AppendThrowingHookRows(rows);
  AppendEventFileRows(rows);
  AppendCoordinatorRows(rows);
  AppendRecoverableRows(rows);
  // ---- 06 and 07: the monitored sessions, the distributed runtime ------------------------
  AppendMonitoredAndDistributedRows(rows);
  // ---- examples: the programs, run as a user runs them -------------------------------------
  AppendExampleRows(rows);
  return rows;
}

// The class name of the exception in flight, as errors.h spells it.
std::string ClassOf(const std::exception& e) {
  if (const auto* ended = dynamic_cast<const ProgramEnded*>(&e)) return ended->ending();
  if (const auto* op = dynamic_cast<const OpError*>(&e)) {
    switch (op->code()) {
      case ErrorCode::kCancelled:
        return "CancelledError";
      case ErrorCode::kUnknown:
        return "UnknownError";
      case ErrorCode::kInvalidArgument:
        return "InvalidArgumentError";
      case ErrorCode::kDeadlineExceeded:
        return "DeadlineExceededError";
      case ErrorCode::kNotFound:
        return "NotFoundError";
      case ErrorCode::kAlreadyExists:
        return "AlreadyExistsError";
      case ErrorCode::kPermissionDenied:
        return "PermissionDeniedError";
      case ErrorCode::kResourceExhausted:
        return "ResourceExhaustedError";
      case ErrorCode::kFailedPrecondition:
        return "FailedPreconditionError";
      case ErrorCode::kAborted:
        return "AbortedError";
      case ErrorCode::kOutOfRange:
        return "OutOfRangeError";
      case ErrorCode::kUnimplemented:
        return "UnimplementedError";
      case ErrorCode::kInternal:
        return "InternalError";
      case ErrorCode::kUnavailable:
        return "UnavailableError";
      case ErrorCode::kDataLoss:
        return "DataLossError";
      case ErrorCode::kUnauthenticated:
        return "UnauthenticatedError";
      case ErrorCode::kOk:
        return "OpError(OK)";
    }
  }
  if (dynamic_cast<const ValueError*>(&e) != nullptr) return "ValueError";
  if (dynamic_cast<const TypeError*>(&e) != nullptr) return "TypeError";
  if (dynamic_cast<const RuntimeError*>(&e) != nullptr) return "RuntimeError";
  return std::string("std::exception (") + typeid(e).name() + ")";
}

}  // namespace

std::string FreshDir(const std::string& name) {
  // One root per process: Bazel's test directory under `bazel test`, a new one otherwise.
  static const std::string* root = [] {
    const char* test_tmpdir = std::getenv("TEST_TMPDIR");
    if (test_tmpdir != nullptr) return new std::string(test_tmpdir);
    char pattern[] = "/tmp/mts-bad-inputs-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) ThrowFileSystemError(pattern, errno);
    return new std::string(pattern);
  }();
  const std::string dir = JoinPath(*root, name);
  DefaultFileSystem()->CreateDirectories(dir);
  return dir;
}

const std::vector<BadInput>& BadInputs() {
  static const std::vector<BadInput>* rows = new std::vector<BadInput>(MakeRows());
  return *rows;
}

BadInputOutcome RunBadInput(const BadInput& row) {
  BadInputOutcome outcome;
  ScopedLogCapture capture;
  try {
    row.action();
    outcome.error_class = "none";
    for (const std::string& line : capture.lines()) {
      outcome.message += (outcome.message.empty() ? "" : "\n") + line;
    }
  } catch (const std::exception& e) {
    outcome.error_class = ClassOf(e);
    outcome.message = e.what();
  }
  if (row.after) outcome.after_problem = row.after();
  return outcome;
}

}  // namespace mts
