#!/bin/sh
# oclgrind_run.sh PROGRAM [ARGS...]
# Runs PROGRAM under Oclgrind, whose device limits the environment sets (OCLGRIND_GLOBAL_MEM_SIZE,
# OCLGRIND_MAX_WGSIZE, ...), so that a test can show a program on a device smaller than any
# here. Exit 77 (skip) where Oclgrind is not installed.
command -v oclgrind >/dev/null 2>&1 || { echo "oclgrind is not installed: skipping" >&2; exit 77; }
exec oclgrind "$@"
