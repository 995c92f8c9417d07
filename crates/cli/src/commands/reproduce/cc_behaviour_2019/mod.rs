//! `cclab reproduce cc-behaviour-2019`: Lin, Cui, Guan, "Extensive evaluation on the
//! performance and behaviour of TCP congestion control protocols under varied network
//! scenarios", Computer Networks 163 (2019) 106872 (seed 004; seed-spec §4.2).
//!
//! Only the paper's abstract could be read, so the studies are our reconstruction of the
//! experiments it names: the testbed measurements (one flow alone, against CUBIC, two flows of
//! one module) on simulated LAN, WAN and Wi-Fi paths, and the simulator studies of
//! transmission cost, congested reverse path and bottleneck queue size. Each study is a sweep
//! file beside this one; `--quick` rewrites its durations and grids by text.

mod claims;
mod convergence;
mod convergence_causes;
mod data;
mod setup;
mod simulator;
mod testbed;

use super::{Report, Reproduction, Studies, Study};

pub struct CcBehaviour2019;

/// The modules the paper names (BBR, CUBIC, Westwood+, Veno, and Reno and Vegas per the
/// brief) and the rest of Linux's module set, seed-spec §4.2's candidate list, in the
/// order the figures show them.
pub const MODULES: [&str; 13] = [
    "bbr",
    "cubic",
    "reno",
    "vegas",
    "westwood",
    "veno",
    "illinois",
    "htcp",
    "hybla",
    "highspeed",
    "scalable",
    "yeah",
    "bic",
];

/// `--quick`: the modules the claims name, and Reno as the reference.
const QUICK_MODULES: [&str; 5] = ["bbr", "cubic", "reno", "westwood", "veno"];

/// A module list as the sweep files write it.
fn module_list(modules: &[&str]) -> String {
    let quoted: Vec<String> = modules.iter().map(|m| format!("\"{m}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The study files, by name.
const STUDIES: [(&str, &str); 15] = [
    ("single-wired", include_str!("single-wired.toml")),
    ("single-wifi", include_str!("single-wifi.toml")),
    (
        "single-wifi-shallow",
        include_str!("single-wifi-shallow.toml"),
    ),
    ("bbr-variant-wifi", include_str!("bbr-variant-wifi.toml")),
    (
        "friendliness-wired",
        include_str!("friendliness-wired.toml"),
    ),
    ("friendliness-wifi", include_str!("friendliness-wifi.toml")),
    ("convergence-wired", include_str!("convergence-wired.toml")),
    ("convergence-wifi", include_str!("convergence-wifi.toml")),
    (
        "convergence-replicates",
        include_str!("convergence-replicates.toml"),
    ),
    (
        "convergence-lan-buffer",
        include_str!("convergence-lan-buffer.toml"),
    ),
    ("cost", include_str!("cost.toml")),
    ("cost-buffer", include_str!("cost-buffer.toml")),
    ("reverse", include_str!("reverse.toml")),
    ("reverse-buffer", include_str!("reverse-buffer.toml")),
    ("queue", include_str!("queue.toml")),
];

/// The text replacements of `--quick`: shorter runs (4 s, the joiner of the convergence
/// studies at 2 s), one replicate (two in convergence-replicates and -lan-buffer), five modules and thinner grids; every figure keeps at
/// least two points per line. Each `from` occurs in the files it is meant for (a unit test
/// checks that every study changes).
fn quick_text(text: &str) -> String {
    let full = module_list(&MODULES);
    let quick = module_list(&QUICK_MODULES);
    let pairs: [(&str, &str); 14] = [
        ("duration = \"30s\"", "duration = \"4s\""),
        ("duration = \"60s\"", "duration = \"6s\""),
        ("start = \"10s\"", "start = \"2s\""),
        ("steady_from = \"30s\"", "steady_from = \"4s\""),
        ("steady_from = \"5s\"", "steady_from = \"1s\""),
        ("seeds = 2", "seeds = 1"),
        ("seeds = 3", "seeds = 1"),
        // Two replicates keep a spread (a median and quartiles) in the cause study.
        ("seeds = 8", "seeds = 2"),
        (&full, &quick),
        (
            "\"topology.bottleneck.delay\" = [\"5ms\", \"25ms\", \"50ms\", \"100ms\"]",
            "\"topology.bottleneck.delay\" = [\"5ms\", \"50ms\"]",
        ),
        (
            "\"topology.bottleneck.loss\" = [0.0, 0.0001, 0.001, 0.01]",
            "\"topology.bottleneck.loss\" = [0.0, 0.0001, 0.01]",
        ),
        (
            "\"topology.bottleneck.buffer\" = [5, 10, 20, 50, 100, 200, 500, 1000]",
            "\"topology.bottleneck.buffer\" = [5, 20, 100, 1000]",
        ),
        (
            "\"topology.bottleneck.reverse.buffer\" = [20, 100, \"1bdp\", \"2bdp\"]",
            "\"topology.bottleneck.reverse.buffer\" = [100, \"1bdp\"]",
        ),
        (
            "\"flows.0.cc\" = [\"bbr\", \"cubic\", \"reno\"]",
            "\"flows.0.cc\" = [\"bbr\", \"cubic\"]",
        ),
    ];
    let mut out = text.to_string();
    for (from, to) in pairs {
        out = out.replace(from, to);
    }
    out
}

impl Reproduction for CcBehaviour2019 {
    fn name(&self) -> &'static str {
        "cc-behaviour-2019"
    }

    fn seed(&self) -> &'static str {
        "004"
    }

    fn title(&self) -> &'static str {
        "Jinting Lin, Lin Cui, Quanlong Guan, \"Extensive evaluation on the performance and behaviour of TCP congestion control protocols under varied network scenarios\", Computer Networks 163 (2019) 106872, doi:10.1016/j.comnet.2019.106872"
    }

    fn summary(&self) -> &'static str {
        "goodput, RTT, retransmissions, friendliness, fairness, convergence and stability of 13 Linux modules on LAN, WAN and Wi-Fi 2.4/5 GHz; transmission cost, congested reverse path, queue size"
    }

    fn studies(&self, quick: bool) -> Vec<Study> {
        STUDIES
            .iter()
            .map(|(name, text)| {
                let text = if quick {
                    quick_text(text)
                } else {
                    text.to_string()
                };
                let study = Study::new(*name, text);
                // The convergence analysis reads each run's throughput bins (rates.csv).
                if name.starts_with("convergence") {
                    study.keep_runs()
                } else {
                    study
                }
            })
            .collect()
    }

    fn analyze(&self, data: &Studies, report: &mut Report) -> anyhow::Result<()> {
        setup::write(data, report);
        testbed::write(data, report)?;
        simulator::write(data, report)?;
        report.comparison_table();
        setup::discussion(report);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_study_file_is_a_valid_sweep_in_both_forms() {
        let dir = std::env::temp_dir().join(format!("cclab-cc2019-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for quick in [false, true] {
            for study in CcBehaviour2019.studies(quick) {
                let path = dir.join(format!("{}.toml", study.name));
                std::fs::write(&path, &study.toml).unwrap();
                let sweep = cclab_scenario::load_sweep(&path, &[])
                    .unwrap_or_else(|e| panic!("{} (quick {quick}): {e}", study.name));
                assert!(sweep.plan(100_000).unwrap().len() > 1, "{}", study.name);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_quick_form_shortens_every_study_and_keeps_the_claims_modules() {
        for (full, quick) in CcBehaviour2019
            .studies(false)
            .iter()
            .zip(CcBehaviour2019.studies(true))
        {
            assert_ne!(full.toml, quick.toml, "{} has no quick form", full.name);
            assert!(
                quick.toml.contains("duration = \"4s\"")
                    || quick.toml.contains("duration = \"6s\""),
                "{}",
                quick.name
            );
            // The claims need BBR in every study and CUBIC in all but BBR's own.
            assert!(quick.toml.contains("\"bbr\""), "{}", quick.name);
            if quick.name != "bbr-variant-wifi" {
                assert!(quick.toml.contains("\"cubic\""), "{}", quick.name);
            }
        }
        let full = module_list(&MODULES);
        for (name, text) in STUDIES {
            if !name.starts_with("cost") && name != "reverse-buffer" && name != "bbr-variant-wifi" {
                assert!(text.contains(&full), "{name} lists every module");
            }
        }
    }
}
