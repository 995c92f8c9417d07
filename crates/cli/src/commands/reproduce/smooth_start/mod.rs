//! `cclab reproduce smooth-start`: seed 000, H. Wang, H. Xin, D. S. Reeves, K. G. Shin, "A
//! Simple Refinement of Slow-start of TCP Congestion Control", ISCC 2000 (seed-spec §1).
//!
//! Studies (the sweep files beside this file): `table-iii` (utilization without congestion),
//! `constant-load` (Figs. 5–8 and the recovery variants), `constant-load-alternatives` and
//! `constant-load-cross` (the reconstruction choices), `table-ii` (Hoe's estimate),
//! `changing-load` (RED, Figs. 9–10) and `changing-load-red` (other RED parameters). Every
//! study is small: the whole experiment is a few hundred runs of seconds of simulated time at
//! 1–1.5 Mbit/s, so `--quick` only thins the seeds and the alternatives.

mod changing_load;
mod constant_load;
mod table_ii;
mod table_iii;

use anyhow::anyhow;
use cclab_analysis::results::Row;

use super::{Report, Reproduction, Studies, Study, metric, param};

pub struct SmoothStart;

/// The paper's five start-ups: (`slow_start` value, the paper's name).
pub const PROBES: [(&str, &str); 5] = [
    ("standard", "Slow-start"),
    ("smooth-start:coarse-2", "Coarse-2"),
    ("smooth-start:fine-2", "Fine-2"),
    ("smooth-start:coarse-4", "Coarse-4"),
    ("smooth-start:fine-4", "Fine-4"),
];

const TABLE_III: &str = include_str!("table-iii.toml");
const CONSTANT_LOAD: &str = include_str!("constant-load.toml");
const ALTERNATIVES: &str = include_str!("constant-load-alternatives.toml");
const CROSS: &str = include_str!("constant-load-cross.toml");
const TABLE_II: &str = include_str!("table-ii.toml");
const CHANGING_LOAD: &str = include_str!("changing-load.toml");
const RED_PARAMETERS: &str = include_str!("changing-load-red.toml");

/// `text` with `from` replaced by `to`; `from` must occur (a quick form that silently kept
/// the full grid would be a bug).
fn quick_edit(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the quick form edits `{from}`, which the study lacks"
    );
    text.replace(from, to)
}

/// The lower-case file-name form of a probe name: "Slow-start" → "slow-start".
fn probe_name(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The row of `rows` whose swept values include every (key, value) of `want`.
fn find<'a>(rows: &'a [Row], want: &[(&str, &str)]) -> anyhow::Result<&'a Row> {
    rows.iter()
        .find(|r| want.iter().all(|(k, v)| param(r, k) == Some(*v)))
        .ok_or_else(|| {
            let want: Vec<String> = want.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            anyhow!("no run with {}", want.join(", "))
        })
}

/// A metric every run has.
fn number(row: &Row, column: &str) -> anyhow::Result<f64> {
    metric(row, column).ok_or_else(|| anyhow!("run {} has no value for {column}", row.id))
}

const SETUP: &str = "## Setup\n\n\
The paper's simulations ran in ns-2 (its Fig. 4): senders on 10 Mbit/s links (2 ms and 3 ms), \
a 1.5 Mbit/s, 45 ms bottleneck between two gateways with 25-packet buffers, FTP sources, \
1024-byte packets, an ACK for every packet, Reno (Tahoe, NewReno and SACK were modified too), \
ssthresh = min(default, rwnd). What we set, and why where the paper is silent:\n\n\
| parameter | value | source |\n| --- | --- | --- |\n\
| packets | `mss = 1024`, `header_bytes = 0` | paper: windows in 1024-byte packets; 1 Mbit/s × 100 ms ≈ 12 packets as in the paper's arithmetic |\n\
| round trip | 100 ms: bottleneck 45 ms, access links 2.5 ms each way | paper's Fig. 4 (45 ms, and 2 + 3 ms on the access links); cclab gives every access link one delay, so 2.5 ms |\n\
| access links | 10 Mbit/s | paper's Fig. 4 |\n\
| initial window | 1 packet (`initial_window = 1`) | ns-2's default `windowInit_`; Table III's arithmetic needs it |\n\
| ACKs | one per packet (`delayed_ack = false`) | paper |\n\
| ssthresh | `initial_ssthresh` = rwnd (the default of 64 at rwnd 64) | paper: ssthresh = min(default, rwnd), and the default is rwnd 64 (\"more than three times\" the pipe of 20) |\n\
| sender | Reno (`recovery = \"reno\"`), `min_rto` 200 ms | paper (Reno); the minimum RTO is cclab's default: the ns-2 of 2000 had `minrto_` 0 (the RTO bounded by its clock tick only; 1 s from 2004 on), and 1 s, tried below, changes no loss count |\n\
| probes | Slow-start, Coarse-2, Fine-2, Coarse-4, Fine-4 (`slow_start = \"smooth-start:PROBE\"`) | paper's Table I; the algorithm is the reconstruction of seed-spec §1.3 (docs/algorithms/smooth-start.md) |\n\
| constant load | a 1 Mbit/s drop-tail link with `buffer = 7` (ns-2's 8 units), 60 KB = 60 packets, rwnd 18, 20, 24, 36, 64 | paper: a fixed share of 1 Mbit/s and 8 buffer units; how it was made is not said: our choice, a link of its own (alternatives below) |\n\
| changing load | 12 connections starting at 0.5, 1.0, …, 6.0 s; the one at 2.0 s sends 1 MB, the others are bulk; RED `min_th 5, max_th 15, w_q 0.002, max_p 0.1`, not gentle, 25-packet buffer; Fine-4; rwnd 64; 7 s | paper; RED's parameters are not given: ns-2's defaults of 2000; the last start time (6.0 s) follows from \"every 0.5 s\" |\n\
| Table III | ssthresh = rwnd = 64, lifetimes of 10, 19, 29, 38 round trips on a 1 Gbit/s, 100 ms path (no congestion) | seed-spec §1.6 |\n\
| Table II | Hoe's estimate, `initial_ssthresh = \"packet-pair\"` | paper: Hoe [8]; its scenario is not named (both candidates below) |\n";

const DISCUSSION: &str = "## Discussion\n\n\
**Table III** is reproduced exactly, and the reproduction settles how it was computed: the \
ideal per-RTT trajectory, whole packets per round, percentages truncated. Our simulator's \
per-ACK Smooth-start sends one packet fewer (Fine-2) or up to three fewer (Fine-4) because \
the fine probes' steps are not whole packets; this is the granularity of real ACKs, not a \
defect of the algorithm, and the algorithm was not changed.\n\n\
**Constant load.** Every published statement about Figs. 5–8 holds in our reconstruction, \
including the claim to confront (ssthresh/4 loses fewer packets than Slow-start in all \
five cases; the comparison table has it for the other recovery variants too). It rests on one reconstruction choice, \
shown above: the share's 8 buffer units are ns-2's drop-tail limit, which counts the \
packet in transmission. Read as 8 waiting packets, windows of 18 and 20 fit the pipe and \
no start-up loses anything there, so \"fewer in all cases\" fails only where nobody loses; \
with the cross traffic made explicit on the 1.5 Mbit/s link, the connection can use the \
whole shared buffer and nothing is lost at all. The gain in transfer time is largest for \
Reno, whose recovery of several losses from one window needs a timeout, as the paper \
says; Tahoe gains little here because its go-back-N slow start after the fast retransmit \
resends the burst's losses without waiting for the timer.\n\n\
**Table II** names no scenario, so its counts cannot be checked; on the constant-load path \
at the default ssthresh the ordering holds (Slow-start > Smooth-start > with Hoe's \
estimate), and the estimate on an isolated path is exact, leaving nothing to lose.\n";

impl Reproduction for SmoothStart {
    fn name(&self) -> &'static str {
        "smooth-start"
    }

    fn seed(&self) -> &'static str {
        "000"
    }

    fn title(&self) -> &'static str {
        "H. Wang, H. Xin, D. S. Reeves, K. G. Shin, \"A Simple Refinement of Slow-start of TCP \
         Congestion Control\", Proc. 5th IEEE Symposium on Computers and Communications (ISCC \
         2000)"
    }

    fn summary(&self) -> &'static str {
        "Smooth-start against slow start: Table III, losses against rwnd (Figs. 5-8), RED \
         changing load (Figs. 9-10), Table II, Tahoe/Reno/NewReno/SACK/FACK"
    }

    fn studies(&self, quick: bool) -> Vec<Study> {
        let (alternatives, changing_load, red_parameters) = if quick {
            let alternatives = quick_edit(
                ALTERNATIVES,
                "\"topology.bottleneck.buffer\" = [6, 7, 8]",
                "\"topology.bottleneck.buffer\" = [7, 8]",
            );
            let alternatives = quick_edit(
                &alternatives,
                "\"flows.0.min_rto\" = [\"200ms\", \"1s\"]",
                "\"flows.0.min_rto\" = [\"200ms\"]",
            );
            (
                alternatives,
                quick_edit(CHANGING_LOAD, "seeds = 10", "seeds = 2"),
                quick_edit(RED_PARAMETERS, "seeds = 10", "seeds = 2"),
            )
        } else {
            (
                ALTERNATIVES.to_string(),
                CHANGING_LOAD.to_string(),
                RED_PARAMETERS.to_string(),
            )
        };
        vec![
            Study::new(table_iii::STUDY, TABLE_III),
            Study::new(constant_load::STUDY, CONSTANT_LOAD).keep_runs(),
            Study::new(constant_load::ALTERNATIVES, alternatives),
            Study::new(constant_load::CROSS, CROSS),
            Study::new(table_ii::STUDY, TABLE_II),
            Study::new(changing_load::STUDY, changing_load).keep_runs(),
            Study::new(changing_load::RED_PARAMETERS, red_parameters).keep_runs(),
        ]
    }

    fn analyze(&self, data: &Studies, report: &mut Report) -> anyhow::Result<()> {
        report.text(SETUP);
        report.comparison_table();
        table_iii::analyze(data, report)?;
        constant_load::analyze(data, report)?;
        let red = changing_load::analyze(data, report)?;
        changing_load::red_parameters(data, report)?;
        table_ii::analyze(data, &red, report)?;
        report.text(DISCUSSION);
        report.text(red.discussion());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_form_thins_only_the_alternatives_and_the_seeds() {
        let full = SmoothStart.studies(false);
        let quick = SmoothStart.studies(true);
        let names: Vec<&str> = full.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            quick.iter().map(|s| s.name.as_str()).collect::<Vec<_>>()
        );
        for (f, q) in full.iter().zip(&quick) {
            match f.name.as_str() {
                "constant-load-alternatives" => {
                    assert!(q.toml.contains("[7, 8]") && q.toml.contains("[\"200ms\"]"));
                    assert_ne!(f.toml, q.toml);
                }
                "changing-load" | "changing-load-red" => {
                    assert!(f.toml.contains("seeds = 10") && q.toml.contains("seeds = 2"));
                }
                // The figures' studies run in full in both forms.
                _ => assert_eq!(f.toml, q.toml),
            }
        }
    }
}
