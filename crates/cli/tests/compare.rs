//! `cclab compare DIR_A DIR_B` on two real run folders: each row's values are the folders'
//! summary.json values (also in `--out`'s comparison.csv, with the overlaid figures), and a folder without one is refused in one sentence (exit 2).

mod support;

use support::{cclab, root, run_into, scratch, summary};

#[test]
fn compares_two_runs_metric_by_metric() {
    let dir = scratch("compare", "two-runs");
    let (a, b) = (dir.join("cubic"), dir.join("reno"));
    let file = root().join("examples/emulation/cubic-20mbps.toml");
    let short = ["--set", "duration=2s", "--no-plots", "--no-report"];
    run_into(&file, &a, &short);
    let mut reno = short.to_vec();
    reno.extend(["--set", "flows.0.cc=newreno"]);
    run_into(&file, &b, &reno);
    let figures = dir.join("side-by-side");
    let out = cclab(&[
        "compare",
        a.to_str().expect("UTF-8 path"),
        b.to_str().expect("UTF-8 path"),
        "--out",
        figures.to_str().expect("UTF-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("flow 0 retransmissions "))
        .expect("a retransmissions row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    let retransmissions = |dir| {
        summary(dir)["flows"][0]["retransmissions"]
            .as_i64()
            .expect("a count")
    };
    let (ra, rb) = (retransmissions(&a), retransmissions(&b));
    assert_eq!(
        cells[3..6],
        [ra.to_string(), rb.to_string(), (rb - ra).to_string()]
    );
    // --out: the same row in comparison.csv, and the overlaid figures.
    let csv = std::fs::read_to_string(figures.join("comparison.csv")).expect("comparison.csv");
    assert!(
        csv.contains(&format!("flow 0 retransmissions,{ra},{rb},{},", rb - ra)),
        "{csv}"
    );
    for name in ["cwnd", "goodput", "rtt", "queue"] {
        for ext in ["svg", "png"] {
            let path = figures.join(format!("figures/{name}.{ext}"));
            assert!(path.exists(), "{}", path.display());
        }
    }
    // Both runs are drawn, labelled by their folders' names: A's and B's flow 0 are in the
    // cwnd figure's legend.
    let svg = std::fs::read_to_string(figures.join("figures/cwnd.svg")).expect("svg");
    assert!(
        svg.contains("A (cubic): flow 0 (cubic)") && svg.contains("B (reno): flow 0"),
        "{svg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_without_summary_is_refused_in_one_sentence() {
    let dir = scratch("compare", "empty");
    let out = cclab(&[
        "compare",
        dir.to_str().expect("UTF-8 path"),
        dir.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("summary.json: cannot read it"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
