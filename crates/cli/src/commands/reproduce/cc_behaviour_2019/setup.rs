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
| convergence-wired, -wifi | two flows of the module, the second from 10 s + U(0, 1 s) | the same | 60 s, steady from 30 s | the same |
| cost | one bulk flow; base RTT 10, 50, 100, 200 ms × random loss 0, 0.01, 0.1, 1 % (seed-spec's grid); BBR, CUBIC, Reno | 100 Mbit/s dumbbell, 1 BDP | 30 s, steady from 5 s | 3 |
| cost-buffer | the claim's point (RTT 100 ms, loss 0.01 %), BBR and CUBIC, buffer 100 packets (ns-3's default queue) or 1 BDP: the alternative reconstruction | 100 Mbit/s dumbbell | the same | 3 |
| reverse | one forward flow of each module; 0, 1 or 4 CUBIC bulk flows the other way | 100 Mbit/s each way, 40 ms base RTT, 1 BDP each way | 30 s, steady from 5 s | 1 |
| reverse-buffer | BBR, CUBIC or Reno forward against 4 reverse CUBIC flows; reverse buffer 20, 100 packets, 1 or 2 BDP: the alternative reconstruction | the same | the same | 1 |
| queue | one bulk flow; drop-tail buffer 5, 10, 20, 50, 100, 200, 500, 1000 packets | 100 Mbit/s, base RTT 10 and 100 ms | 30 s, steady from 5 s | 1 |

The testbed paths (simulated; see below):

| path | bottleneck | base RTT | queue | why |
| --- | --- | --- | --- | --- |
| LAN | 1 Gbit/s wire, 0.5 ms one way | 1 ms | 1000 packets, drop-tail | a gigabit switched LAN's sub-millisecond RTT; 1000 packets is Linux's default `txqueuelen`, the queue a Linux host or router in the path has |
| WAN | 100 Mbit/s wire, 25 ms one way | 50 ms | 1 BDP (417 packets) | a continental path; seed-spec's 100 Mbit/s dumbbell |
| Wi-Fi 2.4 GHz | `kind = \"wifi\"`, preset `wifi-2.4ghz` (802.11n, 2×2, MCS 15, 144.4 Mbit/s PHY), 1 ms wired behind the AP | about 2 ms (the wire's 2 ms plus the medium's access) | 1000 packets each direction | one station downloading from a server behind its access point; the presets and their sources are in docs/links.md |
| Wi-Fi 5 GHz | preset `wifi-5ghz` (802.11ac, 2×2, 80 MHz, VHT-MCS 9, 866.7 Mbit/s PHY), otherwise the same | about 2 ms | the same | the same |

Every flow carries 1448-byte segments in 1500-byte packets (52 header bytes with timestamps), starts with an initial window of 10 and uses SACK.

**Linux or not (`stack`).** The paper's testbed ran Linux senders, so the testbed studies set `stack = \"linux\"` on every flow (docs/scenarios.md, Stacks): RACK-TLP loss detection, undo of spurious reductions with DSACK and timestamps, F-RTO, quick-ACK, receive-window auto-tuning and a 4 MiB send buffer as Linux 6.x has them, and each controller its kernel module's choices (CUBIC with HyStart, BBR with tcp_bbr.c's gains and ACK-aggregation allowance, Vegas with alpha 2 and beta 4, and so on). The simulator studies (cost, reverse, queue and their alternatives) leave `stack` out: the paper ran them in a network simulator whose TCP is not Linux's, so they keep cclab's documented defaults (RFC 6675 SACK recovery with PRR, a fixed unlimited receive window). Either way this is a simulation: no kernel ran, and the testbed's NICs, drivers, Wi-Fi chipsets and their queues are models.

**Metrics** (docs/metrics.md), against what the paper measures:

| paper's metric | ours | definition | note |
| --- | --- | --- | --- |
| goodput | `flows.N.goodput_steady_bps` | bytes delivered in order to the receiving application × 8 / the steady window | seed-spec's definition; a receiver-side measurement such as iperf's counts the same bytes |
| RTT | `flows.N.mean_rtt_steady_ms` | mean of the RTT samples (one per ACK of a never-retransmitted segment, Karn) in the steady window | the paper's tool (likely `ss`/`tcpprobe` srtt) would report the smoothed RTT; means agree to the first order |
| retransmissions | `flows.N.retransmissions`, `retransmission_ratio` | retransmitted segments over the run, and as a share of segments sent | a kernel counter counts the same events |
| friendliness | `aggregate.share_first` | x1/(x1 + x2) of the steady goodput of the module and CUBIC | seed-spec §4.2's definition |
| fairness | `aggregate.jain_index_steady` | Jain's index of the flows' steady goodput | the standard definition |
| convergence time | `flows.1.convergence_time_s`, and the same rule against an equal split | from the joiner's start until its 1 s average throughput entered and stayed within ±20 % of its fair share (half the link's nominal rate; for the comparisons, half of what the two flows get) until the run ended; none if it never settled | seed-spec proposes ±10 % for 5 s; cclab's metric uses ±20 % over a 1 s window (docs/metrics.md) so that one loss recovery does not count as leaving the share; the paper's definition is not in the abstract |
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

The numbers quoted here are the full run's (docs/reproductions/cc-behaviour-2019); the tables and figures above are this run's.

**What can and cannot be compared.** The paper's numbers come from a testbed of Linux hosts and commodity Wi-Fi, of which the abstract gives no rate, RTT, queue, kernel version or run length. Ours come from simulated paths whose every parameter is our choice (setup). So a claim can only be confronted in kind: does the same mechanism show, in the same direction and roughly the same size. Where the verdict hangs on an unknown setting we ran the alternatives and show both (the Wi-Fi queue, the buffer of the cost study, the reverse buffer).

**The Linux model changed since the previous publication of this report.** Two more rules of the TCP model under `stack = \"linux\"` (the testbed studies; the simulator studies do not use it and did not change) now follow Linux. The receiver ACKs at once each segment that grows its auto-tuned window (`tcp_grow_window` sets quick-ACK mode), so while the window grows every segment is ACKed, not every second one. And PRR's slow-start reduction bound adds its extra segment only on an ACK that advances snd_una and marks nothing newly lost (`prr_bound = \"safe_ack\"`, Linux's `tcp_cwnd_reduction`, draft-ietf-tcpm-prr-rfc6937bis's SafeACK), not on every ACK as RFC 6937 §3 does. What moved: on the WAN, where every loss-based module recovers from overflows of its one-BDP queue, most retransmit a quarter to two-thirds less with the same goodput (Scalable 2 603 segments, was 5 298; YeAH 1 613, was 5 111; BIC 1 716, was 3 453; Reno and Veno 841, were 1 176; Hybla alone more, 3 706, was 3 458), and Westwood+ gets 80.7 Mbit/s (was 79.8). On Wi-Fi with 1000-packet queues which modules overflow the access point's queue changed (at 2.4 GHz BIC no longer does, 0 segments, was 258; at 5 GHz BIC 874, was 365, Scalable 1 057, was 1 946) and CUBIC's mean queue at 2.4 GHz is 660 packets (was 761). The friendliness shares and convergence times shifted with these. One verdict changed: Veno now settles sooner at 5 GHz than at 2.4 GHz (37.2 s against 41.5 s; was 44.0 s against 36.7 s), as the paper found. In all 6 agree, 4 are within tolerance and 15 disagree (were 5, 4 and 16).

**BBR's goodput on Wi-Fi (paper: at least 22.5 % below the others, from an insufficient pacing rate).** With `stack = \"linux\"` the testbed flows run Linux's BBR (`variant = \"linux\"`), whose ACK-aggregation allowance (tcp_bbr.c since Linux 5.1, 2019) lets the window cover what the medium releases at once: the access point's queue holds about 75 packets at 2.4 GHz (CUBIC's 660), its aggregates carry 28.9 frames (CUBIC's 32.7), and BBR's goodput is within about 1 % of the lowest loss-based module (1.1 % below it at 2.4 GHz, 0.3 % at 5 GHz). The paper's deficit appears with the draft's BBR, which has no such allowance, as a kernel before 5.1 had none (study bbr-variant-wifi): paced at its bandwidth estimate it keeps the access point's queue short, the aggregates shrink to 10.7 frames, and its goodput falls 16.2 % below the lowest loss-based module at 2.4 GHz and 2.4 % at 5 GHz. That is the paper's mechanism but not its size: 22.5 % is not reached, and at 5 GHz the 866.7 Mbit/s PHY rate leaves even small aggregates cheap. Two model differences pull BBR's loss down: the model's PHY rate is fixed (no rate adaptation, which in a real card drops with small, error-prone transmissions), and a real Linux sender's TSO autosizing and the driver's own aggregation queues (not modelled) make a paced flow's bursts smaller still. The paper's kernel version is not in the abstract, so which of the two BBRs it ran is not known. And one module is below BBR everywhere: Vegas, delay-based, reads the medium's aggregation and contention delay as queueing and holds its window down (46 and 114 Mbit/s), so the strict reading \"below every other module\" fails on Vegas alone. With a 100-packet queue at the access point (single-wifi-shallow) the picture turns: BBR, which ignores loss, keeps its rate while the loss-based modules back off on each overflow, and it gets 8 % (2.4 GHz) and 33 % (5 GHz) more than the lowest of them, at the price of about 12 000 and 148 000 retransmissions in 30 s.

**CUBIC's retransmissions on Wi-Fi (paper: 129 % more than the others).** Not reproduced under either queue. With 1000-packet queues most loss-based modules are held by the auto-tuned receive window before the access point's queue overflows, and the MAC's retries hide the 10 % frame errors from TCP (a frame is lost only after 7 failed attempts), so there are few retransmissions to count: CUBIC has 2 at 2.4 GHz and 3 at 5 GHz (means of two replicates). The others' means (64 and 294 segments) come mostly from modules that do overflow the access point's queue in some replicates: Scalable and HighSpeed at 2.4 GHz, and at 5 GHz Scalable, HighSpeed and BIC, with Veno and Reno about 200 each. With 100-packet queues every loss-based module overflows it, and CUBIC is among those that retransmit least (186 and 741 segments; fewer only Vegas, which never fills the queue, and at 5 GHz Veno): Scalable, BIC and HighSpeed retransmit the most of the loss-based modules on both bands, Illinois next at 5 GHz, and BBR (no loss response) far more. The paper's testbed CUBIC may have met a smaller driver queue, competing stations or HyStart behaviour that we cannot know from the abstract.

**Friendliness (paper: CUBIC too aggressive, suppresses the others in LAN and Wi-Fi).** Reproduced in direction on the LAN and both Wi-Fi bands, but not in full on any. Most modules get less than half against CUBIC (8 of 12 on the LAN and at 5 GHz, 7 at 2.4 GHz), and some far less: Vegas under 1 % on all three, BBR 13 % at 2.4 GHz, Westwood+ 20 % and YeAH 24 % at 2.4 GHz, Westwood+ 26 % and Veno 31 % on the LAN, Westwood+ 33 % at 5 GHz. The verdicts are within tolerance rather than agreement because no more than half of the modules fall below our 0.4 threshold for \"suppressed\" (3, 6 and 2 of 12; the threshold is ours; the abstract gives none). Four modules hold half or more on the LAN: Scalable 96 %, BIC 90 %, HighSpeed 89 % and H-TCP 51 %; BBR gets 43 %. BBR's low share against CUBIC at 2.4 GHz (a 1000-packet queue, hundreds of BDPs; 10 % and 16 % in the two replicates) is the known BBRv1 behaviour with very deep buffers: its window cap of about 2 × its BDP estimate leaves the queue to CUBIC. At 5 GHz BBR gets 42 %, and on the WAN (one BDP of buffer) 89 %, as BBRv1 does in shallow buffers.

**Convergence (paper: BBR converges very quickly everywhere; Westwood+ and Veno faster at 5 GHz than 2.4 GHz).** Two findings about the metric first. The summary's convergence time measures the joiner against half the link's nominal rate; on Wi-Fi that is half the PHY rate, which no TCP flow reaches, so it is never met there (the table shows it beside the equal-split version the comparisons use). And \"entered and stayed within ±20 % until the end\" is strict: a split that keeps swinging never settles in its sense even when it is fair on average (Jain's index figure). BBR settles against an equal split on three paths of four, and late: on the LAN in 40 s (4th of 13; Vegas at once, HighSpeed in 5 s, BIC in 8 s), on the WAN in 36 s (8th; Veno and Reno at once, H-TCP in 3 s, YeAH in 5 s), and at 5 GHz in 37 s (7th; Vegas at once, BIC and Scalable in 3 and 4 s, CUBIC in 19 s); at 2.4 GHz neither replicate settles (8th of 13, behind the seven modules that do, the first Scalable in 12 s and BIC and CUBIC in 17 s), though its steady Jain's index there is 0.96 and 0.99 in the two replicates: fair on average, the split leaves ±20 % now and then. So the paper's \"BBR converges very quickly in all scenarios\" is not reproduced. Westwood+ settles on neither Wi-Fi band (at 2.4 GHz one of the two replicates never does, at 5 GHz neither, though its steady Jain's index is 0.94 at 2.4 GHz and 0.999 at 5 GHz), so its order between the bands is not reproduced either; Veno settles sooner at 5 GHz (37.2 s) than at 2.4 GHz (41.5 s), the paper's order. With two replicates and a strict metric either order is fragile: before the Linux model change above, Veno's order was the opposite (36.7 s at 2.4 GHz, 44.0 s at 5 GHz), and before the change preceding it Westwood+ settled at 5 GHz in 41 s and not at 2.4 GHz. The paper's definition of convergence time is not in the abstract; a looser tolerance or a longer averaging window would change the ranking (each kept run's rates.csv holds the bins to recompute it).

**Transmission cost (paper: BBR's on-wire volume 2.37 % above CUBIC's at RTT 100 ms, loss 0.01 %).** Depends on the buffer. With one BDP of buffer (our main choice) both modules' retransmissions come mostly from the start-up overshoot, about 2 400 segments each even without random loss, and the costs differ by under 1 %, in either direction from seed to seed. With ns-3's default 100-packet queue, which the paper's simulator most likely used, BBR's probing at 1.25 × its estimate overflows the small queue on every gain cycle (about 10 000 retransmissions in 30 s) while CUBIC, whose window the small queue keeps small, loses under 200: BBR's volume is about 4 % above CUBIC's, the paper's sign and within 2 points of its size. The figure against loss and RTT shows the same: BBR's extra volume grows with loss and RTT (up to 15 % at 1 % loss and 200 ms), as BBR keeps sending at its estimate through losses.

**Congested reverse path (paper: CUBIC still fully uses the link).** Depends on the reverse buffer. With one BDP of reverse buffer, CUBIC's ACKs queue behind up to 40 ms of reverse data, the ACK clock stretches and bunches, and CUBIC uses 73 % of the forward link against one reverse flow and 59 % against four; with a 20- or 100-packet reverse queue (ns-3's default) the ACKs wait little and CUBIC uses 99.6 %, as the paper found. BBR, which paces rather than following the ACK clock, keeps about 98 % in every case except two BDPs of reverse buffer.

**Queue size (paper: BBR fully uses the link for queues of 20 packets and more).** Agrees, and more strongly: in the model BBR keeps at least 97.6 % of the link from 5 packets up at 10 and 100 ms, since it paces at its bandwidth estimate and needs no queue to fill the pipe; the loss-based modules need about a BDP (CUBIC 0.988 at 200 packets and 1.0 from 500 at 100 ms). Vegas's 25 % at 100 ms whatever the buffer fits its additive increase of one packet per RTT: 25 s of 100 ms rounds add at most 250 packets to a window that needs 833.

**Not modelled, and why it matters here.** No kernel runs: `stack = \"linux\"` sets the TCP model's options as Linux has them, but TSO/GSO, the qdisc layer (Linux's default fq_codel would shorten every deep queue above), driver queues and Wi-Fi rate control are absent. The Wi-Fi model has one station; the paper's testbed may have had others. Runs are 30 s (60 s for convergence) with 1-2 replicates, so start-up weighs more than in a long measurement.";
