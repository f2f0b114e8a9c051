#!/usr/bin/env python3
"""torch_sum_reference.py OUT.csv [--from K] [--to K] [--reps R]

The CUB reference for chapter 04's sweep: torch.sum of n = 2^K float32 on the first CUDA device,
timed as the chapter times its own reductions. Writes rows `n,cub_e2e_ms,cub_event_ms`:
  cub_e2e_ms    host clock (time.perf_counter) from the call to the scalar on the host
                (torch.sum(x).item(): launch(es), kernel(s), the 4-byte copy back), median;
  cub_event_ms  torch.cuda.Event pair around torch.sum(x), median (includes its launches).
Inputs are whole numbers in [1, 8] like the chapter's; each result is checked against the exact
sum (in float64 on the GPU). Needs python3 with torch and a CUDA GPU.
"""
import argparse
import statistics
import sys
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--from", dest="first", type=int, default=10)
    parser.add_argument("--to", dest="last", type=int, default=28)
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    device = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(device), "torch", torch.__version__,
          "CUDA", torch.version.cuda)
    rows = []
    for k in range(args.first, args.last + 1):
        n = 1 << k
        x = torch.randint(1, 9, (n,), device=device, dtype=torch.int32).to(torch.float32)
        exact = float(x.double().sum().item())
        got = torch.sum(x).item()  # warm-up
        tolerance = 0.0 if exact < 2 ** 24 else 1e-6 * exact
        if abs(got - exact) > tolerance:
            sys.exit("torch.sum wrong at n=2^%d: %r vs %r" % (k, got, exact))
        host, event = [], []
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(args.reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch.sum(x).item()
            host.append((time.perf_counter() - t0) * 1e3)
            start.record()
            torch.sum(x)
            stop.record()
            stop.synchronize()
            event.append(start.elapsed_time(stop))
        rows.append((n, statistics.median(host), statistics.median(event)))
        print("n=2^%d e2e %.4f ms (%.0f GB/s), events %.4f ms" %
              (k, rows[-1][1], 4 * n / rows[-1][1] / 1e6, rows[-1][2]))
        del x
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("n,cub_e2e_ms,cub_event_ms\n")
        for n, e2e, ev in rows:
            f.write("%d,%.6f,%.6f\n" % (n, e2e, ev))


if __name__ == "__main__":
    main()
