#!/usr/bin/python3
"""The labs' scorecard (run through tools/grade.sh from the top of the tree).

    tools/grade.sh [LAB...] [--starter] [--results_dir DIR]

Builds each lab's graded tests with Bazel, runs every test group, and prints, as xv6's
`make grade` does, one line per group and a score per lab, then the total:

    == lab 03_hooked: HookedSession::Run (chapters/03_hooked/lab.md)
    HookedSession::Run ........................... OK    12/12 cases  50/50
    ...
    lab 03_hooked: 100/100

Writes DIR/junit.xml (one testsuite per lab, one testcase per group; GitHub Classroom and
most CI read it) and DIR/results.json (Gradescope's autograder format: score, max_score
and one entry per group). DIR defaults to grade_results/ at the top of the tree.

--starter grades each lab's starter instead of the code in the tree: it builds with
`--define=lab=NAME`, one lab at a time, and every lab should score 0. In a student copy
(tools/export_student_copy.sh --labs) the tree already holds the starters, and plain
`tools/grade.sh` grades the student's work.
"""

import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402


def build(targets, define):
    command = ["bazel", "build", "--noshow_progress", "--keep_going"]
    if define:
        command.append("--define=lab=" + define)
    print("$ " + " ".join(command + ["<%d test targets>" % len(targets)]), flush=True)
    done = subprocess.run(command + targets, check=False, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        errors = [l for l in done.stderr.splitlines() if "error" in l.lower()]
        print("grade: the build failed; the groups whose test did not build score 0")
        for line in errors[:20]:
            print("  " + line)
    return done.returncode == 0


def grade_lab(lab, bin_dir):
    print("\n== lab %s: %s (%s)" % (lab["name"], lab["title"], lab["page"]), flush=True)
    results = []
    for group in lab["groups"]:
        binary = os.path.join(bin_dir, labs_lib.binary_path(group["test"]))
        if os.path.exists(binary):
            result = labs_lib.run_group(group, binary, binary + ".runfiles")
        else:
            result = labs_lib.GroupResult(group)
            result.note = "not built"
        status = "OK" if result.total and not result.failed else "FAIL"
        dots = "." * max(3, 56 - len(group["name"]))
        print("%s %s %-4s %3d/%-3d cases  %3d/%d%s" % (
            group["name"], dots, status, len(result.passed), result.total, result.score(),
            group["points"], "  (" + result.note + ")" if result.note else ""), flush=True)
        if result.failed:
            first = result.failed[0]
            print("    first failure: %s: %s" % (first, result.messages.get(first, "")[:160]))
        results.append(result)
    score = sum(r.score() for r in results)
    max_score = sum(g["points"] for g in lab["groups"])
    print("lab %s: %d/%d" % (lab["name"], score, max_score))
    return results, score, max_score


def write_reports(graded, results_dir):
    os.makedirs(results_dir, exist_ok=True)
    suites = ET.Element("testsuites")
    tests = []
    for lab, results, score, max_score in graded:
        suite = ET.SubElement(suites, "testsuite", name="lab " + lab["name"],
                              tests=str(len(results)),
                              failures=str(sum(1 for r in results if r.failed or not r.total)))
        for r in results:
            case = ET.SubElement(suite, "testcase", classname="lab " + lab["name"],
                                 name=r.group["name"])
            ET.SubElement(case, "properties")
            case.find("properties").append(ET.Element(
                "property", name="points", value="%d/%d" % (r.score(), r.group["points"])))
            if r.failed or not r.total:
                failure = ET.SubElement(case, "failure", message="%d of %d cases failed" % (
                    len(r.failed), r.total))
                failure.text = "\n".join("%s: %s" % (c, r.messages.get(c, ""))
                                         for c in r.failed) or r.note
            output = "%d/%d cases passed (%s, filter %s)" % (
                len(r.passed), r.total, r.group["test"], r.group["filter"])
            if r.failed:
                output += "\nfailed:\n" + "\n".join(
                    "  %s: %s" % (c, r.messages.get(c, "")) for c in r.failed)
            tests.append({
                "name": "lab %s: %s" % (lab["name"], r.group["name"]),
                "score": r.score(),
                "max_score": r.group["points"],
                "status": "passed" if r.total and not r.failed else "failed",
                "output": output,
            })
    ET.ElementTree(suites).write(os.path.join(results_dir, "junit.xml"), encoding="utf-8",
                                 xml_declaration=True)
    report = {
        "score": sum(g[2] for g in graded),
        "max_score": sum(g[3] for g in graded),
        "tests": tests,
    }
    with open(os.path.join(results_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description="Grades the labs (tools/grade.sh).")
    parser.add_argument("labs", nargs="*", help="labs to grade (default: all)")
    parser.add_argument("--starter", action="store_true",
                        help="grade each lab's starter (--define=lab=NAME), not the tree")
    parser.add_argument("--results_dir", default="grade_results",
                        help="where junit.xml and results.json go (default grade_results)")
    args = parser.parse_args()
    if not os.path.isfile("WORKSPACE"):
        print("grade: run me from the top of the tree (tools/grade.sh does)")
        return 2
    table = labs_lib.load_labs()
    names = [lab["name"] for lab in table]
    unknown = [n for n in args.labs if n not in names]
    if unknown:
        print("grade: no lab named %s; the labs are: %s" % (", ".join(unknown), " ".join(names)))
        return 2
    chosen = [lab for lab in table if not args.labs or lab["name"] in args.labs]
    bin_dir = "bazel-bin"

    graded = []
    if args.starter:
        for lab in chosen:
            build(sorted({g["test"] for g in lab["groups"]}), lab["name"])
            results, score, max_score = grade_lab(lab, bin_dir)
            graded.append((lab, results, score, max_score))
    else:
        build(sorted({g["test"] for lab in chosen for g in lab["groups"]}), None)
        for lab in chosen:
            results, score, max_score = grade_lab(lab, bin_dir)
            graded.append((lab, results, score, max_score))

    print("\n== score")
    for lab, _, score, max_score in graded:
        print("lab %-16s %3d/%d" % (lab["name"], score, max_score))
    total = sum(g[2] for g in graded)
    total_max = sum(g[3] for g in graded)
    print("total %d/%d" % (total, total_max))
    write_reports(graded, args.results_dir)
    print("reports: %s/junit.xml, %s/results.json" % (args.results_dir, args.results_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
