#!/usr/bin/env python3
"""mutate.py: runs a chapter on a deliberately broken copy of one of its kernels.

    mutate.py [--oracle check|oclgrind] --kernels DIR [--kernels DIR2] --file F.cl
              --find TEXT --replace TEXT [--occurrence N] -- PROGRAM [ARGS...]

Copies every .cl file of each DIR into a temporary folder (the program reads all its kernel
files from there: a solution program's include its chapter's), replaces the N-th (default: the only)
occurrence of TEXT in F.cl by the replacement, and runs PROGRAM with OCLT_KERNEL_DIR pointing
there, so the program loads the mutant instead of its embedded kernels.

The mutant must be caught:
  --oracle check     (default) the program exits 1 and prints a FAIL line: its CPU check saw it.
  --oracle oclgrind  under Oclgrind, a data race or another error is reported, or the check
                     fails (for mutants such as a removed barrier that a CPU device may hide).
Exit status: 0 caught; 1 survived (the mutant passed), or the mutant is not a valid one (TEXT
not found, found several times without --occurrence, or the mutant does not build: a mutant
must compile, or it tests the compiler instead of the check); 77 when oclgrind is needed and
missing, when the program skips the mutant's variant on this device, or when the OpenCL
implementation aborts on an assertion of its own before the check runs (the mutant cannot be
judged there).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", choices=("check", "oclgrind"), default="check")
    parser.add_argument("--kernels", required=True, action="append")
    parser.add_argument("--file", required=True)
    parser.add_argument("--find", required=True)
    parser.add_argument("--replace", required=True)
    parser.add_argument("--occurrence", type=int, default=0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("mutate.py: no program given", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="oclt-mutant-") as folder:
        for kernels in args.kernels:
            for name in os.listdir(kernels):
                if name.endswith(".cl"):
                    shutil.copy(os.path.join(kernels, name), folder)
        path = os.path.join(folder, args.file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        count = text.count(args.find)
        if count == 0:
            print(f"INVALID MUTANT: {args.find!r} is not in {args.file}")
            return 1
        if args.occurrence == 0 and count > 1:
            print(f"INVALID MUTANT: {args.find!r} is in {args.file} {count} times: "
                  "give --occurrence")
            return 1
        nth = max(args.occurrence, 1)
        if nth > count:
            print(f"INVALID MUTANT: {args.find!r} is in {args.file} only {count} times")
            return 1
        start = -1
        for _ in range(nth):
            start = text.index(args.find, start + 1)
        line = text.count("\n", 0, start) + 1
        text = text[:start] + args.replace + text[start + len(args.find):]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"mutant: {args.file}:{line}: {args.find!r} -> {args.replace!r}")

        env = dict(os.environ, OCLT_KERNEL_DIR=folder)
        log = os.path.join(folder, "oclgrind.log")
        if args.oracle == "oclgrind":
            if shutil.which("oclgrind") is None:
                print("oclgrind is not installed: skipping")
                return 77
            command = ["oclgrind", "--data-races", "--uninitialized", "--max-errors", "5",
                       "--log", log] + command
        try:
            run = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, errors="replace")
        except OSError as error:
            print(f"cannot run {command[0]}: {error}")
            return 1
        output = run.stdout
        print(output[-3000:])
        if "building " in output and " failed:" in output:
            print("INVALID MUTANT: it does not build")
            return 1
        # A result line's status column: " FAIL" as a word (not CL_BUILD_PROGRAM_FAILURE, which
        # a chapter may print while it is working as intended).
        check_failed = run.returncode == 1 and re.search(r"\sFAIL(\s|$)", output) is not None
        reported = args.oracle == "oclgrind" and os.path.exists(log) and os.path.getsize(log) > 0
        if reported:
            with open(log, encoding="utf-8", errors="replace") as f:
                print("---- oclgrind reported:\n" + f.read()[:2000])
        if check_failed or reported:
            print("CAUGHT: the mutant was detected")
            return 0
        if run.returncode < 0 and "Assertion" in output:
            # The OpenCL implementation itself aborted (an assertion in its compiler, as PoCL
            # 5.0's on whole_tiles_no_edges): the check never ran, so nothing was shown either way.
            print(f"SKIPPED: the OpenCL implementation aborted (signal {-run.returncode}) before"
                  " the check ran; run this mutant on another implementation")
            return 77
        if args.oracle == "check" and run.returncode == 77:
            # The variant is not offered on this device (its reason is printed above): the
            # mutant cannot be judged here, which is a SKIP, never a PASS.
            print("SKIPPED: the program skipped the mutant's variant on this device")
            return 77
        print(f"SURVIVED: the mutant ran with exit status {run.returncode} and was not detected")
        return 1


if __name__ == "__main__":
    sys.exit(main())
