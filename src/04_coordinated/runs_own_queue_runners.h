// runs_own_queue_runners.h: the mark of a session that starts and joins its graph's queue
// runners itself, so StartQueueRunners given it must start nothing.
//
//   MonitoredSession       carries the mark (stage 06; its CoordinatedSession runs them)
//   StartQueueRunners      <-- asks for the mark (queue_runner.h), one stage below
//   RunsOwnQueueRunners    <-- this file
//
// A user who ported a TF1 loop often keeps its tf.train.start_queue_runners call after
// switching to a MonitoredSession. Threads started that way would be a second set of
// enqueuers, driving the stack from other threads past its hooks. TensorFlow returns an
// empty list for a MonitoredSession and starts nothing; so does mts. The mark lives here,
// below the monitored stage, because StartQueueRunners cannot name a class above it.
//
// TensorFlow: the isinstance check on MonitoredSession / SingularMonitoredSession in
// tf.train.start_queue_runners (tensorflow/python/training/queue_runner_impl.py).
#ifndef MTS_SRC_04_COORDINATED_RUNS_OWN_QUEUE_RUNNERS_H_
#define MTS_SRC_04_COORDINATED_RUNS_OWN_QUEUE_RUNNERS_H_

namespace mts {

/// Marks a session whose queue runners are already started by the session itself.
class RunsOwnQueueRunners {
 public:
  virtual ~RunsOwnQueueRunners() = default;
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_RUNS_OWN_QUEUE_RUNNERS_H_
