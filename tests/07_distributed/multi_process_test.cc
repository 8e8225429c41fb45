// Multi-process tests of stage 07: a real ps, a chief and two workers on 127.0.0.1, each a
// process of examples:distributed_spirals, driven through TaskCluster. Every wait is
// bounded; TaskCluster kills whatever is left when a test ends.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "tests/07_distributed/task_cluster.h"

namespace mts {
namespace testing {
namespace {

constexpr double kRunSecs = 90;  // Generous: two shared cores, maybe a sanitizer.

// What a worker's last line says.
struct Done {
  long long step = -1;
  double loss = 1e9;
  long long local_steps = -1;
  long long recoveries = -1;
};

Done ParseDone(const std::string& log) {
  Done done;
  const size_t pos = log.find("done: global step ");
  if (pos != std::string::npos) {
    std::sscanf(log.c_str() + pos,
                "done: global step %lld  loss %lf  local steps %lld  recoveries %lld", &done.step,
                &done.loss, &done.local_steps, &done.recoveries);
  }
  return done;
}

void ExpectAllFinish(TaskCluster& cluster, int num_workers) {
  for (int task = 0; task < num_workers; ++task) {
    const std::optional<int> status = cluster.WaitWorker(task, kRunSecs);
    ASSERT_TRUE(status.has_value()) << "worker " << task << " did not finish; its log:\n"
                                    << cluster.Log("worker" + std::to_string(task));
    EXPECT_EQ(*status, 0) << cluster.Log("worker" + std::to_string(task));
  }
}

// [mts:test-trains]
TEST(MultiProcessTest, PsChiefAndTwoWorkersReachTheTargetStepAndLoss) {
  TaskCluster cluster(
      3, {"--train_steps=400", "--save_steps=100", "--log_every=50", "--recovery_wait_secs=0.05"});
  cluster.StartPs();
  // The workers start first and check for the model every 50 ms, so all three train from
  // the first steps. Joining a model the chief trained alone for hundreds of steps would
  // throw it off for a while (stale gradients: staleness_test), and the loss might not be
  // back under the bound by step 400.
  for (int task = 1; task < 3; ++task) {
    cluster.StartWorker(task);
    ASSERT_TRUE(
        cluster.WaitForLog("worker" + std::to_string(task), "Worker still waiting for", kRunSecs))
        << cluster.Log("worker" + std::to_string(task));
  }
  cluster.StartWorker(0);
  ExpectAllFinish(cluster, 3);
  for (int task = 0; task < 3; ++task) {
    const Done done = ParseDone(cluster.Log("worker" + std::to_string(task)));
    EXPECT_GE(done.step, 399) << "worker " << task;  // The step fetched before the last one.
    EXPECT_LT(done.loss, 0.1) << "worker " << task;  // It starts at ln 3 = 1.10.
    EXPECT_EQ(done.recoveries, 0) << "worker " << task;
  }
  // The steps were shared: every worker trained, and together they made the target.
  long long total = 0;
  for (int task = 0; task < 3; ++task) {
    const Done done = ParseDone(cluster.Log("worker" + std::to_string(task)));
    EXPECT_GT(done.local_steps, 0) << "worker " << task;
    total += done.local_steps;
  }
  EXPECT_GE(total, 400);
  // The chief's clean close wrote the final checkpoint, at the last step or after it (the
  // others may finish a step meanwhile); nothing trained is left unsaved.
  const std::vector<long long> saved =
      NumbersAfter(cluster.Log("worker0"), "saved checkpoint at global step ");
  ASSERT_FALSE(saved.empty());
  EXPECT_GE(saved.back(), 400);
  EXPECT_EQ(LatestCheckpoint(cluster.checkpoint_dir()),
            cluster.checkpoint_dir() + "/model.ckpt-" + std::to_string(saved.back()));
}
// [mts:test-trains-end]

TEST(MultiProcessTest, WorkersStartedBeforeTheChiefWaitThenTrain) {
  TaskCluster cluster(3, {"--train_steps=300", "--log_every=50"});
  cluster.StartPs();
  cluster.StartWorker(1);
  cluster.StartWorker(2);
  // The workers poll twice a second and say what they wait for.
  ASSERT_TRUE(cluster.WaitForLog("worker1", "Worker still waiting for", 30))
      << cluster.Log("worker1");
  ASSERT_TRUE(cluster.WaitForLog("worker2", "Worker still waiting for", 30))
      << cluster.Log("worker2");
  EXPECT_EQ(cluster.Log("worker1").find("session 1 ready"), std::string::npos);
  cluster.StartWorker(0);
  ExpectAllFinish(cluster, 3);
  for (int task = 1; task < 3; ++task) {
    const std::string log = cluster.Log("worker" + std::to_string(task));
    EXPECT_NE(log.find("session 1 ready"), std::string::npos) << log;
    EXPECT_GT(ParseDone(log).local_steps, 0) << log;
  }
}

// [mts:test-ps-restart]
TEST(MultiProcessTest, PsKilledAndRestartedLosesOnlyTheStepsSinceTheLastCheckpoint) {
  TaskCluster cluster(
      3, {"--train_steps=1200", "--save_steps=100", "--log_every=100", "--step_delay_ms=5"});
  cluster.StartPs();
  for (int task = 0; task < 3; ++task) cluster.StartWorker(task);
  // Until a checkpoint at step 100 or later exists. (The first save, at creation, can be
  // labelled step 10 or more on a slow machine: the workers may train before it.)
  ASSERT_TRUE(cluster.WaitForLogUntil(
      "worker0",
      [](const std::string& log) {
        const std::vector<long long> saved = NumbersAfter(log, "saved checkpoint at global step ");
        return !saved.empty() && saved.back() >= 100;
      },
      kRunSecs))
      << cluster.Log("worker0");
  cluster.KillPs();  // SIGKILL: the variables are gone with the process.
  cluster.StartPs();
  ExpectAllFinish(cluster, 3);

  // The chief's second session starts from the last checkpoint it wrote before: no more was
  // lost than the steps since that checkpoint. (The hook labels a checkpoint with the step
  // it read; the other workers may add a step or two before the save reads the variables,
  // as in any asynchronous job, so the restored step may be a little past the label.)
  const std::string chief = cluster.Log("worker0");
  const size_t second = chief.find("session 2 ready at global step ");
  ASSERT_NE(second, std::string::npos) << chief;
  const std::vector<long long> saved =
      NumbersAfter(chief.substr(0, second), "saved checkpoint at global step ");
  ASSERT_FALSE(saved.empty());
  const long long restored =
      NumbersAfter(chief.substr(second), "session 2 ready at global step ")[0];
  EXPECT_GE(restored, saved.back());
  EXPECT_LE(restored, saved.back() + 10);
  EXPECT_GE(restored, 100);
  for (int task = 0; task < 3; ++task) {
    const Done done = ParseDone(cluster.Log("worker" + std::to_string(task)));
    EXPECT_GE(done.step, 1199) << "worker " << task;
    // The chief always recovers (its second session is checked above). A worker may not:
    // one whose RPCs were all in flight to the old ps, or whose session was still waiting
    // for the model, can come through the restart without seeing an error of its own.
    if (task == 0) {
      EXPECT_GE(done.recoveries, 1) << "worker " << task;
    }
    EXPECT_LT(done.loss, 0.1) << "worker " << task;
  }
  // Two incarnations served the job.
  EXPECT_EQ(NumbersAfter(cluster.Log("ps"), "serving at grpc://").size(), 2u);
}
// [mts:test-ps-restart-end]

TEST(MultiProcessTest, AWorkerKilledAndRestartedRejoins) {
  TaskCluster cluster(3, {"--train_steps=1200", "--log_every=50", "--step_delay_ms=5"});
  cluster.StartPs();
  for (int task = 0; task < 3; ++task) cluster.StartWorker(task);
  ASSERT_TRUE(cluster.WaitForLog("worker1", "(local step 50)", kRunSecs)) << cluster.Log("worker1");
  cluster.KillWorker(1);
  cluster.StartWorker(1);
  ExpectAllFinish(cluster, 3);
  const std::string log = cluster.Log("worker1");
  // The second life of worker 1 finds the model ready, mid-run, and trains to the end.
  const std::vector<long long> starts = NumbersAfter(log, "session 1 ready at global step ");
  ASSERT_EQ(starts.size(), 2u) << log;
  EXPECT_GT(starts[1], starts[0]);
  const Done done = ParseDone(log);
  EXPECT_GT(done.local_steps, 0) << log;
  EXPECT_GE(done.step, 1199) << log;
  EXPECT_EQ(ParseDone(cluster.Log("worker0")).recoveries, 0);  // Nobody else noticed.
}

// [mts:test-paused-ps]
// Issue 32: the ps paused past the RPC deadline (SIGSTOP: a long GC pause, swapping, a slow
// disk), then resumed. Every RPC to it misses the deadline, and the tasks make their
// sessions again, as after a preemption. The ps kept its variables (the same incarnation),
// so the chief keeps the live model instead of restoring its last checkpoint: the pause
// costs time, not training. Nobody's global step goes back.
TEST(MultiProcessTest, APsPausedPastTheDeadlineCostsTimeNotTraining) {
  TaskCluster cluster(
      2, {"--train_steps=500", "--save_steps=50", "--log_every=10", "--step_delay_ms=2",
          "--recovery_wait_secs=0.05", "--rpc_timeout_secs=0.5", "--max_wait_secs=60"});
  cluster.StartPs();
  cluster.StartWorker(0);
  cluster.StartWorker(1);
  // Past a checkpoint, and trained on beyond it: what a restore would roll back.
  ASSERT_TRUE(cluster.WaitForLogUntil(
      "worker0",
      [](const std::string& log) {
        const std::vector<long long> saved = NumbersAfter(log, "saved checkpoint at global step ");
        const std::vector<long long> steps = NumbersAfter(log, "] global step ");
        return !saved.empty() && saved.back() >= 50 && !steps.empty() &&
               steps.back() > saved.back();
      },
      kRunSecs))
      << cluster.Log("worker0");
  cluster.SignalPs(SIGSTOP);
  const size_t paused_at = cluster.Log("worker0").size();
  // The chief's next RPC misses the 0.5 s deadline, and it makes its session again.
  ASSERT_TRUE(cluster.WaitForLogUntil(
      "worker0",
      [paused_at](const std::string& log) {
        return log.find("A preemption error was raised", paused_at) != std::string::npos;
      },
      kRunSecs))
      << cluster.Log("worker0");
  const std::string before = cluster.Log("worker0").substr(0, paused_at);
  const long long last_step = NumbersAfter(before, "] global step ").back();
  cluster.SignalPs(SIGCONT);
  ExpectAllFinish(cluster, 2);

  const std::string chief = cluster.Log("worker0");
  // Its second session starts where the model was, not at the checkpoint before it.
  const std::vector<long long> second = NumbersAfter(chief, "session 2 ready at global step ");
  ASSERT_FALSE(second.empty()) << chief;
  EXPECT_GE(second[0], last_step);
  EXPECT_NE(chief.find("are the ones this chief wrote the model on, unchanged: it is kept as it "
                       "is at global step "),
            std::string::npos)
      << chief;
  EXPECT_EQ(chief.find("rolled back"), std::string::npos) << chief;
  EXPECT_EQ(chief.find("Restoring parameters from", paused_at), std::string::npos) << chief;
  for (int task = 0; task < 2; ++task) {
    const std::string log = cluster.Log("worker" + std::to_string(task));
    EXPECT_EQ(log.find("global step went back"), std::string::npos) << log;
    EXPECT_GE(ParseDone(log).step, 499) << log;
  }
  EXPECT_GE(ParseDone(chief).recoveries, 1);
  // One incarnation served the whole job.
  EXPECT_EQ(NumbersAfter(cluster.Log("ps"), "serving at grpc://").size(), 1u);
}
// [mts:test-paused-ps-end]

// [mts:test-chief-restart]
// The chief killed mid-run while worker 1 trains on, then started again. Worker 1 warns
// that the newest checkpoint fell behind (the chief may be gone); the new chief restores its
// last checkpoint over the live model and warns of the steps rolled back; worker 1 warns
// that the global step went back. TensorFlow does the same rollback, without a word.
TEST(MultiProcessTest, AChiefRestartedMidRunRollsTheLiveModelBackAndEveryoneSaysSo) {
  TaskCluster cluster(2, {"--train_steps=1000000", "--save_steps=20", "--log_every=10",
                          "--step_delay_ms=2", "--recovery_wait_secs=0.05"});
  cluster.StartPs();
  cluster.StartWorker(0);
  cluster.StartWorker(1);
  ASSERT_TRUE(cluster.WaitForLogUntil(
      "worker0",
      [](const std::string& log) {
        const std::vector<long long> saved = NumbersAfter(log, "saved checkpoint at global step ");
        return !saved.empty() && saved.back() >= 20;
      },
      kRunSecs))
      << cluster.Log("worker0");
  cluster.KillWorker(0);
  ASSERT_TRUE(cluster.WaitForLog("worker1", "the chief may be gone", kRunSecs))
      << cluster.Log("worker1");

  const size_t first_life = cluster.Log("worker0").size();
  cluster.StartWorker(0);
  // The rollback is logged while the session is made; its "session 1 ready" line follows.
  ASSERT_TRUE(cluster.WaitForLogUntil(
      "worker0",
      [first_life](const std::string& log) {
        return log.find("session 1 ready at global step ", first_life) != std::string::npos;
      },
      kRunSecs))
      << cluster.Log("worker0");
  ASSERT_TRUE(cluster.WaitForLog("worker1", "global step went back from ", kRunSecs))
      << cluster.Log("worker1");

  // The chief: "The model on grpc://... was live at global step M and was rolled back to
  // the checkpoint from DIR at global step K: M-K steps of training are lost."
  const std::string chief = cluster.Log("worker0").substr(first_life);
  const std::vector<long long> live = NumbersAfter(chief, "was live at global step ");
  const std::vector<long long> restored =
      NumbersAfter(chief, "was rolled back to the checkpoint from " + cluster.checkpoint_dir() +
                              " at global step ");
  ASSERT_EQ(live.size(), 1u) << chief;
  ASSERT_EQ(restored.size(), 1u) << chief;
  EXPECT_GT(live[0], restored[0] + 60);  // Worker 1 trained past three saves meanwhile.
  // Worker 1 trains on during the restore, so the new session starts a step or two later.
  const std::vector<long long> ready = NumbersAfter(chief, "session 1 ready at global step ");
  ASSERT_EQ(ready.size(), 1u) << chief;
  EXPECT_GE(ready[0], restored[0]);
  EXPECT_LT(ready[0], live[0]);
  // Worker 1 saw the step fall back to the checkpoint's (or a step or two after it).
  const std::string worker = cluster.Log("worker1");
  const std::vector<long long> went_back = NumbersAfter(worker, "global step went back from ");
  ASSERT_FALSE(went_back.empty()) << worker;
  const long long from = went_back[0];
  const size_t to_at = worker.find(" to ", worker.find("global step went back from "));
  const long long to = std::atoll(worker.c_str() + to_at + 4);
  EXPECT_GT(from, to);
  EXPECT_GE(to, restored[0]);
  EXPECT_NE(worker.find("a chief wrote the model on the ps over the live one (it restored a "
                        "checkpoint, or initialised it); the steps between are lost"),
            std::string::npos);
}
// [mts:test-chief-restart-end]

}  // namespace
}  // namespace testing
}  // namespace mts
