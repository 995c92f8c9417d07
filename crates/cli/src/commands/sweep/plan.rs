//! `cclab sweep plan FILE.toml`: the deterministic run list of a sweep (index, run id,
//! parameters, replicate, seed) and how many tasks a job array needs to run one each.

use std::fmt::Write;
use std::path::Path;

use anyhow::anyhow;
use cclab_scenario::load_sweep;
use cclab_scenario::sweep::DEFAULT_MAX_RUNS;

use crate::Failure;

pub fn plan(path: &Path, overrides: &[String], max_runs: Option<u64>) -> Result<(), Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let sweep = load_sweep(path, overrides).map_err(|e| bad(e.into()))?;
    let plan = sweep
        .plan(max_runs.unwrap_or(DEFAULT_MAX_RUNS))
        .map_err(|e| bad(e.into()))?;
    if plan.is_empty() {
        return Err(bad(anyhow!("{}: the sweep has no runs", path.display())));
    }
    let mut text = String::new();
    let first = plan.run(0).map_err(|e| bad(e.into()))?;
    let runs = plan.len();
    let _ = writeln!(
        text,
        "# sweep {}: {runs} runs; a job array of {runs} tasks runs one each (`cclab sweep slurm` writes one with --tasks N for fewer)",
        first.scenario.name
    );
    let mut header = vec!["index".to_string(), "run".to_string()];
    header.extend(first.params.iter().map(|(key, _)| key.clone()));
    header.extend(["replicate".to_string(), "seed".to_string()]);
    let _ = writeln!(text, "{}", header.join("\t"));
    for index in 0..runs {
        // Only the parameters are printed, but every run is built (and so validated) as the
        // sweep would build it.
        let run = plan.run(index).map_err(|e| bad(e.into()))?;
        let mut fields = vec![index.to_string(), run.id];
        fields.extend(run.params.into_iter().map(|(_, value)| value));
        fields.extend([run.replicate.to_string(), run.seed.to_string()]);
        let _ = writeln!(text, "{}", fields.join("\t"));
    }
    crate::emit(&text);
    Ok(())
}
