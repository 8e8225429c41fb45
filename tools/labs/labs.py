"""What grade.py and labs_test.py share: the lab table and running one test group.

A group is one gtest binary and a gtest filter. Its cases are those the binary lists under
the filter; a case passes when the binary's XML report says it ran without a failure. A
case the report does not mention (the binary crashed, hung past the timeout or aborted on
an uncaught exception) counts as failed, so a starter that kills its test binary still
scores 0 for that group, never an error of the grader.
"""

import ast
import os
import signal
import subprocess
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_SECS = 300  # One group's run; a layer that hangs a test is cut off here.


def load_labs(path=os.path.join(HERE, "labs.bzl")):
    """LABS from labs.bzl, read as a Python literal."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["LABS"]:
            return ast.literal_eval(node.value)
    raise ValueError("%s has no LABS" % path)


def binary_path(label):
    """//tests/03_hooked:hooked_session_test -> tests/03_hooked/hooked_session_test."""
    package, name = label[2:].split(":")
    return os.path.join(package, name)


def library_starter_path(label):
    """//src/03_hooked:hooked_session -> src/03_hooked/libhooked_session_lab_starter.so."""
    package, name = label[2:].split(":")
    return os.path.join(package, "lib%s_lab_starter.so" % name)


class GroupResult:
    """The cases of one group: passed, failed (with the first failure's message)."""

    def __init__(self, group):
        self.group = group
        self.passed = []
        self.failed = []
        self.messages = {}  # failed case -> first line of its failure
        self.note = ""  # how the run ended when it did not end by itself

    @property
    def total(self):
        return len(self.passed) + len(self.failed)

    def score(self):
        """The group's points when every one of its cases passes, else 0 (as each test of
        xv6's `make grade`): a layer that is right most of the time is not done, and a
        starter whose untouched paths happen to pass a few cases scores nothing."""
        return self.group["points"] if self.total and not self.failed else 0


def _list_cases(binary, gtest_filter, env):
    out = subprocess.run([binary, "--gtest_list_tests", "--gtest_filter=" + gtest_filter],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, timeout=120, check=False).stdout
    cases, suite = [], None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
        elif suite is not None:
            cases.append(suite + name)
    return cases


def _run(binary, args, env, cwd, timeout):
    """Runs the binary in its own process group; (returncode or None on timeout, output)."""
    proc = subprocess.Popen([binary] + args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out


def _cases_from_console(out):
    """({case: None if it passed, else its first failure line}, the case that was running
    when the output ends) from gtest's console output."""
    ran, running, failure = {}, None, None
    for line in out.splitlines():
        if line.startswith("[ RUN      ] "):
            running, failure = line[13:].strip(), None
        elif running and line.startswith(("[       OK ] ", "[  FAILED  ] ")):
            ran[running] = None if line.startswith("[       OK") else (failure or "failed")
            running = None
        elif running and failure is None and line.strip() and not line.endswith("Failure"):
            failure = line.strip()
    return ran, running


def run_group(group, binary, srcdir, preload=None, timeout=TIMEOUT_SECS):
    """Runs one group's binary under its filter. `srcdir` is the runfiles root the test
    finds its data under (TEST_SRCDIR); `preload` a list of shared objects to load first."""
    result = GroupResult(group)
    binary = os.path.abspath(binary)
    srcdir = os.path.abspath(srcdir)
    # As under `bazel test`: the working directory is the workspace in the runfiles.
    cwd = os.path.join(srcdir, "mts") if os.path.isdir(os.path.join(srcdir, "mts")) else None
    with tempfile.TemporaryDirectory(prefix="lab_group_") as tmp:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT_FILE", "LD_PRELOAD"))}
        env.update({"TEST_SRCDIR": srcdir, "TEST_WORKSPACE": "mts", "TEST_TMPDIR": tmp,
                    "HOME": tmp})
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        cases = _list_cases(binary, group["filter"], env)
        report = os.path.join(tmp, "report.xml")
        code, out = _run(binary, ["--gtest_filter=" + group["filter"],
                                  "--gtest_output=xml:" + report], env, cwd or tmp, timeout)
        ran = {}
        if os.path.exists(report):
            try:
                for case in ET.parse(report).iter("testcase"):
                    name = case.get("classname", "") + "." + case.get("name", "")
                    failure = case.find("failure")
                    if failure is None:
                        failure = case.find("error")
                    if failure is not None:
                        # "file:line" (or "unknown file") then what went wrong.
                        ran[name] = ": ".join(
                            (failure.get("message") or "failed").splitlines()[:2])
                    elif case.get("result") == "skipped" or case.get("status") == "notrun":
                        ran[name] = "skipped"
                    else:
                        ran[name] = None
            except ET.ParseError:
                pass
        dying = None
        if not ran and (code is None or code < 0):
            # Died before writing its report (a starter's exception escaping a thread ends
            # in std::terminate): what the console says instead, and which case was running.
            ran, dying = _cases_from_console(out)
        if code is None:
            result.note = "timed out after %d s" % timeout
        elif code < 0:
            result.note = "killed by signal %d" % -code
        if dying:
            what = [l for l in out.splitlines() if l.strip().startswith("what():")]
            result.note += " in %s%s" % (dying, (": " + what[-1].strip()) if what else "")
            ran[dying] = result.note
        last_line = next((l for l in reversed(out.splitlines()) if l.strip()), "")
        if code is not None and code > 0 and not ran:
            result.note = "exited %d without a report: %s" % (code, last_line[-300:])
        for case in cases:
            if case in ran and ran[case] is None:
                result.passed.append(case)
            else:
                result.failed.append(case)
                result.messages[case] = ran.get(case) or result.note or last_line
        if not cases:
            result.note = result.note or "no test case matched " + group["filter"]
    return result
