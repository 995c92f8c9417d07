//! `cclab sweep merge --out DIR SHARD_DIR...`: gather the rows of shards (run on one machine
//! or many) into one folder and one `results.csv`, identical to the unsplit sweep's.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use cclab_analysis::results::{Row, SweepManifest};

use crate::Failure;

pub fn merge(out: &Path, dirs: &[PathBuf], no_plots: bool, no_report: bool) -> Result<(), Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    let mut manifests = Vec::new();
    for dir in dirs {
        let manifest = SweepManifest::read(dir).map_err(|e| {
            bad(anyhow!(
                "{}: not a sweep folder (cannot read {}: {e})",
                dir.display(),
                SweepManifest::FILE
            ))
        })?;
        manifests.push(manifest);
    }
    let first = &manifests[0];
    for (dir, m) in dirs.iter().zip(&manifests) {
        if m.fingerprint != first.fingerprint {
            return Err(bad(anyhow!(
                "{}: holds a different sweep than {} (base scenario, keys, values or seeds differ); only shards of one sweep can be merged",
                dir.display(),
                dirs[0].display()
            )));
        }
    }
    if let Ok(existing) = SweepManifest::read(out)
        && existing.fingerprint != first.fingerprint
    {
        return Err(bad(anyhow!(
            "{}: holds the results of a different sweep; choose another --out",
            out.display()
        )));
    }
    let rows_dir = out.join("rows");
    std::fs::create_dir_all(&rows_dir)
        .with_context(|| format!("cannot create {}", rows_dir.display()))
        .map_err(failed)?;
    let mut missing = Vec::new();
    for id in &first.runs {
        let mut found: Option<(Row, &Path)> = None;
        for dir in dirs {
            let Some(row) = Row::read(&dir.join("rows"), id) else {
                continue;
            };
            match &found {
                Some((kept, from))
                    if (&kept.columns, &kept.values) != (&row.columns, &row.values) =>
                {
                    return Err(failed(anyhow!(
                        "run {id} has different results in {} and {}; were they run by different versions of cclab?",
                        from.display(),
                        dir.display()
                    )));
                }
                Some(_) => {}
                None => found = Some((row, dir)),
            }
        }
        match found {
            Some((row, _)) => row
                .write(&rows_dir)
                .with_context(|| format!("cannot write in {}", rows_dir.display()))
                .map_err(failed)?,
            None => missing.push(id.clone()),
        }
    }
    first.write(out).map_err(|e| failed(e.into()))?;
    let recorded = first
        .write_results(out)
        .with_context(|| format!("cannot write {}", out.join("results.csv").display()))
        .map_err(failed)?;
    crate::emit(&format!(
        "merged {recorded} of {} runs from {} folders into {}\n",
        first.runs.len(),
        dirs.len(),
        out.join("results.csv").display()
    ));
    if let Some(example) = missing.first() {
        eprintln!(
            "warning: {} runs are in none of the folders (e.g. {example}); run the missing shards and merge again",
            missing.len()
        );
    }
    if !no_plots {
        crate::commands::plot::plot_sweep_folder(out).map_err(failed)?;
    }
    if !no_report {
        // The shards' sweep file is not known here: the report shows what the folder holds.
        crate::commands::report::write(
            out,
            &cclab_analysis::html_report::ReportOptions {
                figures: !no_plots,
                ..Default::default()
            },
        )?;
    }
    Ok(())
}
