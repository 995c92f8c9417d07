//! `cclab emulate FILE.toml [--out DIR]`: the scenario's flows as real kernel TCP
//! connections through the scenario's bottleneck, emulated in real time by the simulator's
//! link code (crates/emu, docs/emulation.md). Writes `cclab run`'s folder format.
//! `cclab emulate-endpoint` (hidden) is the program it starts in each host's namespace.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use cclab_analysis::html_report::ReportOptions;
use cclab_analysis::plot::Formats;
use cclab_analysis::plot::timeseries::{RunPlotOptions, plot_run};
use cclab_emu::{EmuError, Emulation};

use crate::commands::run::Drawing;

use crate::Failure;

/// The hidden subcommand that runs the sender and receiver programs.
pub const ENDPOINT_COMMAND: &str = "emulate-endpoint";

pub fn emulate(
    file: &Path,
    out: Option<PathBuf>,
    overrides: &[String],
    quiet: bool,
    drawing: Drawing,
) -> Result<(), Failure> {
    let scenario =
        cclab_scenario::load(file, overrides).map_err(|e| Failure::BadInput(e.into()))?;
    let out =
        out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-emulated", scenario.name)));
    let program = std::env::current_exe().map_err(|e| {
        Failure::RunFailed(anyhow!(
            "cannot find the cclab program to start the endpoints: {e}"
        ))
    })?;
    let emulation = Emulation {
        scenario,
        program,
        program_args: vec![ENDPOINT_COMMAND.to_string()],
    };
    let plan = cclab_emu::prepare(&emulation.scenario).map_err(failure)?;
    if !quiet {
        eprintln!(
            "emulating {} for {} in real time",
            emulation.scenario.name, emulation.scenario.duration
        );
    }
    let report = cclab_emu::emulate(&emulation, plan).map_err(failure)?;
    cclab_emu::output::write(&out, &emulation.scenario, &report).map_err(failure)?;
    let fidelity = cclab_emu::output::fidelity(&report);
    for flow in &report.flows {
        if let Some(error) = &flow.error {
            eprintln!("warning: flow {}: {error}", flow.id);
        }
    }
    if !fidelity.kept_up {
        eprintln!(
            "warning: the emulator did not keep up: packets left {:.3} ms late at the 99th percentile (bound {} ms), at {:.1} % of the scheduled rate; results are less faithful (docs/emulation.md)",
            fidelity.added_delay_p99_ms,
            cclab_emu::output::KEPT_UP_P99_MS,
            100.0 * fidelity.achieved_rate_bps / fidelity.scheduled_rate_bps.max(1.0),
        );
    }
    if fidelity.kept_up && fidelity.late_share > cclab_emu::output::LATE_SHARE_WARNING {
        eprintln!(
            "warning: {:.2} % of the packets left more than 1 ms late (emulation.late_episodes in summary.json says when); the burst after such a moment can give the kernel a delivery-rate sample above the link's rate, which BBR keeps for ten rounds (docs/emulation.md)",
            100.0 * fidelity.late_share
        );
    }
    if report.fidelity.ingress_drops > 0 {
        eprintln!(
            "warning: {} packets were lost in the TUN devices before the emulated links (the kernel sent faster than the emulator read); they count as losses of the path (docs/emulation.md)",
            report.fidelity.ingress_drops
        );
    }
    let summary = cclab_emu::output::summary(&emulation.scenario, &report);
    let mut text = String::new();
    for flow in summary["flows"].as_array().into_iter().flatten() {
        text += &format!(
            "flow {} ({}): goodput {:.2} Mbit/s, {} retransmissions, mean RTT {:.1} ms\n",
            flow["id"],
            flow["kernel_cc"].as_str().unwrap_or(""),
            flow["goodput_bps"].as_f64().unwrap_or(0.0) / 1e6,
            flow["retransmissions"],
            flow["mean_rtt_ms"].as_f64().unwrap_or(0.0),
        );
    }
    let link = &summary["links"][0];
    text += &format!(
        "bottleneck: utilization {:.3}, {} drops, mean queue {:.1} packets\n",
        link["utilization"].as_f64().unwrap_or(0.0),
        link["drops"],
        link["mean_queue_pkts"].as_f64().unwrap_or(0.0),
    );
    text += &format!(
        "emulator: added delay p50 {:.3} ms, p99 {:.3} ms; rate achieved {:.2} of {:.2} Mbit/s scheduled\n",
        fidelity.added_delay_p50_ms,
        fidelity.added_delay_p99_ms,
        fidelity.achieved_rate_bps / 1e6,
        fidelity.scheduled_rate_bps / 1e6,
    );
    text += &format!("output: {}\n", out.display());
    crate::emit(&text);
    // The folder has run's format, so run's figures and report are drawn from it unchanged.
    if drawing.plots {
        let options = RunPlotOptions {
            formats: Formats::default(),
            from_s: None,
            to_s: None,
        };
        plot_run(&out, &options).map_err(|e| Failure::RunFailed(e.into()))?;
    }
    if drawing.report {
        crate::commands::report::write(
            &out,
            &ReportOptions {
                figures: drawing.plots,
                scenario: crate::commands::report::scenario_text(file, overrides),
                sections: Vec::new(),
            },
        )?;
    }
    Ok(())
}

fn failure(e: EmuError) -> Failure {
    match e {
        EmuError::Unsupported(_) | EmuError::Unavailable(_) => Failure::BadInput(e.into()),
        other => Failure::RunFailed(other.into()),
    }
}

/// `cclab emulate-endpoint ARGS…`, inside a host's namespace.
pub fn endpoint(args: &[String]) -> Result<(), Failure> {
    cclab_emu::endpoint::run(args).map_err(|e| Failure::RunFailed(e.into()))
}
