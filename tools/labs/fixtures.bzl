"""The labs' fixtures: wrong solutions that must lose points (tools/labs/fixtures.py says
what a fixture is; tools/labs/fixtures/LAB/NAME.patch holds each one, with what it does
wrong and the test cases that catch it).

One line per fixture, read by Bazel and by Python (keep it plain data, one dict a line):
the lab, the fixture's name (its patch's file name), the lab library whose source it patches
and that source. mts_lab_library (tools/labs/lab.bzl) builds, for each fixture of its
library, the library again from the patched source, as a shared object that
//tools/labs:fixtures_test puts in place of the reference library under the graded tests.
A student copy (tools/export_student_copy.sh --labs) drops the lines of its stubbed labs.
"""

FIXTURES = [
    {"lab": "01_session", "name": "fed_tensor_does_not_cut", "library": "//src/01_session:session", "src": "execution_plan.cc"},
    {"lab": "01_session", "name": "control_inputs_skipped", "library": "//src/01_session:session", "src": "execution_plan.cc"},
    {"lab": "01_session", "name": "ops_in_walk_order", "library": "//src/01_session:session", "src": "execution_plan.cc"},
    {"lab": "01_session", "name": "fetched_values_released", "library": "//src/01_session:session", "src": "execution_plan.cc"},
    {"lab": "01_session", "name": "metadata_not_reset", "library": "//src/01_session:session", "src": "session.cc"},
    {"lab": "01_session", "name": "fetched_variable_unchecked", "library": "//src/01_session:session", "src": "session.cc"},
    {"lab": "01_session", "name": "kernel_error_unnamed", "library": "//src/01_session:session", "src": "session.cc"},
    {"lab": "01_session", "name": "closed_check_after_graph_check", "library": "//src/01_session:session", "src": "session.cc"},
    {"lab": "01_learning", "name": "last_contribution_wins", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "01_learning", "name": "walk_in_creation_order", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "01_learning", "name": "grad_ys_ignored", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "01_learning", "name": "missing_gradient_stops_quietly", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "01_learning", "name": "no_grad_scope_per_op", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "01_learning", "name": "gradient_looked_up_for_xs_op", "library": "//src/01_session/learning:gradients", "src": "gradients.cc"},
    {"lab": "02_chief_worker", "name": "init_after_restore", "library": "//src/02_chief_worker:session_manager", "src": "session_manager.cc"},
    {"lab": "02_chief_worker", "name": "local_init_before_init", "library": "//src/02_chief_worker:session_manager", "src": "session_manager.cc"},
    {"lab": "02_chief_worker", "name": "recover_without_local_init", "library": "//src/02_chief_worker:session_manager", "src": "session_manager.cc"},
    {"lab": "02_chief_worker", "name": "worker_gives_up_one_wait_early", "library": "//src/02_chief_worker:session_manager", "src": "session_manager.cc"},
    {"lab": "02_chief_worker", "name": "one_read_per_variable", "library": "//src/02_chief_worker:saver", "src": "saver.cc"},
    {"lab": "02_chief_worker", "name": "state_before_checkpoint", "library": "//src/02_chief_worker:saver", "src": "saver.cc"},
    {"lab": "02_chief_worker", "name": "delete_before_state", "library": "//src/02_chief_worker:saver", "src": "saver.cc"},
    {"lab": "03_hooked", "name": "results_by_hook", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "caller_conflict_per_hook", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "conflict_only_if_values_differ", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "two_hooks_conflict_after_all", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "stop_kept_when_after_run_throws", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "hook_options_dropped", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "context_session_is_hooked", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "03_hooked", "name": "no_stop_check_without_hooks", "library": "//src/03_hooked:hooked_session", "src": "hooked_session.cc"},
    {"lab": "04_coordinated", "name": "should_stop_unlocked", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc", "race": True},
    {"lab": "04_coordinated", "name": "request_stop_unlocked", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc", "race": True},
    {"lab": "04_coordinated", "name": "later_error_replaces_first", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc"},
    {"lab": "04_coordinated", "name": "clean_stop_is_an_error", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc"},
    {"lab": "04_coordinated", "name": "error_after_join_lost", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc"},
    {"lab": "04_coordinated", "name": "stragglers_before_error", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc"},
    {"lab": "04_coordinated", "name": "join_forgets_registered_threads", "library": "//src/04_coordinated:coordinator", "src": "coordinator.cc"},
    {"lab": "05_recoverable", "name": "every_error_recovered", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "first_wait_uncapped", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "backoff_not_doubled", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "one_attempt_too_many", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "step_fn_on_the_first_stack", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "recoveries_not_counted", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "should_stop_preemption_escapes", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "05_recoverable", "name": "give_up_error_bare", "library": "//src/05_recoverable:recoverable_session", "src": "recoverable_session.cc"},
    {"lab": "06_monitored", "name": "close_before_end", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "end_stops_at_first_error", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "begin_after_creation", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "graph_left_finalized", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "open_after_a_failed_close", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "end_error_hides_close_error", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "singular_session_recovers", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "06_monitored", "name": "end_called_after_an_error", "library": "//src/06_monitored:monitored_session", "src": "monitored_session.cc"},
    {"lab": "07_distributed", "name": "read_unlocked", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc", "race": True},
    {"lab": "07_distributed", "name": "read_ignores_incarnation", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
    {"lab": "07_distributed", "name": "redeclaration_unchecked", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
    {"lab": "07_distributed", "name": "cache_key_without_variables", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
    {"lab": "07_distributed", "name": "no_scratch_graph", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
    {"lab": "07_distributed", "name": "unset_read_is_an_error", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
    {"lab": "07_distributed", "name": "update_error_unnamed", "library": "//src/07_distributed:variable_store", "src": "variable_store.cc"},
]
