//! The framework end to end with a toy experiment: studies written and run, the analysis
//! fed with their rows, the report, figures and comparison written, and a second invocation
//! that runs nothing again.

use cclab_analysis::plot::sweep::{SweepChart, SweepSeries, XAxis};

use super::*;

struct Toy;

/// One Reno flow on 5 and 10 Mbit/s for 3 s: a 1-BDP buffer keeps the link busy after the
/// first second, so the utilization is high; the claim is the link's utilization bound.
const TOY: &str = r#"
name = "toy"
duration = "3s"
[topology]
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
[[flows]]
cc = "reno"
[sweep]
"topology.bottleneck.rate" = ["5Mbps", "10Mbps"]
"#;

impl Reproduction for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }
    fn seed(&self) -> &'static str {
        "999"
    }
    fn title(&self) -> &'static str {
        "A toy paper"
    }
    fn summary(&self) -> &'static str {
        "utilization of one Reno flow"
    }
    fn studies(&self, quick: bool) -> Vec<Study> {
        let text = if quick {
            TOY.replace("3s", "1s")
        } else {
            TOY.to_string()
        };
        vec![Study::new("utilization", text).keep_runs()]
    }
    fn analyze(&self, data: &Studies, report: &mut Report) -> anyhow::Result<()> {
        let rows = data.rows("utilization")?;
        anyhow::ensure!(rows.len() == 2, "two runs");
        for row in &rows {
            anyhow::ensure!(
                data.run_dir("utilization", row)
                    .join("summary.json")
                    .exists()
            );
        }
        let rates: Vec<f64> = vec![5.0, 10.0];
        let points = rows
            .iter()
            .map(|r| metric(r, "aggregate.utilization").map(|u| (u, u, u)))
            .collect();
        report.text("## Setup\n\nOne Reno flow.");
        report.figure(
            "utilization",
            &SweepChart {
                title: "utilization".into(),
                x_label: "rate (Mbit/s)".into(),
                y_label: "utilization".into(),
                x: XAxis::Numeric {
                    values: rates,
                    log: false,
                },
                series: vec![SweepSeries {
                    label: "reno".into(),
                    points,
                }],
            },
            "Utilization against the bottleneck rate",
        )?;
        let ours = metric(&rows[0], "aggregate.utilization").unwrap_or(f64::NAN);
        report.compare(Comparison {
            claim: "utilization at 5 Mbit/s is at most 1".into(),
            paper: "≤ 1".into(),
            ours: format!("{ours:.3}"),
            verdict: if ours <= 1.0 {
                Verdict::Agrees
            } else {
                Verdict::Disagrees
            },
            reason: String::new(),
        });
        Ok(())
    }
}

fn args(out: &std::path::Path) -> ReproduceArgs {
    ReproduceArgs {
        name: "toy".into(),
        quick: true,
        out: Some(out.to_path_buf()),
        jobs: Some(1),
        shard: None,
        quiet: true,
    }
}

#[test]
fn a_reproduction_writes_its_scenarios_runs_figures_and_report_and_resumes() {
    let out = std::env::temp_dir().join(format!("cclab-reproduce-toy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    assert!(run(&Toy, &args(&out)).is_ok());

    // The scenario file that ran is a valid sweep file that a user can run again.
    let scenario = out.join("scenarios/utilization.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.starts_with("# cclab reproduce toy (quick form)"));
    assert!(text.contains("duration = \"1s\""));
    let sweep = cclab_scenario::load_sweep(&scenario, &[]).unwrap();
    assert_eq!(sweep.plan(100).unwrap().len(), 2);

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("**Quick form**"));
    assert!(report.contains("![Utilization against the bottleneck rate](figures/utilization.png)"));
    assert!(report.contains("| utilization at 5 Mbit/s is at most 1 | ≤ 1 |"));
    assert!(
        report.contains("| utilization | 2 |"),
        "running time per study"
    );
    for file in ["utilization.svg", "utilization.png", "utilization.csv"] {
        assert!(out.join("figures").join(file).exists(), "{file}");
    }
    let csv = std::fs::read_to_string(out.join("figures/utilization.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        3,
        "header and one point per rate:\n{csv}"
    );
    assert!(
        std::fs::read_to_string(out.join("results.csv"))
            .unwrap()
            .contains(",agrees,")
    );

    // Again into the same folder: both rows are kept as they are, nothing runs again.
    let rows = out.join("runs/utilization/rows");
    let modified = |dir: &std::path::Path| -> Vec<std::time::SystemTime> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().modified().unwrap())
            .collect();
        entries.sort();
        entries
    };
    let before = modified(&rows);
    assert!(run(&Toy, &args(&out)).is_ok());
    assert_eq!(modified(&rows), before);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_unknown_name_is_refused_with_the_list() {
    let Err(Failure::BadInput(e)) = find("smooth-strat") else {
        panic!("an unknown reproduction is bad input");
    };
    assert!(
        e.to_string()
            .contains("unknown reproduction `smooth-strat`")
    );
}
