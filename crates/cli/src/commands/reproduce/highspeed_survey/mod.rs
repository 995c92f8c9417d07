//! `cclab reproduce highspeed-survey`: the NS2 evaluation of high-speed TCP variants by Wang
//! Guodong, Ren Yongmao and Li Jun (seed 001; seed-spec §4.1), and its two real-network
//! paths as simulated paths.
//!
//! The studies are the sweep files beside this file (one per experiment of the paper's
//! section 4, plus the real paths of section 5 and the reconstruction alternatives); the
//! `--quick` form changes their durations and grids by text ([`QUICK`]).

mod analysis;
mod curves;
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
];

/// The `--quick` form, per study: (text, replacement). 10 s instead of 1200 s, the real
/// paths 200 MB instead of 2 GB, and 128 ms instead of 512 ms as the longest RTT: in 10 s a
/// 512 ms flow is still in its first slow start, whose overshoot (a window of tens of
/// thousands of packets, most of it lost) costs more simulation time than everything else
/// here and says nothing about the paper. About 40 M packets in all.
const QUICK: &[(&str, &[(&str, &str)])] = &[
    ("utilization-vs-rate", &[("\"1200s\"", "\"10s\"")]),
    (
        "utilization-vs-rtt",
        &[
            ("\"1200s\"", "\"10s\""),
            ("[\"0.5ms\", \"255.5ms\"]", "[\"0.5ms\", \"63.5ms\"]"),
        ],
    ),
    (
        "intra-fairness",
        &[
            ("\"1200s\"", "\"10s\""),
            ("[\"7.5ms\", \"255.5ms\"]", "[\"7.5ms\", \"63.5ms\"]"),
        ],
    ),
    (
        "rtt-fairness",
        &[
            ("\"1200s\"", "\"10s\""),
            ("[\"13ms\", \"509ms\"]", "[\"13ms\", \"125ms\"]"),
        ],
    ),
    (
        "friendliness",
        &[
            ("\"1200s\"", "\"10s\""),
            ("[\"7.5ms\", \"255.5ms\"]", "[\"7.5ms\", \"63.5ms\"]"),
        ],
    ),
    (
        "real-paths",
        &[("\"300s\"", "\"30s\""), ("\"2GB\"", "\"200MB\"")],
    ),
    ("alternatives", &[("\"1200s\"", "\"10s\"")]),
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
        // utilization-vs-rtt: 2, 16, 128, 512 ms.
        for (delay, rtt) in [(0.5, 2.0), (7.5, 16.0), (63.5, 128.0), (255.5, 512.0)] {
            assert_eq!(analysis::rtt_of_delay(delay), rtt);
        }
        // The real paths: 139 ms (GLORIAD) and 20 ms (CSTNET).
        assert_eq!(analysis::rtt_of_delay(69.0), 139.0);
        assert_eq!(analysis::rtt_of_delay(9.5), 20.0);
        // rtt-fairness: base 2 × (0.25 + 1 + 0.25) = 3 ms plus extra_rtt; x2 at 253 ms extra
        // is 256 ms, and the buffer is 622 Mbit/s × 256 ms = 19 904 000 bytes.
        assert_eq!(analysis::rtt_of_extra(253.0), 256.0);
        assert_eq!(622e6 * 0.256 / 8.0, 19_904_000.0);
        assert!(STUDIES[3].1.contains("buffer = \"19904KB\""));
    }
}
