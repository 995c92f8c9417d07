//! `cclab sweep slurm FILE.toml`: write an `sbatch` script that runs a sweep as a Slurm job
//! array into one shared output folder (it does not submit it).
//!
//! Each array task runs `cclab sweep FILE --shard auto`, which takes its slice from
//! SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT and runs it on the task's cores; rows are
//! written atomically into the shared folder, so a re-submitted array skips finished runs, and
//! the task that completes the sweep writes `results.csv` and the figures. The folder and its
//! `sweep.json` are created here, before any task starts.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use cclab_analysis::results::SweepManifest;
use cclab_scenario::load_sweep;
use cclab_scenario::sweep::DEFAULT_MAX_RUNS;

use super::runner::{manifest_of, validate};
use crate::Failure;

/// Slurm's default MaxArraySize is 1001: task indexes up to 1000.
const MAX_TASKS: usize = 1000;

pub struct SlurmArgs {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub overrides: Vec<String>,
    pub max_runs: Option<u64>,
    pub tasks: Option<usize>,
    pub cpus: usize,
    pub partition: Option<String>,
    pub time: Option<String>,
    /// Where to write the script (default DIR/slurm/sweep.sbatch).
    pub script: Option<PathBuf>,
}

pub fn slurm(args: SlurmArgs) -> Result<(), Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    if let Some(time) = &args.time {
        check_time(time).map_err(|m| bad(anyhow!("--time {time}: {m}")))?;
    }
    if let Some(partition) = &args.partition
        && (partition.is_empty() || partition.chars().any(|c| c.is_whitespace() || c == '\''))
    {
        return Err(bad(anyhow!(
            "--partition {partition:?}: a partition name has no spaces or quotes"
        )));
    }
    if args.cpus == 0 {
        return Err(bad(anyhow!("--cpus 0: a task needs at least one core")));
    }
    let sweep = load_sweep(&args.file, &args.overrides).map_err(|e| bad(e.into()))?;
    let max_runs = args.max_runs.unwrap_or(DEFAULT_MAX_RUNS);
    let plan = sweep.plan(max_runs).map_err(|e| bad(e.into()))?;
    let validated = validate(&plan, false).map_err(|e| bad(e.into()))?;
    let runs = validated.ids.len();
    if runs == 0 {
        return Err(bad(anyhow!(
            "{}: the sweep has no runs",
            args.file.display()
        )));
    }
    let tasks = args.tasks.unwrap_or(runs.min(MAX_TASKS));
    if tasks == 0 || tasks > runs {
        return Err(bad(anyhow!(
            "--tasks {tasks}: give between 1 and {runs} (the sweep's runs)"
        )));
    }
    let name = plan.run(0).map_err(|e| bad(e.into()))?.scenario.name;
    let dir =
        absolute(&args.out.unwrap_or_else(|| PathBuf::from("out").join(&name))).map_err(failed)?;
    let manifest = manifest_of(&sweep, name.clone(), validated.ids);
    match SweepManifest::read(&dir) {
        Ok(existing) if existing.fingerprint != manifest.fingerprint => {
            return Err(bad(anyhow!(
                "{}: holds the results of a different sweep; choose another --out or delete the folder",
                dir.display()
            )));
        }
        Ok(_) => {}
        Err(_) => {
            std::fs::create_dir_all(dir.join("rows"))
                .and_then(|()| manifest.write(&dir))
                .with_context(|| format!("cannot write the sweep folder {}", dir.display()))
                .map_err(failed)?;
        }
    }
    let logs = dir.join("slurm");
    std::fs::create_dir_all(&logs)
        .with_context(|| format!("cannot create {}", logs.display()))
        .map_err(failed)?;
    let script_path = args
        .script
        .unwrap_or_else(|| logs.join(format!("{name}.sbatch")));
    let cclab = std::env::current_exe()
        .context("cannot find the cclab executable")
        .map_err(failed)?;
    let file = absolute(&args.file).map_err(failed)?;
    let script = script_text(&ScriptInput {
        name: &name,
        runs,
        tasks,
        cpus: args.cpus,
        partition: args.partition.as_deref(),
        time: args.time.as_deref(),
        cclab: &cclab,
        file: &file,
        dir: &dir,
        overrides: &args.overrides,
        max_runs: args.max_runs,
    });
    cclab_analysis::output::write_atomic(&script_path, script.as_bytes())
        .with_context(|| format!("cannot write {}", script_path.display()))
        .map_err(failed)?;
    crate::emit(&format!(
        "wrote {}: {runs} runs in an array of {tasks} tasks of {} core(s) each, into {}\nsubmit with: sbatch {}\nfollow with: cclab sweep status {}\n",
        script_path.display(),
        args.cpus,
        dir.display(),
        script_path.display(),
        dir.display()
    ));
    Ok(())
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

struct ScriptInput<'a> {
    name: &'a str,
    runs: usize,
    tasks: usize,
    cpus: usize,
    partition: Option<&'a str>,
    time: Option<&'a str>,
    cclab: &'a Path,
    file: &'a Path,
    dir: &'a Path,
    overrides: &'a [String],
    max_runs: Option<u64>,
}

/// The `sbatch` script: one array task per slice, each running its slice with `--shard auto`
/// on the cores Slurm gave it.
fn script_text(input: &ScriptInput<'_>) -> String {
    let quote = |path: &Path| shell_quote(&path.to_string_lossy());
    let mut text = String::new();
    let _ = writeln!(text, "#!/bin/bash");
    let _ = writeln!(
        text,
        "# Written by `cclab sweep slurm` for sweep {}: {} runs in {} array tasks.",
        input.name, input.runs, input.tasks
    );
    let _ = writeln!(
        text,
        "# Submit with `sbatch THIS_FILE`; re-submitting skips finished runs. Progress: `cclab sweep status {}`.",
        input.dir.display()
    );
    // Slurm reads #SBATCH lines only, so the job name is kept to safe characters.
    let job: String = input
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let _ = writeln!(text, "#SBATCH --job-name=cclab-{job}");
    let _ = writeln!(text, "#SBATCH --array=1-{}", input.tasks);
    let _ = writeln!(text, "#SBATCH --ntasks=1");
    let _ = writeln!(text, "#SBATCH --cpus-per-task={}", input.cpus);
    let _ = writeln!(
        text,
        "#SBATCH --output={}",
        input.dir.join("slurm").join("%A_%a.out").display()
    );
    if let Some(partition) = input.partition {
        let _ = writeln!(text, "#SBATCH --partition={partition}");
    }
    if let Some(time) = input.time {
        let _ = writeln!(text, "#SBATCH --time={time}");
    }
    let _ = writeln!(text, "set -euo pipefail");
    let mut command = format!(
        "exec {} sweep {} --out {} --shard auto --jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\" --quiet",
        quote(input.cclab),
        quote(input.file),
        quote(input.dir),
        input.cpus
    );
    if let Some(max_runs) = input.max_runs {
        let _ = write!(command, " --max-runs {max_runs}");
    }
    for set in input.overrides {
        let _ = write!(command, " --set {}", shell_quote(set));
    }
    let _ = writeln!(text, "{command}");
    text
}

/// `text` as one word for bash: single quotes, with each `'` written as `'\''`.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Slurm's time formats (sbatch(1) `--time`): "minutes", "minutes:seconds",
/// "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds".
fn check_time(text: &str) -> Result<(), String> {
    let problem = || {
        "expected Slurm's format: minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 2:00:00)".to_string()
    };
    let numbers = |part: &str| -> Result<usize, String> {
        let fields: Vec<&str> = part.split(':').collect();
        if fields
            .iter()
            .all(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_digit()))
        {
            Ok(fields.len())
        } else {
            Err(problem())
        }
    };
    match text.split_once('-') {
        Some((days, rest)) => {
            numbers(days).ok().filter(|&n| n == 1).ok_or_else(problem)?;
            if numbers(rest)? <= 3 {
                Ok(())
            } else {
                Err(problem())
            }
        }
        None => {
            if numbers(text)? <= 3 {
                Ok(())
            } else {
                Err(problem())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_time_formats() {
        for good in ["30", "30:00", "2:00:00", "1-12", "1-12:30", "1-12:30:00"] {
            assert_eq!(check_time(good), Ok(()), "{good}");
        }
        for bad in ["", "2h", "1:2:3:4", "-5", "1-", "a-1", "1-2-3", "1:x"] {
            assert!(check_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quoting_survives_quotes_and_spaces() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("flows.0.cc='x'"), r"'flows.0.cc='\''x'\'''");
    }

    #[test]
    fn the_script_runs_one_slice_per_array_task() {
        let text = script_text(&ScriptInput {
            name: "grid one",
            runs: 16,
            tasks: 4,
            cpus: 2,
            partition: Some("short"),
            time: Some("1:00:00"),
            cclab: Path::new("/opt/cclab"),
            file: Path::new("/home/u/grid.toml"),
            dir: Path::new("/scratch/u/out"),
            overrides: &["duration=\"5s\"".to_string()],
            max_runs: None,
        });
        assert!(text.starts_with("#!/bin/bash\n"));
        for line in [
            "#SBATCH --job-name=cclab-grid_one",
            "#SBATCH --array=1-4",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --output=/scratch/u/out/slurm/%A_%a.out",
            "#SBATCH --partition=short",
            "#SBATCH --time=1:00:00",
            "exec '/opt/cclab' sweep '/home/u/grid.toml' --out '/scratch/u/out' --shard auto --jobs \"${SLURM_CPUS_PER_TASK:-2}\" --quiet --set 'duration=\"5s\"'",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }
}
