//! `cclab run` and `check` with short-flow workloads: the example's folder honours the
//! contract (tools/check-output), flows.csv agrees with summary.json and is the same for the
//! same seed, and bad workload keys and CDF files get one line naming the key (exit 2).

mod support;

use support::{assert_contract, cclab, root, run_into};

#[test]
fn the_web_workload_example_runs_and_honours_the_contract() {
    let dir = support::scratch("workload-test", "example");
    let out = dir.join("a");
    run_into(&root().join("examples/web-workload.toml"), &out, &[]);
    assert_contract(&out);
    assert!(out.join("figures/fct.svg").exists());

    // One flows.csv row per finished flow of summary.json, each in its bucket's count.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let w = &summary["workloads"][0];
    let finished = w["finished"].as_u64().unwrap();
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert_eq!(
        flows.lines().count() as u64,
        finished + 1,
        "header + one row each"
    );
    let counted: u64 = w["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, finished);
    assert_eq!(
        w["arrivals"].as_u64().unwrap(),
        finished + w["unfinished"].as_u64().unwrap()
    );
    // The workload's slots appear neither in flows[] nor in the time series.
    assert_eq!(summary["flows"].as_array().unwrap().len(), 1);
    let timeseries = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    assert!(
        timeseries
            .lines()
            .skip(1)
            .all(|l| l.split(',').nth(1) == Some("0"))
    );

    // The same seed gives the same flows.csv, byte for byte.
    let again = dir.join("b");
    run_into(
        &root().join("examples/web-workload.toml"),
        &again,
        &["--no-plots"],
    );
    assert_eq!(
        flows,
        std::fs::read_to_string(again.join("flows.csv")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scenario with one TCP flow and a workload table with `workload` lines.
fn scenario(workload: &str) -> String {
    format!(
        "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n\
         [[flows]]\ncc = \"reno\"\nsize = \"1KB\"\n\
         [[flows]]\nkind = \"workload\"\ncc = \"cubic\"\n{workload}\n"
    )
}

#[test]
fn bad_workload_input_exits_2_with_one_line_naming_the_key() {
    let dir = support::scratch("workload-test", "bad");
    std::fs::create_dir_all(dir.join("cdfs")).unwrap();
    std::fs::write(dir.join("cdfs/bad.cdf"), "# sizes\n100 0.5\n\n50 1\n").unwrap();
    let sizes = "sizes = { distribution = \"exponential\", mean = \"10KB\" }";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        ("no-load", scenario(sizes), "flows.1.load", "missing"),
        ("overload", scenario(&format!("load = 1.5\n{sizes}")), "flows.1.load", "(0, 1]"),
        ("no-sizes", scenario("load = 0.5"), "flows.1.sizes", "missing"),
        (
            "unknown-distribution",
            scenario("load = 0.5\nsizes = { distribution = \"zipf\", mean = \"1KB\" }"),
            "flows.1.sizes.distribution",
            "unknown distribution",
        ),
        (
            "pareto-shape",
            scenario("load = 0.5\nsizes = { distribution = \"pareto\", mean = \"1KB\", shape = 0.9 }"),
            "flows.1.sizes.shape",
            "(1, 100]",
        ),
        (
            "count",
            scenario(&format!("load = 0.5\ncount = 3\n{sizes}")),
            "flows.1.count",
            "remove `count`",
        ),
        (
            "load-link",
            scenario(&format!("load = 0.5\nload_link = \"hop9\"\n{sizes}")),
            "flows.1.load_link",
            "no link `hop9`",
        ),
        (
            "stop-before-start",
            scenario(&format!("load = 0.5\nstart = \"2s\"\nstop = \"1s\"\n{sizes}")),
            "flows.1.stop",
            "not after `start`",
        ),
        (
            "cdf-line",
            scenario("load = 0.5\nsizes = { cdf = \"cdfs/bad.cdf\" }"),
            "flows.1.sizes.cdf",
            "line 4: size 50 does not increase",
        ),
        (
            "cdf-missing",
            scenario("load = 0.5\nsizes = { cdf = \"cdfs/none.cdf\" }"),
            "flows.1.sizes.cdf",
            "cannot read",
        ),
        (
            "sizes-on-tcp",
            "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\nload = 0.5\n".into(),
            "flows.0.load",
            "kind = \"workload\"",
        ),
        (
            "only-workloads",
            format!(
                "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n\
                 [[flows]]\nkind = \"workload\"\ncc = \"cubic\"\nload = 0.5\n{sizes}\n"
            ),
            ": flows: only workloads",
            "reference transfer",
        ),
    ];
    for (name, text, key, words) in cases {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let output = cclab(&["check", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(key), "{name}: {stderr}");
        assert!(stderr.contains(words), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn absurd_workloads_are_refused_before_running() {
    // 1 KB flows on 10 Gbit/s for an hour. At load 1 the open flows grow without bound: the
    // slot estimate is every arrival (λ = 10¹⁰ / 8 / 1000 = 1.25 M flows/s, 4.5 × 10⁹ of
    // them at 8 kB each), far over the 8 GB memory limit. At load 0.9 memory is fine (10 ·
    // 0.9 / 0.1 + 100 = 190 slots), but flows.csv would get 4 × 10⁹ rows of ~120 B, far over
    // the 1 GiB output limit.
    let dir = support::scratch("workload-test", "absurd");
    for (load, words) in [("1", "flows open at once"), ("0.9", "flows.csv")] {
        let file = dir.join("absurd.toml");
        std::fs::write(
            &file,
            format!(
                "duration = \"3600s\"\n[topology]\nbottleneck = {{ rate = \"10Gbps\", delay = \"10ms\" }}\n\
                 [[flows]]\ncc = \"reno\"\nsize = \"1KB\"\n\
                 [[flows]]\nkind = \"workload\"\ncc = \"cubic\"\nload = {load}\n\
                 sizes = {{ distribution = \"fixed\", mean = \"1KB\" }}\n\
                 [output]\ninterval = \"10s\"\nrate_interval = \"10s\"\n"
            ),
        )
        .unwrap();
        let output = cclab(&["check", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("flows.1.load") && stderr.contains(words),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
