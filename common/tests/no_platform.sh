#!/bin/sh
# no_platform.sh EMPTY_DIR [--probe ARG] PROGRAM: with OCL_ICD_VENDORS pointing at an empty
# directory the ICD loader finds no driver, and the program must exit 77 with the fix-it hint. A
# loader that ignores OCL_ICD_VENDORS (old Khronos loaders, such as CUDA's bundled libOpenCL)
# still finds the installed drivers: then this machine cannot simulate "no platform" and the
# test is skipped. The probe runs PROGRAM with --devices (with --probe, with ARG instead, for a
# program without --devices) and counts its success as drivers found.
dir=$1
shift
probe=--devices
if [ "$1" = --probe ]; then probe=$2; shift 2; fi
if OCL_ICD_VENDORS=$dir "$@" $probe >/dev/null 2>&1; then
    echo "this ICD loader ignores OCL_ICD_VENDORS (it still lists the installed platforms):"
    echo "cannot simulate a machine without OpenCL here; skipping"
    exit 77
fi
exec sh "$(dirname "$0")/expect.sh" 77 "pocl-opencl-icd.*/etc/OpenCL/vendors" \
    env OCL_ICD_VENDORS="$dir" "$@"
