//! The report's setup (what the paper says, what we chose where it is silent, how each
//! metric is defined against the paper's) and its closing discussion.

use super::super::{Report, Studies};
use super::MODULES;

pub fn write(data: &Studies, report: &mut Report) {
    let quick = if data.quick() {
        " (the quick form runs 4 s, the convergence studies 6 s with the joiner at 2 s, one replicate, five modules and thinner grids)"
    } else {
        ""
    };
    report.text(format!(
        "## What the paper did, and what we could read of it

Only the paper's abstract could be read (seed-spec §4.2). It reports measurements of goodput, RTT, retransmissions, friendliness, fairness, convergence time and stability of \"the most widely used\" Linux congestion-control modules over wired LAN and WAN paths and over 2.4 GHz and 5 GHz Wi-Fi, on a testbed of real Linux hosts; and simulator studies of transmission cost, a congested reverse path and the bottleneck queue size. It names BBR, CUBIC, Westwood+ and Veno. Link rates, RTT and loss grids, buffer sizes, durations, run counts and the metrics' definitions are not in the abstract, so every one of them below is our choice, with the reason.

## Setup (our reconstruction)

Modules: the {n} of Linux's set that seed-spec §4.2 lists as the candidates, {modules} (Westwood+ is cclab's `westwood`). Each runs with the defaults of `cclab algorithms` (Linux's module defaults).

| study | what runs | paths | duration | replicates |
| --- | --- | --- | --- | --- |
| single-wired, single-wifi | one bulk flow alone | LAN, WAN; Wi-Fi 2.4 and 5 GHz | 30 s, steady from 5 s | 1 wired (deterministic), 2 Wi-Fi |
| single-wifi-shallow | as single-wifi with 100-packet queues at the access point and the station: the alternative reconstruction of the Wi-Fi path (discussion) | Wi-Fi 2.4 and 5 GHz | the same | 2 |
| friendliness-wired, -wifi | the module (x1) and CUBIC (x2), both from 0 s | the same | 30 s, steady from 5 s | the same |
| convergence-wired, -wifi | two flows of the module, the second from 10 s + U(0, 1 s) | the same | 40 s, steady from 20 s | the same |
| cost | one bulk flow; base RTT 10, 50, 100, 200 ms × random loss 0, 0.01, 0.1, 1 % (seed-spec's grid); BBR, CUBIC, Reno | 100 Mbit/s dumbbell, 1 BDP | 30 s | 3 |
| reverse | one forward flow of each module; 0, 1 or 4 CUBIC bulk flows the other way | 100 Mbit/s each way, 40 ms base RTT, 1 BDP each way | 30 s, steady from 5 s | 1 |
| queue | one bulk flow; drop-tail buffer 5, 10, 20, 50, 100, 200, 500, 1000 packets | 100 Mbit/s, base RTT 10 and 100 ms | 30 s, steady from 5 s | 1 |

The testbed paths (simulated; see below):

| path | bottleneck | base RTT | queue | why |
| --- | --- | --- | --- | --- |
| LAN | 1 Gbit/s wire, 0.5 ms one way | 1 ms | 1000 packets, drop-tail | a gigabit switched LAN's sub-millisecond RTT; 1000 packets is Linux's default `txqueuelen`, the queue a Linux host or router in the path has |
| WAN | 100 Mbit/s wire, 25 ms one way | 50 ms | 1 BDP (417 packets) | a continental path; seed-spec's 100 Mbit/s dumbbell |
| Wi-Fi 2.4 GHz | `kind = \"wifi\"`, preset `wifi-2.4ghz` (802.11n, 2×2, MCS 15, 144.4 Mbit/s PHY), 1 ms wired behind the AP | about 3 ms | 1000 packets each direction | one station downloading from a server behind its access point; the presets and their sources are in docs/links.md |
| Wi-Fi 5 GHz | preset `wifi-5ghz` (802.11ac, 2×2, 80 MHz, VHT-MCS 9, 866.7 Mbit/s PHY), otherwise the same | about 3 ms | the same | the same |

Every flow carries 1448-byte segments in 1500-byte packets (52 header bytes with timestamps), starts with an initial window of 10 and uses SACK.

**Linux or not (`stack`).** The paper's testbed ran Linux senders, so the testbed studies set `stack = \"linux\"` on every flow (docs/scenarios.md, Stacks): RACK-TLP loss detection, undo of spurious reductions with DSACK and timestamps, F-RTO, quick-ACK and receive-window auto-tuning as Linux 6.x has them. The simulator studies (cost, reverse, queue) leave `stack` out: the paper ran them in a network simulator whose TCP is not Linux's, so they keep cclab's documented defaults (RFC 6675 SACK recovery with PRR, a fixed unlimited receive window). Either way this is a simulation: no kernel ran, and the testbed's NICs, drivers, Wi-Fi chipsets and their queues are models.

**Metrics** (docs/metrics.md), against what the paper measures:

| paper's metric | ours | definition | note |
| --- | --- | --- | --- |
| goodput | `flows.N.goodput_steady_bps` | bytes delivered in order to the receiving application × 8 / the steady window | seed-spec's definition; a receiver-side measurement such as iperf's counts the same bytes |
| RTT | `flows.N.mean_rtt_steady_ms` | mean of the RTT samples (one per ACK of a never-retransmitted segment, Karn) in the steady window | the paper's tool (likely `ss`/`tcpprobe` srtt) would report the smoothed RTT; means agree to the first order |
| retransmissions | `flows.N.retransmissions`, `retransmission_ratio` | retransmitted segments over the run, and as a share of segments sent | a kernel counter counts the same events |
| friendliness | `aggregate.share_first` | x1/(x1 + x2) of the steady goodput of the module and CUBIC | seed-spec §4.2's definition |
| fairness | `aggregate.jain_index_steady` | Jain's index of the flows' steady goodput | the standard definition |
| convergence time | `flows.1.convergence_time_s` | from the joiner's start until its 1 s average throughput entered and stayed within ±20 % of its fair share (half the link) until the run ended; none if it never settled | seed-spec proposes ±10 % for 5 s; cclab's metric uses ±20 % over a 1 s window (docs/metrics.md) so that one loss recovery does not count as leaving the share |
| stability | `flows.N.stability_cv`, `aggregate.stability_cv` | coefficient of variation σ/μ of 100 ms throughput bins in the steady window | seed-spec's definition |
| transmission cost / on-wire volume | `flows.N.transmission_cost` | wire bytes sent (headers, retransmissions) / bytes delivered | for equal transfers, the ratio of on-wire volumes |
| utilization (reverse path, queue size) | `links.0.utilization_steady` | the bottleneck transmitter's busy time / the steady window (headers included: 1 is full) | \"full use\" is ≥ 0.95 here (our threshold) |

{quick}",
        n = MODULES.len(),
        modules = MODULES.join(", "),
        quick = if quick.is_empty() {
            String::new()
        } else {
            format!("This report is the quick form{quick}.")
        },
    ));
}

pub fn discussion(report: &mut Report) {
    report.text(DISCUSSION);
}

const DISCUSSION: &str = "## Discussion

(to be written)";
