#!/usr/bin/env python3
"""Run examples/aqm/<queue>.toml in cclab and the same scenario in ns-3 (aqm-dumbbell), for
several seeds, and print one Markdown table of the steady-window results per discipline.

    python3 tools/ns3/compare.py --ns3 /tmp/aqm-dumbbell --cclab target/release/cclab \
        [--queues droptail,red] [--seeds 5] [--no-delayed-ack] [--ns3-arg=--params=ns3]
        [--cclab-set flows.1.params.reno_friendly=false]

Each cell is the mean over the seeds, ± the sample standard deviation when there are several
(cclab: `--set seed=N`; ns-3: `--RngRun=N`). Used to write docs/validation-ns3.md; see
tools/ns3/README.md for the ns-3 program's build and outputs.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NS3_QUEUE = {"droptail": "pfifo"}  # cclab name -> aqm-dumbbell's --queue


def timed(cmd, **kwargs):
    """Runs cmd; returns its result and the child's CPU seconds (user + system), the fairer
    measure on a shared machine than wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, check=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu


def run_cclab(cclab, queue, seed, delayed_ack, out_dir, extra):
    scenario = os.path.join(ROOT, "examples", "aqm", f"{queue}.toml")
    out = os.path.join(out_dir, f"{queue}-{seed}")
    if not os.path.exists(scenario):
        raise subprocess.CalledProcessError(2, scenario)
    cmd = [cclab, "run", scenario, "--out", out, "--quiet", "--set", f"seed={seed}"]
    if not delayed_ack:
        cmd += ["--set", "flows.0.delayed_ack=false", "--set", "flows.1.delayed_ack=false"]
    for setting in extra:
        cmd += ["--set", setting]
    _, cpu_s = timed(cmd, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    link = s["links"][0]
    flows = s["flows"]
    return {
        "goodput_mbps": s["aggregate"]["total_goodput_steady_bps"] / 1e6,
        "reno_mbps": flows[0]["goodput_steady_bps"] / 1e6,
        "cubic_mbps": flows[1]["goodput_steady_bps"] / 1e6,
        "utilization": link["utilization_steady"],
        # Mean queue delay: the link's own statistic once it exists, else none.
        "delay_ms": queue_delay_ms(link),
        "queue_pkts": link["mean_queue_steady_pkts"],
        "drops": link["drops_steady"],
        "wall_s": s["run"]["wall_s"],
        "cpu_s": cpu_s,
    }


def queue_delay_ms(link):
    for key in ("queue_delay_steady_ms", "queue_delay_ms"):
        value = link.get(key)
        if isinstance(value, dict):
            return value.get("mean")
        if isinstance(value, (int, float)):
            return value
    return None


def run_ns3(binary, queue, seed, delayed_ack, extra):
    cmd = [binary, f"--queue={NS3_QUEUE.get(queue, queue)}", f"--RngRun={seed}"]
    cmd += [f"--delayedAck={'true' if delayed_ack else 'false'}"] + extra
    done, cpu_s = timed(cmd, capture_output=True, text=True)
    r = json.loads(done.stdout)
    return {
        "goodput_mbps": r["goodput_bps"] / 1e6,
        "reno_mbps": r["flows"][0]["goodput_bps"] / 1e6,
        "cubic_mbps": r["flows"][1]["goodput_bps"] / 1e6,
        "utilization": r["utilization"],
        "delay_ms": r["mean_queue_delay_ms"],
        "queue_pkts": r["mean_queue_pkts"],
        "drops": r["drops"],
        "wall_s": r["wall_s"],
        "cpu_s": cpu_s,
    }


COLUMNS = [
    ("goodput_mbps", "goodput Mbit/s", 2),
    ("reno_mbps", "Reno", 2),
    ("cubic_mbps", "CUBIC", 2),
    ("utilization", "utilization", 3),
    ("delay_ms", "queue delay ms", 1),
    ("queue_pkts", "queue pkts", 1),
    ("drops", "drops", 0),
    ("wall_s", "run wall s", 2),
    ("cpu_s", "process CPU s", 2),
]


def cell(values, digits):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    mean = statistics.mean(values)
    if len(values) == 1:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ns3", required=True, help="the compiled aqm-dumbbell")
    parser.add_argument("--cclab", required=True, help="the cclab binary (release build)")
    parser.add_argument("--queues", default="droptail,red,codel,fq_codel,pie")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--no-delayed-ack", action="store_true")
    parser.add_argument("--ns3-arg", action="append", default=[], help="extra ns-3 argument")
    parser.add_argument("--cclab-set", action="append", default=[], help="extra cclab --set")
    args = parser.parse_args()
    delayed_ack = not args.no_delayed_ack

    print("| queue | simulator | " + " | ".join(title for _, title, _ in COLUMNS) + " |")
    print("| --- | --- |" + " --- |" * len(COLUMNS))
    with tempfile.TemporaryDirectory() as out_dir:
        for queue in args.queues.split(","):
            seeds = range(1, args.seeds + 1)
            try:
                cclab_runs = [
                    run_cclab(args.cclab, queue, s, delayed_ack, out_dir, args.cclab_set)
                    for s in seeds
                ]
            except subprocess.CalledProcessError:
                # The discipline is not built in this cclab yet (`cclab check` refuses it).
                cclab_runs = None
            rows = {
                "cclab": cclab_runs,
                "ns-3": [run_ns3(args.ns3, queue, s, delayed_ack, args.ns3_arg) for s in seeds],
            }
            for simulator, runs in rows.items():
                if runs is None:
                    cells = ["not built"] + ["—"] * (len(COLUMNS) - 1)
                else:
                    cells = [cell([r[key] for r in runs], digits) for key, _, digits in COLUMNS]
                print(f"| {queue} | {simulator} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
