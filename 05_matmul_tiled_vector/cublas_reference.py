#!/usr/bin/env python3
"""cublas_reference.py RESULTS.csv DEVICE SHAPE [SHAPE...]

The cuBLAS reference for chapter 05 on an NVIDIA GPU: torch.mm of float32 matrices with TF32
off (torch.backends.cuda.matmul.allow_tf32 = False, so cuBLAS runs plain FP32 SGEMM), timed
with a torch.cuda.Event pair around each call: the median of repetitions after a warm-up.
Appends one row per SHAPE (MxNxK) to RESULTS.csv in the chapter's --csv format, variant
`cublas`, so docs/results/render.py shows it beside the steps measured in the same session.

Its check is the chapter's: inputs uniform in [-1, 1), and every element of C must be within
gamma(K) * (|A| |B|)_ij of the float64 product (both computed on the GPU in float64); a
result outside that bound is FAIL. It catches a wrong product, not TF32: the bound grows with K,
TF32's error only with about sqrt(K), so TF32 passes it at most sizes. allow_tf32 = False is
what keeps cuBLAS to FP32.
"""
import statistics
import sys

import torch


def main():
    if len(sys.argv) < 4:
        print("usage: cublas_reference.py RESULTS.csv DEVICE SHAPE [SHAPE...]", file=sys.stderr)
        return 2
    out, device_name, shapes = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not torch.cuda.is_available():
        print("cublas_reference.py: no CUDA device", file=sys.stderr)
        return 77
    torch.backends.cuda.matmul.allow_tf32 = False
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__, "CUDA",
          torch.version.cuda)
    generator = torch.Generator(device="cuda").manual_seed(20261124)
    rows = []
    for shape in shapes:
        m, n, k = (int(v) for v in shape.split("x"))
        a = torch.rand(m, k, device="cuda", generator=generator) * 2 - 1
        b = torch.rand(k, n, device="cuda", generator=generator) * 2 - 1
        c = torch.mm(a, b)
        torch.cuda.synchronize()
        times = []
        for _ in range(10 if m * n * k < 2**36 else 5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.mm(a, b, out=c)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        ms = statistics.median(times)
        exact = torch.mm(a.double(), b.double())
        bound = torch.mm(a.double().abs(), b.double().abs())
        u = 2.0**-24
        gamma = k * u / (1 - k * u)
        ok = bool(((c.double() - exact).abs() <= gamma * bound + 1e-300).all())
        gflops = 2.0 * m * n * k / (ms * 1e6)
        print(f"cublas {shape}: {ms:.4f} ms, {gflops:.1f} GFLOP/s, check {'PASS' if ok else 'FAIL'}")
        rows.append(f"05_matmul_tiled_vector,cublas,{device_name},{shape},{ms:.6f},{gflops:.6g},"
                    f"GFLOP/s,{'PASS' if ok else 'FAIL'},\n")
        del a, b, c, exact, bound
        torch.cuda.empty_cache()
    with open(out, "a", encoding="utf-8") as f:
        f.writelines(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
