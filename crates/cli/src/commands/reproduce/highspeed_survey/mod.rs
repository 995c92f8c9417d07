//! `cclab reproduce highspeed-survey`: the NS2 evaluation of high-speed TCP variants by Wang
//! Guodong, Ren Yongmao and Li Jun (seed 001; seed-spec §4.1), and its two real-network
//! paths as simulated paths.
//!
//! The studies are the sweep files beside this file (one per experiment of the paper's
//! section 4, plus the real paths of section 5, the reconstruction alternatives and the four
//! studies of the fairness, friendliness and real-path disagreements' causes); the
//! `--quick` form changes their durations and grids by text ([`QUICK`]).

mod analysis;
mod causes;
mod claims;
mod curves;
mod shapes;
mod verdicts;

use super::{Reproduction, Studies, Study};
use crate::commands::reproduce::Report;

pub struct HighspeedSurvey;

/// (study, its sweep file). Order: the paper's sections.
const STUDIES: &[(&str, &str)] = &[
    (
        "utilization-vs-rate",
        include_str!("utilization-vs-rate.toml"),
    ),
    (
        "utilization-vs-rtt",
        include_str!("utilization-vs-rtt.toml"),
    ),
    ("intra-fairness", include_str!("intra-fairness.toml")),
    ("rtt-fairness", include_str!("rtt-fairness.toml")),
    ("friendliness", include_str!("friendliness.toml")),
    ("real-paths", include_str!("real-paths.toml")),
    ("alternatives", include_str!("alternatives.toml")),
    ("start-offsets", include_str!("start-offsets.toml")),
    (
        "rtt-fairness-buffer",
        include_str!("rtt-fairness-buffer.toml"),
    ),
    (
        "friendliness-modes",
        include_str!("friendliness-modes.toml"),
    ),
    ("lossy-paths", include_str!("lossy-paths.toml")),
];

/// The bottleneck delays of the two same-RTT two-flow studies (intra-fairness,
/// friendliness): RTT 16, 32, 64, 128, 256, 512 ms.
const SAME_RTT_GRID: &str =
    "[\"7.5ms\", \"15.5ms\", \"31.5ms\", \"63.5ms\", \"127.5ms\", \"255.5ms\"]";

/// The `--quick` form, per study: (text, replacement). 10 s instead of 1200 s, the real
/// paths 200 MB instead of 2 GB, and two RTTs per study, 2 or 16 ms and 128 ms (with the rate
/// study's 64 ms, three for utilization against the RTT) instead of the paper's doubling
/// grids up to 512 ms: in 10 s a 512 ms flow is still in its first slow start, whose
/// overshoot (a window of tens of thousands of packets, most of it lost) costs more
/// simulation time than everything else here and says nothing about the paper. About 50 M
/// packets through the bottlenecks in all (51.6 M, 69 CPU-seconds, on 2026-12-02).
const QUICK: &[(&str, &[(&str, &str)])] = &[
    ("utilization-vs-rate", &[("\"1200s\"", "\"10s\"")]),
    (
        "utilization-vs-rtt",
        &[
            ("\"1200s\"", "\"10s\""),
            (
                "[\"0.5ms\", \"1.5ms\", \"3.5ms\", \"7.5ms\", \"15.5ms\", \"63.5ms\", \"127.5ms\", \"255.5ms\"]",
                "[\"0.5ms\", \"63.5ms\"]",
            ),
        ],
    ),
    (
        "intra-fairness",
        &[
            ("\"1200s\"", "\"10s\""),
            (SAME_RTT_GRID, "[\"7.5ms\", \"63.5ms\"]"),
        ],
    ),
    (
        "rtt-fairness",
        &[
            ("\"1200s\"", "\"10s\""),
            (
                "[\"13ms\", \"29ms\", \"61ms\", \"125ms\", \"253ms\", \"509ms\"]",
                "[\"13ms\", \"125ms\"]",
            ),
        ],
    ),
    (
        "friendliness",
        &[
            ("\"1200s\"", "\"10s\""),
            (SAME_RTT_GRID, "[\"7.5ms\", \"63.5ms\"]"),
        ],
    ),
    (
        "real-paths",
        &[("\"300s\"", "\"30s\""), ("\"2GB\"", "\"200MB\"")],
    ),
    ("alternatives", &[("\"1200s\"", "\"10s\"")]),
    // The cause studies: the second flow still starts up to 30 s late, so 40 s; one RTT.
    (
        "start-offsets",
        &[
            ("\"300s\"", "\"40s\""),
            ("[\"7.5ms\", \"31.5ms\"]", "[\"7.5ms\"]"),
        ],
    ),
    (
        "rtt-fairness-buffer",
        &[
            ("\"300s\"", "\"10s\""),
            ("[\"13ms\", \"61ms\", \"125ms\"]", "[\"13ms\"]"),
        ],
    ),
    (
        "friendliness-modes",
        &[
            ("\"300s\"", "\"10s\""),
            ("[\"7.5ms\", \"127.5ms\"]", "[\"7.5ms\"]"),
        ],
    ),
    (
        "lossy-paths",
        &[("\"300s\"", "\"30s\""), ("[1, 2, 3, 4, 5]", "[1]")],
    ),
];

/// The sweep file of `study` in the full or quick form.
fn study_text(study: &str, full: &str, quick: bool) -> String {
    let mut text = full.to_string();
    if quick {
        for (name, changes) in QUICK {
            if *name == study {
                for (from, to) in *changes {
                    text = text.replace(from, to);
                }
            }
        }
    }
    text
}

impl Reproduction for HighspeedSurvey {
    fn name(&self) -> &'static str {
        "highspeed-survey"
    }

    fn seed(&self) -> &'static str {
        "001"
    }

    fn title(&self) -> &'static str {
        "Wang Guodong, Ren Yongmao, Li Jun: evaluation of TCP variants for high-speed long-distance networks (NS2 and CSTNET/GLORIAD tests; Computer Network Information Center, CAS; English title and venue unconfirmed, seed-spec §4.1)"
    }

    fn summary(&self) -> &'static str {
        "utilization vs rate and RTT, Jain fairness, RTT fairness and TCP friendliness (index A) of nine high-speed TCPs, 1200 s runs; the real paths simulated"
    }

    fn studies(&self, quick: bool) -> Vec<Study> {
        STUDIES
            .iter()
            .map(|(name, text)| Study::new(*name, study_text(name, text, quick)))
            .collect()
    }

    fn analyze(&self, data: &Studies, report: &mut Report) -> anyhow::Result<()> {
        analysis::analyze(data, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_quick_change_applies_and_shortens_every_study() {
        for (name, changes) in QUICK {
            let (_, full) = STUDIES
                .iter()
                .find(|(n, _)| n == name)
                .expect("QUICK names only studies of STUDIES (checked here)");
            for (from, _) in *changes {
                assert!(full.contains(from), "{name}: `{from}` is not in the file");
            }
        }
        for (name, full) in STUDIES {
            let quick = study_text(name, full, true);
            assert_ne!(&quick, full, "{name} has a quick form");
            assert!(
                !quick.contains("\"1200s\""),
                "{name}: no 1200 s run in --quick"
            );
        }
    }

    #[test]
    fn every_study_is_a_valid_sweep_in_both_forms() {
        let dir = std::env::temp_dir().join(format!("cclab-hs-studies-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
        for quick in [false, true] {
            for study in HighspeedSurvey.studies(quick) {
                let file = dir.join(format!("{}.toml", study.name));
                std::fs::write(&file, &study.toml).expect("the temporary folder is writable");
                let sweep = cclab_scenario::load_sweep(&file, &[])
                    .unwrap_or_else(|e| panic!("{} (quick {quick}): {e}", study.name));
                assert!(sweep.plan(1000).is_ok(), "{}", study.name);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_paths_have_the_papers_rtts() {
        // RTT = 2 × (access + bottleneck + access) delay, access 0.25 ms each side: the
        // single-flow studies' 64 ms is 2 × (0.25 + 31.5 + 0.25) ms.
        let rate = STUDIES[0].1;
        assert!(rate.contains("delay = \"31.5ms\"") && rate.contains("delay = \"0.25ms\""));
        assert_eq!(analysis::rtt_of_delay(31.5), 64.0);
        // The real paths: 139 ms (GLORIAD) and 20 ms (CSTNET).
        assert_eq!(analysis::rtt_of_delay(69.0), 139.0);
        assert_eq!(analysis::rtt_of_delay(9.5), 20.0);
        // rtt-fairness: base 2 × (0.25 + 1 + 0.25) = 3 ms plus extra_rtt; x2 at 253 ms extra
        // is 256 ms, and the buffer is 622 Mbit/s × 256 ms = 19 904 000 bytes.
        assert_eq!(analysis::rtt_of_extra(253.0), 256.0);
        assert_eq!(622e6 * 0.256 / 8.0, 19_904_000.0);
        assert!(STUDIES[3].1.contains("buffer = \"19904KB\""));
    }

    /// The millisecond values swept under `key` in a sweep file's text.
    fn swept_ms(text: &str, key: &str) -> Vec<f64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("\"{key}\" =")))
            .unwrap_or_else(|| panic!("`{key}` is swept"));
        line.split('"')
            .filter_map(|part| part.strip_suffix("ms"))
            .map(|ms| ms.parse().expect("a number of milliseconds"))
            .collect()
    }

    #[test]
    fn the_full_form_runs_the_papers_doubling_rtt_grids() {
        // §4.1.2: 2 to 512 ms, doubling (seed-spec §4.1): 2^1 .. 2^9 ms; 64 ms is the rate
        // study's 622 Mbit/s run.
        let doubling = |from: i32| (from..=9).map(|k| 2f64.powi(k)).collect::<Vec<f64>>();
        let study = |name: &str| {
            STUDIES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| *text)
                .expect("the study exists")
        };
        let delay = "topology.bottleneck.delay";
        let mut vs_rtt: Vec<f64> = swept_ms(study("utilization-vs-rtt"), delay)
            .into_iter()
            .map(analysis::rtt_of_delay)
            .collect();
        vs_rtt.push(64.0);
        vs_rtt.sort_by(f64::total_cmp);
        assert_eq!(vs_rtt, doubling(1));
        // §4.2.1 ("various"; our choice) and §4.3: 16 to 512 ms, doubling.
        for name in ["intra-fairness", "friendliness"] {
            let rtts: Vec<f64> = swept_ms(study(name), delay)
                .into_iter()
                .map(analysis::rtt_of_delay)
                .collect();
            assert_eq!(rtts, doubling(4), "{name}");
        }
        // §4.2.2: x1 from 16 to 512 ms, x2's own 256 ms among them.
        let x1: Vec<f64> = swept_ms(study("rtt-fairness"), "flows.0.extra_rtt")
            .into_iter()
            .map(analysis::rtt_of_extra)
            .collect();
        assert_eq!(x1, doubling(4));
    }
}
