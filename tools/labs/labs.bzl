"""The labs: one table, read by Bazel (tools/labs/BUILD: the config_settings, the tests'
data, the build-graph queries) and by Python (tools/labs/labs.py reads it as a literal: keep
it plain data). The labs are listed in the book's order, which is the order they are
written in.

Each lab: its name (the value of --define=lab=NAME and of its regions' markers), its title,
its page, the libraries whose lab regions the student writes (mts_lab_library), the test
groups that grade it, in the order a student should make them pass (the stage's own tests
first, then the WrappedSession contract suite where the layer is a wrapper, then the layers
above it), and how many of its graded test cases the starter must fail ("all", or a number;
cases that never reach the lab's functions, such as a constructor's argument checks, pass
either way), which labs_test checks on the groups it can preload a starter into.

Each group: a name, a test target, a gtest filter, points (all or nothing: every case of
the group passes, or it scores 0), and `needs`: the labs whose libraries its test links, in
book order. `needs` is what the build graph says (//tools/labs:table_test compares it with a
genquery of each test's deps), so it cannot drift. Optional: "linkstatic": True when the test
links the layers into its executable (the distributed tests, for ThreadSanitizer's
suppressions), so a preloaded starter cannot reach it (labs_test and ladder_test say how
they handle it). "tsan": True when the group is graded under ThreadSanitizer as well, as
the groups of the threaded labs (04 to 07) are: `tools/grade.sh --tsan` builds its test
with --config=tsan and runs it again, and a data race fails the case it came in (a race the
asserts cannot see still loses the group's points); //tools/labs:fixtures_test, run under
--config=tsan, proves a lock skipped loses them.

How needs become a grade (labs.py, the same code for tools/grade.sh and ladder_test):
a group is a lab's *own* group when it needs no lab after that lab; the others wait. A lab is
*written* when all of its own groups pass. A group that needs a later lab waits until every
later lab it needs is written: until then it is shown as "waits for lab K" and is left out of
the score and of the maximum. Every case of a waiting group is also a case of the own groups
of the last lab it needs (ladder_test checks it), so once it counts, it passes: a later lab
can add points to an earlier one, never take them away, and a lab scores full marks as soon
as it and the labs before it are right.
"""

LABS = [
    {
        "name": "01_session",
        "title": "the execution plan, Session::Run and the executor",
        "page": "chapters/01_session/lab.md",
        "libraries": ["//src/01_session:session"],
        "must_fail": 89,
        "groups": [
            {
                "name": "Session: plan, run, feeds and fetches",
                "test": "//tests/01_session:session_test",
                "filter": "*",
                "points": 50,
                "needs": ["01_session"],
            },
            {
                "name": "variables through the Session",
                "test": "//tests/01_session:variables_test",
                "filter": "*",
                "points": 20,
                "needs": ["01_session"],
            },
            {
                "name": "layer 03: HookedSession",
                "test": "//tests/03_hooked:hooked_session_test",
                "filter": "*",
                "points": 15,
                "needs": ["01_session", "03_hooked"],
            },
            {
                "name": "layer 06: MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 15,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
        ],
    },
    {
        "name": "01_learning",
        "title": "reverse-mode Gradients",
        "page": "chapters/01_session/lab_learning.md",
        "libraries": ["//src/01_session/learning:gradients"],
        "must_fail": 60,
        "groups": [
            {
                "name": "Gradients: each op's gradient and the walk back",
                "test": "//tests/01_session/learning:gradients_test",
                "filter": "*",
                "points": 50,
                "needs": ["01_session", "01_learning"],
            },
            {
                "name": "the optimizers built on Gradients",
                "test": "//tests/01_session/learning:optimizer_test",
                "filter": "*",
                "points": 30,
                "needs": ["01_session", "01_learning"],
            },
            {
                "name": "models that train to convergence",
                "test": "//tests/01_session/learning:training_convergence_test",
                "filter": "*",
                "points": 20,
                "needs": ["01_session", "01_learning"],
            },
        ],
    },
    {
        "name": "02_chief_worker",
        "title": "SessionManager's chief and worker paths, Saver's atomic save",
        "page": "chapters/02_chief_worker/lab.md",
        "libraries": ["//src/02_chief_worker:session_manager", "//src/02_chief_worker:saver"],
        "must_fail": 106,
        "groups": [
            {
                "name": "SessionManager: prepare, recover, wait",
                "test": "//tests/02_chief_worker:session_manager_test",
                "filter": "*",
                "points": 35,
                "needs": ["01_session", "02_chief_worker"],
            },
            {
                "name": "Saver: the atomic save",
                "test": "//tests/02_chief_worker:saver_test",
                "filter": "*",
                "points": 25,
                "needs": ["01_session", "02_chief_worker"],
            },
            {
                "name": "Saver: killed in the middle of a save",
                "test": "//tests/02_chief_worker:saver_crash_test",
                "filter": "*",
                "points": 10,
                "needs": ["01_session", "02_chief_worker"],
            },
            {
                "name": "the session creators on top",
                "test": "//tests/02_chief_worker:session_creator_test",
                "filter": "*",
                "points": 10,
                "needs": ["01_session", "02_chief_worker"],
            },
            {
                "name": "layer 03: CheckpointSaverHook",
                "test": "//tests/03_hooked/hooks:checkpoint_saver_hook_test",
                "filter": "*",
                "points": 10,
                "needs": ["01_session", "02_chief_worker", "03_hooked"],
            },
            {
                "name": "layer 06: MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 10,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
        ],
    },
    {
        "name": "03_hooked",
        "title": "HookedSession::Run",
        "page": "chapters/03_hooked/lab.md",
        "libraries": ["//src/03_hooked:hooked_session"],
        "must_fail": 32,
        "groups": [
            {
                "name": "HookedSession::Run",
                "test": "//tests/03_hooked:hooked_session_test",
                "filter": "*",
                "points": 45,
                "needs": ["01_session", "03_hooked"],
            },
            {
                "name": "the WrappedSession contract",
                "test": "//tests/03_hooked:wrapped_session_contract_test",
                "filter": "Stage03/WrappedSessionContractTest/1.*",
                "points": 15,
                "needs": ["01_session", "03_hooked"],
            },
            {
                "name": "a built-in hook through it: CheckpointSaverHook",
                "test": "//tests/03_hooked/hooks:checkpoint_saver_hook_test",
                "filter": "*",
                "points": 10,
                "needs": ["01_session", "02_chief_worker", "03_hooked"],
            },
            {
                "name": "layer 04: CoordinatedSession",
                "test": "//tests/04_coordinated:coordinated_session_test",
                "filter": "*",
                "points": 15,
                "needs": ["01_session", "03_hooked", "04_coordinated"],
            },
            {
                "name": "layer 06: MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 15,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
        ],
    },
    {
        "name": "04_coordinated",
        "title": "Coordinator and QueueRunner",
        "page": "chapters/04_coordinated/lab.md",
        "libraries": ["//src/04_coordinated:coordinator", "//src/04_coordinated:queue_runner"],
        "must_fail": 69,
        "groups": [
            {
                "name": "Coordinator: stop, first error, join",
                "test": "//tests/04_coordinated:coordinator_test",
                "filter": "*",
                "points": 40,
                "tsan": True,
                "needs": ["04_coordinated"],
            },
            {
                "name": "QueueRunner",
                "test": "//tests/04_coordinated:queue_runner_test",
                "filter": "*",
                "points": 25,
                "tsan": True,
                "needs": ["01_session", "04_coordinated"],
            },
            {
                "name": "the WrappedSession contract (CoordinatedSession)",
                "test": "//tests/04_coordinated:coordinated_session_test",
                "filter": "Stage04/*",
                "points": 10,
                "tsan": True,
                "needs": ["01_session", "03_hooked", "04_coordinated"],
            },
            {
                "name": "CoordinatedSession on top",
                "test": "//tests/04_coordinated:coordinated_session_test",
                "filter": "CoordinatedSessionTest.*",
                "points": 10,
                "tsan": True,
                "needs": ["01_session", "03_hooked", "04_coordinated"],
            },
            {
                "name": "layer 06: MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 15,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
        ],
    },
    {
        "name": "05_recoverable",
        "title": "RecoverableSession",
        "page": "chapters/05_recoverable/lab.md",
        "libraries": ["//src/05_recoverable:recoverable_session"],
        "must_fail": 71,
        "groups": [
            {
                "name": "RecoverableSession: each phase, each error",
                "test": "//tests/05_recoverable:recoverable_session_test",
                "filter": "RecoverableSessionTest.*:EachPhase/*",
                "points": 50,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                ],
            },
            {
                "name": "the WrappedSession contract",
                "test": "//tests/05_recoverable:recoverable_session_test",
                "filter": "Stage05/*",
                "points": 20,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                ],
            },
            {
                "name": "layer 06: MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 20,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
            {
                "name": "layer 06: MonitoredTrainingSession",
                "test": "//tests/06_monitored:monitored_training_session_test",
                "filter": "*",
                "points": 10,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
        ],
    },
    {
        "name": "06_monitored",
        "title": "MonitoredSession's construction and close order",
        "page": "chapters/06_monitored/lab.md",
        "libraries": ["//src/06_monitored:monitored_session"],
        "must_fail": 36,
        "groups": [
            {
                "name": "MonitoredSession",
                "test": "//tests/06_monitored:monitored_session_test",
                "filter": "*",
                "points": 60,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
            {
                "name": "MonitoredTrainingSession on top",
                "test": "//tests/06_monitored:monitored_training_session_test",
                "filter": "*",
                "points": 25,
                "tsan": True,
                "needs": [
                    "01_session",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                ],
            },
            {
                "name": "layer 07: over gRPC",
                "test": "//tests/07_distributed:monitored_training_session_over_grpc_test",
                "filter": "*",
                "points": 15,
                "tsan": True,
                "needs": [
                    "01_session",
                    "01_learning",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                    "07_distributed",
                ],
                "linkstatic": True,
            },
        ],
    },
    {
        "name": "07_distributed",
        "title": "the parameter server's VariableStore",
        "page": "chapters/07_distributed/lab.md",
        "libraries": ["//src/07_distributed:variable_store"],
        "must_fail": 11,
        "groups": [
            {
                "name": "the store on its own",
                "test": "//tests/07_distributed:variable_store_test",
                "filter": "*",
                "points": 20,
                "tsan": True,
                "needs": ["01_session", "07_distributed"],
            },
            {
                "name": "remote sessions against a ps",
                "test": "//tests/07_distributed:remote_session_test",
                "filter": "*",
                "points": 30,
                "tsan": True,
                "needs": ["01_session", "01_learning", "07_distributed"],
                "linkstatic": True,
            },
            {
                "name": "damaged messages",
                "test": "//tests/07_distributed:damaged_message_test",
                "filter": "*",
                "points": 10,
                "tsan": True,
                "needs": ["01_session", "07_distributed"],
            },
            {
                "name": "a chief that restarts",
                "test": "//tests/07_distributed:chief_restart_test",
                "filter": "*",
                "points": 20,
                "tsan": True,
                "needs": ["01_session", "02_chief_worker", "07_distributed"],
                "linkstatic": True,
            },
            {
                "name": "MonitoredTrainingSession over gRPC",
                "test": "//tests/07_distributed:monitored_training_session_over_grpc_test",
                "filter": "*",
                "points": 20,
                "tsan": True,
                "needs": [
                    "01_session",
                    "01_learning",
                    "02_chief_worker",
                    "03_hooked",
                    "04_coordinated",
                    "05_recoverable",
                    "06_monitored",
                    "07_distributed",
                ],
                "linkstatic": True,
            },
        ],
    },
]
