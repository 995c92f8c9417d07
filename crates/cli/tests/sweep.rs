//! `cclab sweep` end to end: grid size, resumption after a kill, shards merged, bad keys.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn cclab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 2 algorithms × 3 rates × 2 seeds = 12 short runs. Random loss makes the seeds matter.
const SWEEP: &str = r#"
name = "grid"
duration = "3s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "1bdp", loss = 0.001 }
[[flows]]
cc = "reno"
[output]
steady_from = "1s"
[sweep]
"topology.bottleneck.rate" = ["5Mbps", "10Mbps", "20Mbps"]
"flows.0.cc" = ["reno", "westwood"]
seeds = 2
"#;

fn write_sweep(dir: &Path) -> PathBuf {
    let file = dir.join("grid.toml");
    std::fs::write(&file, SWEEP).unwrap();
    file
}

fn run(args: &[&str]) -> Output {
    let out = cclab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "cclab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn sweep(file: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn rows_in(dir: &Path) -> Vec<PathBuf> {
    let mut rows: Vec<PathBuf> = std::fs::read_dir(dir.join("rows"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    rows.sort();
    rows
}

#[test]
fn grid_gives_one_row_per_run_and_is_deterministic() {
    let dir = scratch("grid");
    let file = write_sweep(&dir);
    let first = dir.join("a");
    let again = dir.join("b");
    let out = sweep(&file, &first, &["--jobs", "2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("12 runs; 0 already done, running 12"));
    let csv = std::fs::read_to_string(first.join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 13, "header + 12 rows");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(
        &header[..5],
        [
            "run_id",
            "flows.0.cc",
            "topology.bottleneck.rate",
            "replicate",
            "seed"
        ]
    );
    assert!(header.contains(&"aggregate.utilization"));
    assert!(!header.iter().any(|h| h.contains("wall")));
    // Every (cc, rate, replicate) once, in grid order; seeds differ between replicates.
    let cells: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        (cells[0][1], cells[0][2], cells[0][3]),
        ("reno", "5Mbps", "0")
    );
    assert_eq!(
        (cells[11][1], cells[11][2], cells[11][3]),
        ("westwood", "20Mbps", "1")
    );
    assert_ne!(cells[0][4], cells[1][4]);
    // The same sweep with another number of jobs: byte-identical results.
    sweep(&file, &again, &["--jobs", "1"]);
    assert_eq!(
        std::fs::read_to_string(again.join("results.csv")).unwrap(),
        csv
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn killed_sweep_resumes_without_redoing_runs() {
    let dir = scratch("resume");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    let mut child = cclab()
        .args([
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--jobs", "1", "--no-plots", "--set", "duration=6s"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some, but (most likely) not all, runs are recorded.
    let deadline = Instant::now() + Duration::from_secs(120);
    while rows_in(&out).len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = rows_in(&out);
    assert!(
        done.len() >= 3,
        "the sweep recorded runs before it was killed"
    );
    eprintln!("killed after {} of 12 runs", done.len());
    let before: Vec<(PathBuf, std::time::SystemTime, Vec<u8>)> = done
        .iter()
        .map(|p| {
            (
                p.clone(),
                std::fs::metadata(p).unwrap().modified().unwrap(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect();

    let output = sweep(&file, &out, &["--jobs", "2", "--set", "duration=6s"]);
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let expected = format!("{} already done, running {}", done.len(), 12 - done.len());
    assert!(stdout.contains(&expected), "{stdout}");
    assert_eq!(rows_in(&out).len(), 12);
    for (path, modified, bytes) in before {
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 13);

    // The same rows as an uninterrupted sweep.
    let fresh = dir.join("fresh");
    sweep(&file, &fresh, &["--set", "duration=6s"]);
    assert_eq!(
        std::fs::read_to_string(fresh.join("results.csv")).unwrap(),
        csv
    );
    // A different sweep may not reuse the folder.
    let other = cclab()
        .args([
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--no-plots", "--set", "duration=2s"])
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("different sweep"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merged_equal_the_full_sweep() {
    let dir = scratch("shards");
    let file = write_sweep(&dir);
    let (full, one, two, merged) = (
        dir.join("full"),
        dir.join("one"),
        dir.join("two"),
        dir.join("merged"),
    );
    sweep(&file, &full, &[]);
    let out = sweep(&file, &one, &["--shard", "1/2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("shard 1/2 has 6"));
    sweep(&file, &two, &["--shard", "2/2"]);
    assert_eq!(rows_in(&one).len(), 6);
    assert_eq!(rows_in(&two).len(), 6);
    run(&[
        "sweep",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        one.to_str().unwrap(),
        two.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(merged.join("results.csv")).unwrap(),
        std::fs::read_to_string(full.join("results.csv")).unwrap()
    );
    // The merged folder has the sweep's figures.
    assert!(merged.join("figures").read_dir().unwrap().count() > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_sweeps_fail_with_the_key_and_exit_2() {
    let dir = scratch("bad");
    for (grid, words) in [
        (
            "\"topology.bottleneck.rat\" = [\"1Mbps\"]",
            "topology.bottleneck.rat",
        ),
        ("\"flows.2.cc\" = [\"reno\"]", "flows.2.cc"),
        ("\"flows.0.cc\" = [\"nosuch\"]", "nosuch"),
        ("\"duration\" = \"1s\"", "non-empty list"),
    ] {
        let file = dir.join("bad.toml");
        std::fs::write(
            &file,
            format!("duration = \"1s\"\n[topology]\nbottleneck = {{ rate = \"1Mbps\", delay = \"1ms\" }}\n[[flows]]\ncc = \"reno\"\n[sweep]\n{grid}\n"),
        )
        .unwrap();
        let out = cclab()
            .args(["sweep", file.to_str().unwrap(), "--out"])
            .arg(dir.join("o"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{grid}: {stderr}");
        assert!(
            stderr.contains("[sweep]") && stderr.contains(words),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(!stderr.contains("panicked"));
    }
    let out = cclab()
        .args(["sweep", "nosuch.toml", "--shard", "3/2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn keep_runs_keeps_each_runs_folder() {
    let dir = scratch("keep");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    sweep(&file, &out, &["--shard", "1/6", "--keep-runs"]);
    let rows = rows_in(&out);
    assert_eq!(rows.len(), 2);
    for row in rows {
        let id = row.file_stem().unwrap();
        let run = out.join("runs").join(id);
        for file in ["summary.json", "timeseries.csv", "queue.csv", "rates.csv"] {
            assert!(run.join(file).exists(), "{} has no {file}", run.display());
        }
    }
    // Without the flag only the rows are kept.
    let lean = dir.join("lean");
    sweep(&file, &lean, &["--shard", "1/6"]);
    assert!(!lean.join("runs").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_validates_every_run_and_run_points_to_sweep() {
    let dir = scratch("check");
    let file = write_sweep(&dir);
    let out = run(&["check", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok (sweep: 12 runs"));
    let out = cclab()
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(dir.join("o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cclab sweep"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A base scenario of 0.2 s runs plus `grid` as its `[sweep]` table.
fn small_sweep(dir: &Path, grid: &str) -> PathBuf {
    let file = dir.join("small.toml");
    std::fs::write(
        &file,
        format!("name = \"small\"\nduration = \"200ms\"\n[topology]\nbottleneck = {{ rate = \"1Mbps\", delay = \"5ms\" }}\n[[flows]]\ncc = \"reno\"\n[sweep]\n{grid}\n"),
    )
    .unwrap();
    file
}

#[test]
fn oversized_grids_are_refused_with_their_size_and_exit_2() {
    let dir = scratch("huge");
    let out_dir = dir.join("o");
    let thousand = |key: &str| {
        let values: Vec<String> = (1..=1000).map(|i| format!("\"{i}ms\"")).collect();
        format!("\"{key}\" = [{}]\n", values.join(", "))
    };
    // 1000³ = 10⁹ runs (this used to abort on a 328 GB allocation); 9·10¹⁸ seeds (this used
    // to panic with "capacity overflow").
    let huge = format!(
        "{}{}{}",
        thousand("duration"),
        thousand("flows.0.extra_rtt"),
        thousand("topology.access.delay")
    );
    for (grid, size) in [
        (
            huge.as_str(),
            "1000000000 runs (1000 × 1000 × 1000 values × 1 seed)",
        ),
        (
            "seeds = 9000000000000000000",
            "9000000000000000000 runs (9000000000000000000 seeds)",
        ),
    ] {
        let file = small_sweep(&dir, grid);
        for command in ["sweep", "check"] {
            let mut args = vec![command, file.to_str().unwrap()];
            if command == "sweep" {
                args.extend(["--no-plots", "--out", out_dir.to_str().unwrap()]);
            }
            let out = cclab().args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
            assert!(stderr.contains(size), "{stderr}");
            assert!(stderr.contains("more than the limit of 100000"), "{stderr}");
            assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        }
    }
    // Nothing was planned into the folder.
    assert!(!out_dir.join("sweep.json").exists());
    // --max-runs raises the limit: 3 runs against a limit of 2, then of 3.
    let file = small_sweep(&dir, "duration = [\"100ms\", \"200ms\", \"300ms\"]");
    let out = cclab()
        .args(["check", file.to_str().unwrap(), "--max-runs", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("3 runs (3 values × 1 seed), more than the limit of 2")
    );
    run(&["check", file.to_str().unwrap(), "--max-runs", "3"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jobs_are_capped_at_the_runs_to_do() {
    let dir = scratch("jobs");
    // 2 runs with --jobs 100000: 2 threads, and the command says it capped them.
    let file = small_sweep(&dir, "duration = [\"100ms\", \"200ms\"]");
    let out = sweep(&file, &dir.join("o"), &["--jobs", "100000"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("running 2 on 2 threads (--jobs 100000 capped"),
        "{stdout}"
    );
    assert_eq!(rows_in(&dir.join("o")).len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--keep-runs` writes every run's folder, so each run is held to the output-size limit
/// as `cclab run` is: 3 s sampled every 1 µs is 3 000 000 rows of timeseries.csv per run,
/// far over a 1 MB limit. Without `--keep-runs` the runs write only their rows and go ahead.
#[test]
fn kept_runs_are_held_to_the_output_size_limit() {
    let dir = scratch("keep-limit");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    let refused = cclab()
        .args([
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--keep-runs", "--no-plots", "--quiet"])
        .args([
            "--set",
            "output.interval=1us",
            "--set",
            "output.max_size=1MB",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(stderr.contains("output.interval"), "{stderr}");
    assert!(!out.exists(), "nothing is written before the refusal");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep killed while writing leaves `.ID.json.tmp` rows and a `.sweep.json.tmp`; the next
/// run of the same sweep removes them and keeps its finished rows.
#[test]
fn a_rerun_removes_half_written_rows() {
    let dir = scratch("stale-rows");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    sweep(&file, &out, &["--quiet", "--shard", "1/6"]);
    std::fs::write(out.join("rows").join(".deadbeef.json.tmp"), "{").unwrap();
    std::fs::write(out.join(".sweep.json.tmp"), "{").unwrap();
    sweep(&file, &out, &["--quiet"]);
    assert!(!out.join("rows").join(".deadbeef.json.tmp").exists());
    assert!(!out.join(".sweep.json.tmp").exists());
    let rows = std::fs::read_dir(out.join("rows")).unwrap().count();
    assert_eq!(rows, 12, "2 algorithms × 3 rates × 2 seeds");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The tasks of a job array: four slices, started together with Slurm's variables and
/// `--shard auto`, writing into one folder. The last to finish gathers results.csv, which is
/// the unsplit sweep's.
#[test]
fn array_tasks_sharing_one_folder_equal_the_full_sweep() {
    let dir = scratch("array");
    let file = write_sweep(&dir);
    let (full, shared) = (dir.join("full"), dir.join("shared"));
    sweep(&file, &full, &[]);
    let tasks: Vec<std::process::Child> = (1..=4)
        .map(|task| {
            cclab()
                .args(["sweep", file.to_str().unwrap(), "--out"])
                .arg(&shared)
                .args(["--no-plots", "--shard", "auto", "--jobs", "1"])
                .env("SLURM_ARRAY_TASK_ID", task.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "4")
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for task in tasks {
        let out = task.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(rows_in(&shared).len(), 12);
    assert_eq!(
        std::fs::read_to_string(shared.join("results.csv")).unwrap(),
        std::fs::read_to_string(full.join("results.csv")).unwrap()
    );
    // Nothing is left behind: no lock, no temporaries.
    let leftovers: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let status = run(&["sweep", "status", shared.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&status.stdout).contains("12 runs: 12 done, 0 failed, 0 missing")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sweep status`: done runs have rows, failed ones a failure record, the rest are missing;
/// exit 1 until all are done, and a re-run finishes them.
#[test]
fn status_counts_done_failed_and_missing_runs() {
    let dir = scratch("status");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    sweep(&file, &out, &["--shard", "1/2"]);
    let plan = run(&["sweep", "plan", file.to_str().unwrap()]);
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    // The second slice's first run (index 1) is made to fail: its kept-run folder is a file.
    let failing = plan
        .lines()
        .find(|l| l.starts_with("1\t"))
        .and_then(|l| l.split('\t').nth(1))
        .unwrap()
        .to_string();
    std::fs::create_dir_all(out.join("runs")).unwrap();
    std::fs::write(out.join("runs").join(&failing), "in the way").unwrap();
    let second = cclab()
        .args(["sweep", file.to_str().unwrap(), "--out"])
        .arg(&out)
        .args(["--no-plots", "--shard", "2/2", "--keep-runs"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    let status = cclab()
        .args(["sweep", "status"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(1));
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("12 runs: 11 done, 1 failed, 0 missing"),
        "{text}"
    );
    assert!(text.contains(&format!("  {failing}: ")), "{text}");
    // Without the obstacle the failed run succeeds on the next attempt and its record goes.
    std::fs::remove_file(out.join("runs").join(&failing)).unwrap();
    sweep(&file, &out, &["--shard", "2/2", "--keep-runs"]);
    let status = run(&["sweep", "status", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&status.stdout).contains("12 done, 0 failed, 0 missing"));
    assert!(!out.join("failed").join(format!("{failing}.txt")).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sweep plan` lists the runs in the sweep's order with the ids the sweep records.
#[test]
fn plan_lists_every_run_with_its_recorded_id() {
    let dir = scratch("plan");
    let file = write_sweep(&dir);
    let full = dir.join("full");
    sweep(&file, &full, &[]);
    let plan = run(&["sweep", "plan", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&plan.stdout).into_owned();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().contains("12 runs"));
    assert_eq!(
        lines.next().unwrap(),
        "index\trun\tflows.0.cc\ttopology.bottleneck.rate\treplicate\tseed"
    );
    let ids: Vec<&str> = lines.map(|l| l.split('\t').nth(1).unwrap()).collect();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(full.join("sweep.json")).unwrap()).unwrap();
    let recorded: Vec<&str> = manifest["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(ids, recorded);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sweep slurm` writes the script and the shared folder's sweep.json, submits nothing, and
/// refuses a bad time limit or task count with one sentence.
#[test]
fn slurm_writes_an_array_script_and_prepares_the_folder() {
    let dir = scratch("slurm");
    let file = write_sweep(&dir);
    let out = dir.join("out");
    let written = run(&[
        "sweep",
        "slurm",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--tasks",
        "4",
        "--cpus",
        "2",
        "--partition",
        "debug",
        "--time",
        "0:30:00",
    ]);
    assert!(String::from_utf8_lossy(&written.stdout).contains("sbatch"));
    let script = std::fs::read_to_string(out.join("slurm").join("grid.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=1-4",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=debug",
        "#SBATCH --time=0:30:00",
    ] {
        assert!(script.lines().any(|l| l == line), "{line} in {script}");
    }
    assert!(script.contains("--shard auto"));
    assert!(out.join("sweep.json").exists());
    for (flag, value, problem) in [
        ("--time", "2h", "Slurm's format"),
        ("--tasks", "13", "between 1 and 12"),
    ] {
        let refused = cclab()
            .args(["sweep", "slurm", file.to_str().unwrap(), "--out"])
            .arg(&out)
            .args([flag, value])
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&refused.stderr).contains(problem));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
