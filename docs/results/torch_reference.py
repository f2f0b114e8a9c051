#!/usr/bin/env python3
"""torch_reference.py OUT.csv: the library figures the chapters are compared with on an NVIDIA
GPU, measured on the same machine in the same session as collect.sh's run.

  reduction  torch.sum of a float32 CUDA tensor (CUB's device reduction underneath), for
             n = 2^10 .. 2^28. Timed end to end, as chapter 04 times its own end-to-end figure:
             from before the call to the scalar on the host (.item(), which waits for the
             result and copies it back), with a host clock; and, as kernel-side time, with
             torch.cuda.Event around the call alone (launches included, copy-back excluded).
  sgemm      torch.mm of float32 matrices with TF32 off (cuBLAS SGEMM), timed with
             torch.cuda.Event, median of repetitions after a warm-up.

Rows: library,operation,size,ms,figure,unit,timing
"""
import csv
import statistics
import sys
import time

import torch


def median_ms(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def reduction_rows(writer):
    for log2n in range(10, 29):
        n = 1 << log2n
        x = torch.rand(n, device="cuda", dtype=torch.float32)
        reps = 50 if log2n < 24 else 20
        kernel_ms = median_ms(lambda: torch.sum(x), reps)
        end_to_end = []
        torch.sum(x).item()
        for _ in range(reps):
            t0 = time.perf_counter()
            torch.sum(x).item()
            end_to_end.append((time.perf_counter() - t0) * 1e3)
        e2e_ms = statistics.median(end_to_end)
        gbytes = n * 4 / 1e9
        writer.writerow(["cub", "torch.sum", n, f"{kernel_ms:.6f}", f"{gbytes / (kernel_ms / 1e3):.3f}",
                         "GB/s", "cuda_events"])
        writer.writerow(["cub", "torch.sum", n, f"{e2e_ms:.6f}", f"{gbytes / (e2e_ms / 1e3):.3f}",
                         "GB/s", "end_to_end"])
        del x


def sgemm_rows(writer):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    shapes = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (4097, 4097, 4097),
              (8192, 8192, 8192), (8192, 8192, 1024)]
    for m, n, k in shapes:
        a = torch.rand(m, k, device="cuda", dtype=torch.float32)
        b = torch.rand(k, n, device="cuda", dtype=torch.float32)
        ms = median_ms(lambda: torch.mm(a, b), 10 if m * n * k < 2**36 else 5)
        writer.writerow(["cublas", "torch.mm", f"{m}x{n}x{k}", f"{ms:.6f}",
                         f"{2.0 * m * n * k / (ms * 1e6):.1f}", "GFLOP/s", "cuda_events"])
        del a, b


def main():
    if len(sys.argv) != 2:
        print("usage: torch_reference.py OUT.csv", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_reference.py: no CUDA device", file=sys.stderr)
        return 77
    with open(sys.argv[1], "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["library", "operation", "size", "ms", "figure", "unit", "timing"])
        writer.writerow(["device", torch.cuda.get_device_name(0), "", "", "", "",
                         f"torch {torch.__version__}, CUDA {torch.version.cuda}"])
        reduction_rows(writer)
        sgemm_rows(writer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
