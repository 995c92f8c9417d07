//! End-to-end tests of the `cclab` command: outputs, determinism, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .output()
        .expect("the cclab binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const SMALL: &str = r#"
name = "small"
duration = "5s"
seed = 4
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "1bdp", loss = 0.001 }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
count = 2
[[flows]]
cc = "newreno"
recovery = "newreno"
size = "200KB"
start = "1s"
[output]
steady_from = "3s"
"#;

/// summary.json with `run.wall_s` removed, the one field allowed to differ between runs.
fn summary_without_wall_time(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    text.lines()
        .filter(|line| !line.trim_start().starts_with("\"wall_s\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `cell` is `value` printed with `decimals` decimals: within half a unit of the last digit.
fn printed(cell: &str, value: f64, decimals: i32, what: &str) {
    let shown: f64 = cell
        .parse()
        .unwrap_or_else(|_| panic!("{what}: `{cell}` is not a number"));
    assert!(
        (shown - value).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9,
        "{what}: the table shows {cell}, expected {value} to {decimals} decimals"
    );
}

/// The word after `key` in a line of `key value` pairs.
fn after<'a>(line: &'a str, key: &str) -> &'a str {
    let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let i = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("no `{key}` in {line:?}"));
    words[i + 1]
}

/// Jain's index (Σx)² / (n·Σx²) (Jain, Chiu, Hawe 1984), 1 for all-zero shares.
fn jain(shares: &[f64]) -> f64 {
    let sum: f64 = shares.iter().sum();
    let squares: f64 = shares.iter().map(|x| x * x).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (shares.len() as f64 * squares)
    }
}

/// Parse the summary table `cclab run` printed for SMALL (written to `dir`) column by
/// column and check every cell against `summary.json` and against the metrics' definitions
/// (goodput = delivered bytes × 8 / active time; Jain's index over the whole-run goodputs).
fn table_matches_summary(stdout: &str, dir: &Path) {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let flows = summary["flows"].as_array().unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    // SMALL: name "small", seed 4, 5 s; two reno flows and one finite newreno flow.
    assert_eq!(lines[0], "small (seed 4, 5 s simulated)", "{stdout}");
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "flow",
            "cc",
            "start_s",
            "goodput_Mbps",
            "retrans",
            "timeouts",
            "mean_rtt_ms",
            "min_rtt_ms",
            "fct_s"
        ],
        "{stdout}"
    );
    assert_eq!(flows.len(), 3);
    let duration_s = 5.0;
    for (i, f) in flows.iter().enumerate() {
        let cells: Vec<&str> = lines[2 + i].split_whitespace().collect();
        assert_eq!(cells.len(), header.len(), "{}", lines[2 + i]);
        let cell = |name: &str| cells[header.iter().position(|h| *h == name).unwrap()];
        let what = |name: &str| format!("flow {i} {name}");
        assert_eq!(cell("flow"), i.to_string());
        assert_eq!(
            cell("cc"),
            ["reno", "reno", "reno"][i],
            "newreno is an alias"
        );
        assert_eq!(cell("cc"), f["cc"].as_str().unwrap());
        let start_s = [0.0, 0.0, 1.0][i];
        printed(cell("start_s"), start_s, 3, &what("start_s"));
        assert_eq!(cell("retrans"), f["retransmissions"].to_string());
        assert_eq!(cell("timeouts"), f["timeouts"].to_string());
        for column in ["mean_rtt_ms", "min_rtt_ms"] {
            printed(cell(column), f[column].as_f64().unwrap(), 2, &what(column));
        }
        // Goodput: delivered bytes × 8 over the active time (start to completion or end).
        let delivered = f["delivered_bytes"].as_u64().unwrap() as f64;
        let active_s = match f["fct_s"].as_f64() {
            Some(fct) => {
                printed(cell("fct_s"), fct, 3, &what("fct_s"));
                assert_eq!(delivered, 200_000.0, "the finite flow delivered 200 KB");
                fct
            }
            None => {
                assert_eq!(cell("fct_s"), "-");
                duration_s - start_s
            }
        };
        printed(
            cell("goodput_Mbps"),
            delivered * 8.0 / active_s / 1e6,
            2,
            &what("goodput_Mbps"),
        );
    }
    assert!(flows[2]["fct_s"].is_f64(), "the 200 KB flow finishes");

    let link = &summary["links"][0];
    let bottleneck = lines[2 + flows.len()];
    assert!(
        bottleneck.starts_with("bottleneck: 10.00 Mbit/s,"),
        "{bottleneck}"
    );
    printed(
        after(bottleneck, "utilization"),
        link["utilization"].as_f64().unwrap(),
        4,
        "utilization",
    );
    assert_eq!(after(bottleneck, "drops"), link["drops"].to_string());
    printed(
        after(bottleneck, "mean"),
        link["mean_queue_pkts"].as_f64().unwrap(),
        1,
        "queue mean",
    );
    assert_eq!(after(bottleneck, "max"), link["max_queue_pkts"].to_string());

    let totals = lines[3 + flows.len()];
    assert!(totals.starts_with("total goodput "), "{totals}");
    let delivered: u64 = flows
        .iter()
        .map(|f| f["delivered_bytes"].as_u64().unwrap())
        .sum();
    printed(
        after(totals, "goodput"),
        delivered as f64 * 8.0 / duration_s / 1e6,
        2,
        "total goodput",
    );
    // The table's Jain index is over whole-run goodput; with steady_from = 3 s the steady
    // index (the finite flow has finished by then) differs, so showing it would fail here.
    let goodputs: Vec<f64> = flows
        .iter()
        .map(|f| f["goodput_bps"].as_f64().unwrap())
        .collect();
    let steady: Vec<f64> = flows
        .iter()
        .filter_map(|f| f["goodput_steady_bps"].as_f64())
        .collect();
    assert!(
        (jain(&goodputs) - jain(&steady)).abs() > 1e-3,
        "the scenario must tell the two indexes apart"
    );
    printed(after(totals, "index"), jain(&goodputs), 4, "Jain index");
    printed(
        after(totals, "index"),
        summary["aggregate"]["jain_index"].as_f64().unwrap(),
        4,
        "Jain index",
    );
}

#[test]
fn run_writes_the_contract_folder_and_is_deterministic() {
    let dir = scratch("determinism");
    let scenario = write(&dir, "small.toml", SMALL);
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let output = cclab(&[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        table_matches_summary(&stdout, out);
    }
    for file in ["summary.json", "timeseries.csv", "queue.csv"] {
        assert!(a.join(file).exists(), "{file} missing");
    }
    assert_eq!(summary_without_wall_time(&a), summary_without_wall_time(&b));
    for file in ["timeseries.csv", "queue.csv", "events.csv"] {
        assert_eq!(
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
            "{file} differs between identical runs"
        );
    }
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&a)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // events.csv (docs/outputs.md): its columns, rows in time order, and each flow's first
    // row its start (flows 0 and 1 at 0 s, flow 2 at 1 s) in its first mode, slow start.
    let events = std::fs::read_to_string(a.join("events.csv")).unwrap();
    let mut lines = events.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,flow,event,from,to,detail,cwnd_bytes,ssthresh_bytes")
    );
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    let time = |row: &Vec<&str>| row[0].parse::<f64>().unwrap();
    assert!(rows.windows(2).all(|w| time(&w[0]) <= time(&w[1])));
    for (flow, start) in [("0", 0.0), ("1", 0.0), ("2", 1.0)] {
        let first = rows.iter().find(|row| row[1] == flow).unwrap();
        assert_eq!(
            (time(first), &first[2..6]),
            (start, &["mode", "", "slow_start", "start"][..])
        );
    }

    // The finite flow finished and reports its completion time; a different seed differs.
    let summary = std::fs::read_to_string(a.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"fct_s\": 1.") || summary.contains("\"fct_s\": 0."),
        "{summary}"
    );
    let c = dir.join("c");
    let output = cclab(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        c.to_str().unwrap(),
        "--set",
        "seed=5",
        "--quiet",
    ]);
    assert!(output.status.success());
    assert_ne!(summary_without_wall_time(&a), summary_without_wall_time(&c));
}

#[test]
fn check_accepts_every_example() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let output = cclab(&["check", path.to_str().unwrap()]);
            assert!(
                output.status.success(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no examples found in {}", examples.display());
}

/// Each malformed input: exit status 2, one line on stderr naming the file and the key,
/// and no panic.
#[test]
fn bad_input_exits_2_with_one_line_naming_the_key() {
    let dir = scratch("bad-input");
    let topology = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n";
    let cases: &[(&str, String, &str)] = &[
        ("zero-rate", "[topology]\nbottleneck = { rate = \"0Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n".into(), "topology.bottleneck.rate"),
        ("negative-delay", "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"-1ms\" }\n[[flows]]\ncc = \"reno\"\n".into(), "topology.bottleneck.delay"),
        ("zero-buffer", "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\", buffer = 0 }\n[[flows]]\ncc = \"reno\"\n".into(), "topology.bottleneck.buffer"),
        ("unknown-algorithm", format!("{topology}[[flows]]\ncc = \"cubicc\"\n"), "flows.0.cc"),
        ("typo-key", format!("{topology}[[flows]]\ncc = \"reno\"\ncount = 1\nstrat = \"1s\"\n"), "flows.0.strat"),
        ("zero-duration", format!("duration = \"0s\"\n{topology}[[flows]]\ncc = \"reno\"\n"), "duration"),
        ("bad-param", format!("{topology}[[flows]]\ncc = \"reno\"\nparams = {{ beta = 0.5 }}\n"), "flows.0.params.beta"),
        ("syntax", "duration = \n".into(), "line 1"),
    ];
    for (name, text, key) in cases {
        let file = write(&dir, &format!("{name}.toml"), text);
        for command in ["check", "run"] {
            let output = cclab(
                &[
                    command,
                    file.to_str().unwrap(),
                    "--out",
                    dir.join("out").to_str().unwrap(),
                ][..if command == "check" { 2 } else { 4 }],
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{name} ({command}): {stderr}"
            );
            assert_eq!(stderr.lines().count(), 1, "{name} ({command}): {stderr}");
            assert!(stderr.contains(&format!("{name}.toml")), "{name}: {stderr}");
            assert!(stderr.contains(key), "{name}: {stderr} lacks {key}");
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        }
    }
    let missing = cclab(&["check", dir.join("nope.toml").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.toml"));

    let bad_set = cclab(&[
        "check",
        write(
            &dir,
            "ok.toml",
            &format!("{topology}[[flows]]\ncc = \"reno\"\n"),
        )
        .to_str()
        .unwrap(),
        "--set",
        "flows.7.cc=reno",
    ]);
    assert_eq!(bad_set.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_set.stderr).contains("flows.7.cc"));
}

#[test]
fn algorithms_lists_every_registered_controller_and_slow_start() {
    let output = cclab(&["algorithms"]);
    assert!(output.status.success());
    let listing = String::from_utf8_lossy(&output.stdout);
    for algorithm in cclab_cc::ALGORITHMS {
        assert!(
            listing.contains(&format!("\n{}", algorithm.name)),
            "{} missing",
            algorithm.name
        );
        assert!(
            listing.contains(algorithm.reference),
            "{} reference missing",
            algorithm.name
        );
        for param in algorithm.params {
            assert!(
                listing.contains(param.name),
                "{}.{} missing",
                algorithm.name,
                param.name
            );
        }
    }
    for slow_start in cclab_cc::SLOW_STARTS {
        assert!(
            listing.contains(&format!("\n{}:", slow_start.name)),
            "{} missing",
            slow_start.name
        );
    }
}

#[test]
fn unknown_command_is_a_usage_error() {
    let output = cclab(&["frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
}
