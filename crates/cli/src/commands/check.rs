use std::path::Path;

use crate::Failure;

/// Whether the file has a `[sweep]` table (then every run of the sweep is validated).
fn is_sweep_file(file: &Path) -> bool {
    cclab_scenario::read_scenario_text(file)
        .ok()
        .and_then(|text| cclab_scenario::parse_table("", &text).ok())
        .is_some_and(|table| table.contains_key("sweep"))
}

pub fn check(
    file: &Path,
    overrides: &[String],
    max_output: Option<&str>,
    max_runs: Option<u64>,
) -> Result<(), Failure> {
    if is_sweep_file(file) {
        if max_output.is_some() {
            // A sweep's limit is output.max_size, applied with --keep-runs (docs/outputs.md).
            return Err(Failure::BadInput(anyhow::anyhow!(
                "{}: --max-output applies to scenario files, and this is a sweep file",
                file.display()
            )));
        }
        let sweep =
            cclab_scenario::load_sweep(file, overrides).map_err(|e| Failure::BadInput(e.into()))?;
        let plan = sweep
            .plan(max_runs.unwrap_or(cclab_scenario::sweep::DEFAULT_MAX_RUNS))
            .map_err(|e| Failure::BadInput(e.into()))?;
        crate::commands::sweep::runner::validate(&plan, false)
            .map_err(|e| Failure::BadInput(e.into()))?;
        crate::emit(&format!(
            "{}: ok (sweep: {} runs over {})\n",
            file.display(),
            plan.len(),
            sweep
                .axes
                .iter()
                .map(|a| a.key.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok(());
    }
    if max_runs.is_some() {
        // The run limit is a sweep's; refused rather than ignored, as --max-output is above.
        return Err(Failure::BadInput(anyhow::anyhow!(
            "{}: --max-runs applies to sweep files, and this is a scenario file",
            file.display()
        )));
    }
    let scenario = crate::commands::run::load_checked(file, overrides, max_output)?;
    // The dumbbell's line is the one every earlier version printed.
    let network = match &scenario.topology {
        cclab_scenario::Topology::Dumbbell(d) => {
            format!("bottleneck: {} bit/s", d.bottleneck.rate_bps)
        }
        other => format!(
            "{}: {} reported links, fastest {} bit/s",
            other.kind(),
            scenario.reported_links(),
            other.fastest_rate_bps()
        ),
    };
    // Workloads' flows arrive during the run: their expected number.
    let workloads = scenario
        .flows
        .iter()
        .filter(|g| g.kind.workload().is_some())
        .count();
    let arrivals = match workloads {
        0 => String::new(),
        n => format!(
            " + {n} workload{} (about {} short flows)",
            if n == 1 { "" } else { "s" },
            scenario.expected_arrivals()
        ),
    };
    crate::emit(&format!(
        "{}: ok (flows: {}{arrivals}, duration: {} s, {network}, base RTT: {}, output about {})\n",
        file.display(),
        scenario.flow_count(),
        scenario.duration.as_secs_f64(),
        scenario.base_rtt(),
        cclab_scenario::format_bytes(scenario.output_estimate().total_bytes())
    ));
    Ok(())
}
