//! Inputs that `cclab run`, `check` and `plot` must refuse before any work (exit 2, one line
//! naming what is wrong) or handle within stated limits: output size, scenario files that are
//! not small regular files, names used as paths, reused output folders, interrupted runs,
//! flows that start after the end, huge seeds and values, and plot options.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn cclab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
}

fn cclab_in(dir: &Path, args: &[&str]) -> Output {
    cclab().current_dir(dir).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-hardening-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 2 s, one Reno flow at 10 Mbit/s: quick in a debug build.
const SMALL: &str = r#"
name = "small"
duration = "2s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms" }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Exit 2 with one line on stderr that contains every fragment.
fn refused(output: &Output, fragments: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for fragment in fragments {
        assert!(stderr.contains(fragment), "{stderr} lacks {fragment}");
    }
}

fn ok(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

#[test]
fn output_larger_than_the_limit_is_refused_before_any_work() {
    let dir = scratch("limit");
    let file = write(&dir, "small.toml", SMALL);
    let f = file.to_str().unwrap();
    // 2 s / 1 ns = 2e9 samples: timeseries 2e9 × 120 B + queue 2e9 × 50 B = 3.4e11 B, plus
    // rates 20 × 30 B and summary 4000 B: 316.6 GiB.
    let output = cclab_in(&dir, &["run", f, "--set", "output.interval=1ns"]);
    refused(
        &output,
        &[
            "small.toml: output.interval: 1 flow sampled every 1ns for 2s would write about 316.6 GiB",
            "more than the 1.0 GiB limit",
            "--max-output",
        ],
    );
    assert!(
        !dir.join("out").exists(),
        "a refused run created {:?}",
        tree(&dir)
    );
    refused(
        &cclab_in(&dir, &["check", f, "--set", "output.interval=1ns"]),
        &["output.interval"],
    );
    // The limit is the user's to set: lowered below this run's few hundred kB, or lifted.
    refused(
        &cclab_in(&dir, &["run", f, "--max-output", "1KiB", "--no-plots"]),
        &["more than the 1.0 KiB limit"],
    );
    refused(
        &cclab_in(&dir, &["run", f, "--max-output", "lots"]),
        &["--max-output lots:"],
    );
    ok(&cclab_in(
        &dir,
        &[
            "check",
            f,
            "--set",
            "output.interval=1ns",
            "--max-output",
            "unlimited",
        ],
    ));
    // Sweeps do not apply the limit, so the flag is refused there rather than ignored.
    let sweep = write(&dir, "grid.toml", &format!("{SMALL}[sweep]\nseeds = 2\n"));
    refused(
        &cclab_in(
            &dir,
            &["check", sweep.to_str().unwrap(), "--max-output", "1GiB"],
        ),
        &["--max-output applies to scenario files"],
    );
    // Per-packet traces count too: 2 s at 1 Tbit/s in 1500-byte packets is 1.7e8 packets.
    refused(
        &cclab_in(
            &dir,
            &[
                "check",
                f,
                "--set",
                "topology.bottleneck.rate=1Tbps",
                "--set",
                "output.trace_packets=[0]",
            ],
        ),
        &["output.trace_packets: tracing every packet"],
    );
}

/// The estimate is an upper bound of what a run writes, and not a loose one: within 2× for
/// the files that every flow fills from the start.
#[test]
fn output_estimate_bounds_what_a_run_writes() {
    let dir = scratch("estimate");
    let text = format!("{SMALL}count = 3\n[output]\ntrace_packets = [0]\n");
    let file = write(&dir, "small.toml", &text);
    let out = dir.join("run");
    ok(&cclab_in(
        &dir,
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-plots",
        ],
    ));
    let scenario = cclab_scenario::load(&file, &[]).unwrap();
    let estimate = scenario.output_estimate();
    let size = |name: &str| std::fs::metadata(out.join(name)).unwrap().len();
    for (name, bound) in [
        ("timeseries.csv", estimate.timeseries_bytes()),
        ("queue.csv", estimate.queue_bytes()),
        ("rates.csv", estimate.rates_bytes()),
        ("packets.csv", estimate.packets_bytes()),
        ("summary.json", estimate.summary_bytes()),
    ] {
        let actual = size(name);
        assert!(
            actual <= bound,
            "{name}: {actual} B written, {bound} B estimated"
        );
        if name != "packets.csv" {
            // The traced flow gets a third of the link, so its trace is a third of the bound.
            assert!(
                2 * actual >= bound,
                "{name}: {actual} B written, {bound} B estimated"
            );
        }
    }
}

#[test]
fn scenario_files_must_be_small_regular_files() {
    let dir = scratch("files");
    for command in ["run", "check"] {
        if Path::new("/dev/zero").exists() {
            refused(
                &cclab_in(&dir, &[command, "/dev/zero"]),
                &["/dev/zero: is not a regular file"],
            );
        }
        refused(
            &cclab_in(&dir, &[command, dir.to_str().unwrap()]),
            &["is a folder"],
        );
    }
    // 1 MiB of comments and then one byte more.
    let big = write(&dir, "big.toml", &"#".repeat(1024 * 1024 + 1));
    refused(
        &cclab_in(&dir, &["check", big.to_str().unwrap()]),
        &["big.toml: is larger than 1024 KiB"],
    );
}

#[test]
fn names_cannot_leave_the_output_folder() {
    let dir = scratch("names");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let file = write(&work, "small.toml", SMALL);
    for name in ["../../x", "/tmp/cclab-x", "a\nb", ".."] {
        let set = format!("name={name:?}");
        let output = cclab_in(&work, &["run", file.to_str().unwrap(), "--set", &set]);
        refused(&output, &["small.toml: name: "]);
    }
    // Nothing was written anywhere: not in work/out, not beside it.
    assert_eq!(tree(&dir), ["work", "work/small.toml"]);
}

const TRACED: [&str; 2] = ["--set", "output.trace_packets=[0]"];

#[test]
fn a_reused_run_folder_holds_only_the_new_run() {
    let dir = scratch("reuse");
    let file = write(&dir, "small.toml", SMALL);
    let f = file.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    ok(&cclab_in(
        &dir,
        &["run", f, "--out", o, TRACED[0], TRACED[1]],
    ));
    assert!(out.join("packets.csv").exists());
    assert!(out.join("figures/sequence-flow0.svg").exists());
    // Leftovers of a killed run: a staging folder beside, a temporary file inside.
    std::fs::create_dir_all(dir.join(".out.cclab-run.tmp")).unwrap();
    write(&dir, ".out.cclab-run.tmp/timeseries.csv", "stale");
    write(&out, ".timeseries.csv.tmp", "stale");
    ok(&cclab_in(
        &dir,
        &["run", f, "--out", o, "--set", "flows.0.cc=cubic"],
    ));
    let files = tree(&out);
    assert!(
        !files
            .iter()
            .any(|f| f.contains("packets") || f.contains("sequence")),
        "{files:?}"
    );
    assert!(!files.iter().any(|f| f.ends_with(".tmp")), "{files:?}");
    assert!(!dir.join(".out.cclab-run.tmp").exists());
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"cc\": \"cubic\""), "{summary}");

    // A file cclab does not write: refused, and kept.
    write(&out, "notes.txt", "mine");
    refused(
        &cclab_in(&dir, &["run", f, "--out", o]),
        &["holds `notes.txt`, which cclab run does not write"],
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    std::fs::remove_file(out.join("notes.txt")).unwrap();

    // A sweep into a run folder, a run into a sweep folder: refused.
    let sweep_file = write(
        &dir,
        "grid.toml",
        &format!("{SMALL}[sweep]\n\"flows.0.cc\" = [\"reno\", \"cubic\"]\n"),
    );
    refused(
        &cclab_in(
            &dir,
            &[
                "sweep",
                sweep_file.to_str().unwrap(),
                "--out",
                o,
                "--no-plots",
            ],
        ),
        &["is the folder of a cclab run"],
    );
    let sweep_out = dir.join("sweep");
    ok(&cclab_in(
        &dir,
        &[
            "sweep",
            sweep_file.to_str().unwrap(),
            "--out",
            sweep_out.to_str().unwrap(),
            "--no-plots",
            "--quiet",
        ],
    ));
    refused(
        &cclab_in(&dir, &["run", f, "--out", sweep_out.to_str().unwrap()]),
        &["is the folder of a sweep"],
    );
}

#[cfg(unix)]
#[test]
fn sigterm_removes_the_temporary_files() {
    let dir = scratch("sigterm");
    // Long enough to be caught in the middle: 600 s simulated.
    let file = write(&dir, "long.toml", &SMALL.replace("\"2s\"", "\"600s\""));
    let out = dir.join("out");
    let staging = dir.join(".out.cclab-run.tmp");
    let child = cclab()
        .current_dir(&dir)
        .args([
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(TRACED)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run is writing (not a timing assertion: a cap against hanging).
    let started = Instant::now();
    while !staging.join(".packets.csv.tmp").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().unwrap();
    // 130: interrupted (128 + SIGINT, the shell's convention, for every signal handled).
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    assert_eq!(tree(&dir), ["long.toml"]);
}

#[test]
fn flows_starting_after_the_end_are_refused() {
    let dir = scratch("start");
    let file = write(&dir, "small.toml", SMALL);
    for command in ["run", "check"] {
        refused(
            &cclab_in(
                &dir,
                &[command, file.to_str().unwrap(), "--set", "flows.0.start=2s"],
            ),
            &["small.toml: flows.0.start: 2s is at or after the end of the run (duration 2s)"],
        );
    }
}

#[test]
fn huge_seeds_and_values() {
    let dir = scratch("values");
    let file = write(&dir, "small.toml", SMALL);
    let f = file.to_str().unwrap();
    ok(&cclab_in(
        &dir,
        &["check", f, "--set", "seed=18446744073709551615"],
    ));
    let in_file = write(
        &dir,
        "seed.toml",
        &format!("seed = 18446744073709551615\n{SMALL}"),
    );
    refused(
        &cclab_in(&dir, &["check", in_file.to_str().unwrap()]),
        &["seed.toml: line 1", "seed = \"18446744073709551615\""],
    );
    let long = "z".repeat(100_000);
    let output = cclab_in(&dir, &["check", f, "--set", &format!("flows.0.cc={long}")]);
    refused(&output, &["flows.0.cc: unknown algorithm `zzzzzzzzzz"]);
    // At most 40 of the 100 000 characters come back.
    assert!(!String::from_utf8_lossy(&output.stderr).contains(&"z".repeat(41)));
}

#[test]
fn start_jitter_makes_seeds_differ() {
    let dir = scratch("jitter");
    let text = SMALL.replace(
        "cc = \"reno\"",
        "cc = \"reno\"\ncount = 2\nstart_jitter = \"100ms\"",
    );
    let file = write(&dir, "small.toml", &text);
    let starts = |seed: &str| {
        let out = dir.join(format!("seed{seed}"));
        ok(&cclab_in(
            &dir,
            &[
                "run",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--no-plots",
                "--set",
                &format!("seed={seed}"),
            ],
        ));
        let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
        summary
            .lines()
            .filter(|l| l.trim_start().starts_with("\"start_s\""))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (a, b) = (starts("1"), starts("2"));
    assert_eq!(a.len(), 2);
    assert_ne!(a, b);
    assert_eq!(a, starts("1"));
}

#[test]
fn plot_options_that_mean_nothing_are_refused() {
    let dir = scratch("plot");
    let file = write(&dir, "small.toml", SMALL);
    let run = dir.join("run");
    let r = run.to_str().unwrap();
    ok(&cclab_in(
        &dir,
        &["run", file.to_str().unwrap(), "--out", r],
    ));
    refused(
        &cclab_in(&dir, &["plot", r, "--from", "1.5s", "--to", "0.5s"]),
        &["--from 1.5s is not before --to 0.5s"],
    );
    refused(
        &cclab_in(&dir, &["plot", r, "--from", "3s"]),
        &["--from 3s is at or after the end of the run (2 s)"],
    );
    for flag in ["--metric", "--x", "--series"] {
        refused(
            &cclab_in(&dir, &["plot", r, flag, "aggregate.utilization"]),
            &[
                &format!("{flag} does not apply to"),
                "which is a run folder",
            ],
        );
    }
    // One format chosen: the other format's figures of an earlier drawing go.
    assert!(run.join("figures/cwnd.svg").exists());
    ok(&cclab_in(&dir, &["plot", r, "--format", "png"]));
    let figures = tree(&run.join("figures"));
    assert!(figures.iter().all(|f| f.ends_with(".png")), "{figures:?}");

    let sweep_file = write(
        &dir,
        "grid.toml",
        &format!(
            "{SMALL}[sweep]\n\"flows.0.cc\" = [\"reno\", \"cubic\"]\n\"topology.bottleneck.rate\" = [\"5Mbps\", \"10Mbps\"]\n"
        ),
    );
    let sweep = dir.join("sweep");
    let s = sweep.to_str().unwrap();
    ok(&cclab_in(
        &dir,
        &[
            "sweep",
            sweep_file.to_str().unwrap(),
            "--out",
            s,
            "--no-plots",
            "--quiet",
        ],
    ));
    refused(
        &cclab_in(
            &dir,
            &["plot", s, "--x", "flows.0.cc", "--series", "flows.0.cc"],
        ),
        &["--x and --series both name `flows.0.cc`"],
    );
    refused(
        &cclab_in(&dir, &["plot", s, "--from", "1s"]),
        &["--from does not apply to", "which is a sweep folder"],
    );
    refused(
        &cclab_in(&dir, &["plot", s, "--x", "flows.0.mss"]),
        &[
            "--x `flows.0.mss` is not a swept key; the sweep varies: flows.0.cc, topology.bottleneck.rate",
        ],
    );
}

#[test]
fn bad_loss_and_jitter_values_are_refused_by_check() {
    // One sentence naming file and key, exit 2 (the full list is in the scenario crate's
    // parse/loss_tests.rs; here the command line's path end to end).
    let dir = scratch("impairments");
    let cases = [
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 1.5, p_bad_to_good = 0.3 }",
            "topology.bottleneck.loss.p_good_to_bad: must be a probability in [0, 1]",
        ),
        (
            "ack_loss = -0.1",
            "topology.bottleneck.ack_loss: must be a probability in [0, 1)",
        ),
        (
            "jitter = { distribution = \"normal\", mean = \"2ms\" }",
            "topology.bottleneck.jitter.stddev: missing",
        ),
        (
            "jitter = { max = \"5ms\", reodrer = true }",
            "topology.bottleneck.jitter.reodrer: unknown key; did you mean `reorder`?",
        ),
    ];
    for (keys, message) in cases {
        let text = SMALL.replace(
            "bottleneck = { rate = \"10Mbps\", delay = \"10ms\" }",
            &format!("bottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", {keys} }}"),
        );
        let file = write(&dir, "impaired.toml", &text);
        refused(
            &cclab_in(&dir, &["check", file.to_str().unwrap()]),
            &[&format!("impaired.toml: {message}")],
        );
    }
}
