//! `cclab sweep status DIR`: how many runs of a sweep folder are done, failed or missing.
//!
//! Done: the run's row is in `rows/`. Failed: `failed/<run id>.txt` records its error and no
//! row exists (a retry that succeeds removes the record). Missing: neither (not run yet, or
//! its task was killed). Exit status 0 when every run is done, 1 otherwise.

use std::fmt::Write;
use std::path::Path;

use anyhow::anyhow;
use cclab_analysis::results::{Row, SweepManifest};

use super::shared_folder;
use crate::Failure;

/// Run ids listed per category before "and N more".
const LISTED: usize = 10;

pub fn status(dir: &Path) -> Result<(), Failure> {
    let manifest = SweepManifest::read(dir).map_err(|e| {
        Failure::BadInput(anyhow!(
            "{}: not a sweep folder (cannot read {}: {e})",
            dir.display(),
            SweepManifest::FILE
        ))
    })?;
    let rows_dir = dir.join("rows");
    let mut failed = Vec::new();
    let mut missing = Vec::new();
    for id in &manifest.runs {
        if Row::path(&rows_dir, id).exists() {
            continue;
        }
        match shared_folder::failure(dir, id) {
            Some(error) => failed.push((id, error)),
            None => missing.push(id),
        }
    }
    let total = manifest.runs.len();
    let done = total - failed.len() - missing.len();
    let mut text = format!(
        "sweep {} in {}: {total} runs: {done} done, {} failed, {} missing\n",
        manifest.name,
        dir.display(),
        failed.len(),
        missing.len()
    );
    if !failed.is_empty() {
        let _ = writeln!(text, "failed (they run again when the sweep is run again):");
        for (id, error) in failed.iter().take(LISTED) {
            let first_line = error.lines().next().unwrap_or("");
            let _ = writeln!(text, "  {id}: {first_line}");
        }
        if failed.len() > LISTED {
            let _ = writeln!(text, "  and {} more", failed.len() - LISTED);
        }
    }
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(LISTED).map(|s| s.as_str()).collect();
        let more = if missing.len() > LISTED {
            format!(" and {} more", missing.len() - LISTED)
        } else {
            String::new()
        };
        let _ = writeln!(text, "missing: {}{more}", shown.join(" "));
    }
    crate::emit(&text);
    if done == total {
        Ok(())
    } else {
        Err(Failure::RunFailed(anyhow!(
            "{}: {} of {total} runs are not done ({} failed, {} missing); run the sweep (or the job array) again to finish them",
            dir.display(),
            total - done,
            failed.len(),
            missing.len()
        )))
    }
}
