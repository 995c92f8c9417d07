#!/usr/bin/env python3
"""Generate the synthetic mahimahi traces shipped in examples/traces/.

mahimahi's trace format (mm-link, src/frontend/link_queue.cc): one non-negative integer per
line, a millisecond timestamp at which one delivery opportunity of 1504 bytes occurs;
timestamps never decrease, equal ones are several opportunities at once, and the file repeats
with a period equal to its last timestamp. One opportunity per millisecond is therefore
1504 * 8 bit/ms = 12.032 Mbit/s.

The files are deterministic (a fixed seed, Python's Mersenne Twister, integer arithmetic for
the opportunities), so re-running this script reproduces them byte for byte:

    python3 tools/traces/generate.py            # writes examples/traces/*.trace

Traces (docs/links.md, "Trace links", describes them too):
- constant-12mbps.trace: one opportunity every millisecond for 1 s (period 1000 ms).
- step.trace: 12, then 24, then 6 Mbit/s, STEP_MS each (period 3 * STEP_MS): one
  opportunity per ms, two per ms, one every 2 ms.
- lte.trace / lte-up.trace: an LTE-like varying rate. Every SLOT_MS the rate takes a step of a
  random walk in log-rate (Gaussian steps of standard deviation SIGMA, reflected at the
  bounds), between LTE_MIN and LTE_MAX Mbit/s (downlink) and UP_MIN and UP_MAX (uplink), for
  LTE_SECONDS; within a slot, opportunities are spread evenly (a running credit of
  rate / 12.032 Mbit/s opportunities per millisecond).
"""

import math
import os
import random

OPPORTUNITY_BITS = 1504 * 8
STEP_MS = 2000
SLOT_MS = 100
SIGMA = 0.25
LTE_SECONDS = 12
LTE_MIN, LTE_MAX = 1.0, 50.0
LTE_START = 15.0
UP_MIN, UP_MAX = 2.0, 20.0
UP_START = 8.0
SEED = 11


def constant():
    return list(range(1, 1001))


def step():
    times = []
    for ms in range(1, STEP_MS + 1):  # 12 Mbit/s
        times.append(ms)
    for ms in range(STEP_MS + 1, 2 * STEP_MS + 1):  # 24 Mbit/s
        times += [ms, ms]
    for ms in range(2 * STEP_MS + 2, 3 * STEP_MS + 1, 2):  # 6 Mbit/s
        times.append(ms)
    return times


def reflect(x, low, high):
    """x folded back into [low, high] (a reflecting boundary)."""
    while x < low or x > high:
        x = 2 * low - x if x < low else 2 * high - x
    return x


def varying(rng, start_mbps, low_mbps, high_mbps, seconds):
    """A random walk in log-rate, one step per SLOT_MS, as opportunity timestamps."""
    times = []
    log_rate = math.log(start_mbps)
    low, high = math.log(low_mbps), math.log(high_mbps)
    # Credit in units of 1 / (OPPORTUNITY_BITS * 1000) opportunities, integer, so that the
    # output does not depend on floating-point summation.
    credit = 0
    for slot in range(seconds * 1000 // SLOT_MS):
        if slot > 0:
            log_rate = reflect(log_rate + rng.gauss(0.0, SIGMA), low, high)
        rate_bps = round(math.exp(log_rate) * 1e6)
        for ms in range(slot * SLOT_MS + 1, (slot + 1) * SLOT_MS + 1):
            credit += rate_bps  # bits this millisecond, times 1000
            while credit >= OPPORTUNITY_BITS * 1000:
                credit -= OPPORTUNITY_BITS * 1000
                times.append(ms)
    # The period is the last timestamp: end the file exactly at the last millisecond.
    if not times or times[-1] != seconds * 1000:
        times.append(seconds * 1000)
    return times


def write(folder, name, times):
    path = os.path.join(folder, name)
    with open(path, "w", newline="\n") as f:
        f.write("".join(f"{t}\n" for t in times))
    period = times[-1]
    mean = len(times) * OPPORTUNITY_BITS / period / 1000
    print(f"{path}: {len(times)} opportunities over {period} ms, mean {mean:.3f} Mbit/s")


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    folder = os.path.join(root, "examples", "traces")
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(SEED)
    write(folder, "constant-12mbps.trace", constant())
    write(folder, "step.trace", step())
    write(folder, "lte.trace", varying(rng, LTE_START, LTE_MIN, LTE_MAX, LTE_SECONDS))
    write(folder, "lte-up.trace", varying(rng, UP_START, UP_MIN, UP_MAX, LTE_SECONDS))


if __name__ == "__main__":
    main()
