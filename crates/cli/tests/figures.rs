//! Every example produces its figures: `cclab run` (or `cclab sweep` for sweep files) on each
//! file in examples/, shortened to a few simulated seconds to keep the suite fast, must
//! write the output folder and the SVG and PNG figures without error.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Simulated seconds at most per run here; examples may run for minutes.
const CAP_S: f64 = 1.0;

/// Scenario files in examples/ and sweep files in examples/sweeps/.
fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<PathBuf> = [root.clone(), root.join("sweeps")]
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// `--set` overrides that shorten a scenario: its duration to `CAP_S`, a steady window or
/// flow starts past the new end to half of it (a flow starting after the end is refused).
fn shorten(s: &cclab_scenario::Scenario) -> Vec<String> {
    let mut sets = Vec::new();
    if s.duration.as_secs_f64() > CAP_S {
        sets.push(format!("duration={CAP_S}s"));
        if s.output.steady_from.as_secs_f64() >= CAP_S {
            sets.push(format!("output.steady_from={}s", CAP_S / 2.0));
        }
        for (i, group) in s.flows.iter().enumerate() {
            if group.start.as_secs_f64() >= CAP_S {
                sets.push(format!("flows.{i}.start={}s", CAP_S / 2.0));
            }
        }
    }
    sets
}

fn figures(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("figures"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn every_example_draws_its_figures() {
    let scratch = std::env::temp_dir().join(format!("cclab-figures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    for file in examples() {
        let text = std::fs::read_to_string(&file).unwrap();
        let is_sweep = text.lines().any(|l| l.trim() == "[sweep]");
        let out = scratch.join(format!(
            "{}-{}",
            if is_sweep { "sweep" } else { "run" },
            file.file_stem().unwrap().to_string_lossy()
        ));
        let (command, sets) = if is_sweep {
            let sweep = cclab_scenario::load_sweep(&file, &[]).unwrap();
            let runs = sweep.expand().unwrap();
            ("sweep", shorten(&runs[0].scenario))
        } else {
            ("run", shorten(&cclab_scenario::load(&file, &[]).unwrap()))
        };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cclab"));
        cmd.arg(command)
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .arg("--quiet");
        for set in &sets {
            cmd.args(["--set", set]);
        }
        let output = cmd.output().unwrap();
        assert!(
            output.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let names = figures(&out);
        if is_sweep {
            assert!(
                names.iter().any(|n| n.ends_with(".svg"))
                    && names.iter().any(|n| n.ends_with(".png")),
                "{}: {names:?}",
                file.display()
            );
        } else {
            for figure in ["cwnd", "rtt", "throughput", "queue"] {
                for ext in ["svg", "png"] {
                    let name = format!("{figure}.{ext}");
                    assert!(
                        names.contains(&name),
                        "{}: no {name} in {names:?}",
                        file.display()
                    );
                }
            }
            for csv in ["summary.json", "timeseries.csv", "queue.csv", "rates.csv"] {
                assert!(out.join(csv).exists(), "{}: no {csv}", file.display());
            }
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn plot_command_redraws_and_rejects_what_is_not_an_output_folder() {
    let scratch = std::env::temp_dir().join(format!("cclab-plot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dumbbell.toml");
    let run = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--no-plots",
            "--out",
        ])
        .arg(&scratch)
        .args(["--set", "duration=3s", "--set", "output.trace_packets=[0]"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(figures(&scratch).is_empty(), "--no-plots draws nothing");
    let plot = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .arg("plot")
        .arg(&scratch)
        .args(["--format", "svg", "--from", "0.5s", "--to", "2s"])
        .output()
        .unwrap();
    assert!(
        plot.status.success(),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    assert_eq!(
        figures(&scratch),
        [
            "cwnd.svg",
            "queue.svg",
            "rtt.svg",
            "sequence-flow0.svg",
            "throughput.svg"
        ]
    );
    for (args, words) in [
        (vec!["plot", "/nonexistent/folder"], "not an output folder"),
        (
            vec!["plot", scratch.to_str().unwrap(), "--format", "gif"],
            "--format gif",
        ),
        (
            vec!["plot", scratch.to_str().unwrap(), "--from", "soon"],
            "--from soon",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cclab"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{stderr}");
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
