//! report.html from the command line: `cclab run` and `cclab sweep` write it unless
//! `--no-report`, `--no-plots` leaves its figures out, the same run gives the same bytes,
//! and `cclab report DIR` (re)writes it for a run or sweep folder (docs/report.md).

mod support;

use std::path::Path;

use support::{cclab, root, run_into, scratch};

fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_run_writes_the_same_report_twice_with_every_figure() {
    let dir = scratch("report", "run");
    let (a, b) = (dir.join("a"), dir.join("b"));
    let file = example("dumbbell.toml");
    for out in [&a, &b] {
        run_into(Path::new(&file), out, &["--set", "duration=3s"]);
    }
    let report = read(&a.join("report.html"));
    // Deterministic: no date or wall-clock time (summary.json's run.wall_s is not shown).
    assert_eq!(report, read(&b.join("report.html")));
    let svgs = std::fs::read_dir(a.join("figures"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "svg")
        .count();
    assert_eq!(svgs, 4, "cwnd, throughput, rtt, queue (figures.md)");
    assert_eq!(report.matches("<img class=\"static\"").count(), svgs);
    // The scenario file's text and the override, as given.
    assert!(report.contains("with overrides: --set duration=3s"));
    assert!(report.contains("bottleneck = { rate = &quot;10Mbps&quot;"));
    // The folder with its report is still a run folder: a new run replaces it whole.
    run_into(
        Path::new(&file),
        &a,
        &["--set", "duration=2s", "--no-report"],
    );
    assert!(!a.join("report.html").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_plots_gives_a_report_with_tables_and_no_figures() {
    let dir = scratch("report", "no-plots");
    let out = dir.join("out");
    run_into(
        Path::new(&example("dumbbell.toml")),
        &out,
        &["--set", "duration=2s", "--no-plots"],
    );
    let report = read(&out.join("report.html"));
    assert!(!report.contains("<img"));
    assert!(report.contains("<section id=\"summary\">"));
    assert!(report.contains("(<code>--no-plots</code>)"));
    // `cclab plot` then `cclab report` adds them.
    assert!(cclab(&["plot", out.to_str().unwrap()]).status.success());
    let written = cclab(&["report", out.to_str().unwrap()]);
    assert!(written.status.success());
    assert_eq!(
        String::from_utf8_lossy(&written.stdout),
        format!("report in {}\n", out.join("report.html").display())
    );
    assert_eq!(
        read(&out.join("report.html"))
            .matches("<img class=\"static\"")
            .count(),
        4
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_sweep_writes_its_report_and_report_refuses_other_folders() {
    let dir = scratch("report", "sweep");
    let out = dir.join("sweep");
    let sweep = cclab(&[
        "sweep",
        &example("sweeps/rtt-fairness.toml"),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--set",
        "duration=500ms",
        "--set",
        "output.steady_from=100ms",
    ]);
    assert!(
        sweep.status.success(),
        "{}",
        String::from_utf8_lossy(&sweep.stderr)
    );
    let report = read(&out.join("report.html"));
    // 4 RTTs × 3 algorithms = 12 runs, each a row of the results table (+ the header row).
    let results = &report[report.find("<section id=\"results\">").unwrap()..];
    let results = &results[..results.find("</section>").unwrap()];
    assert_eq!(results.matches("<tr>").count(), 13);
    let figures = std::fs::read_dir(out.join("figures"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "svg")
        .count();
    assert!(figures > 0);
    assert_eq!(report.matches("<img class=\"static\"").count(), figures);

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let refused = cclab(&["report", empty.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not an output folder"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
