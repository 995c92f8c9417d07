//! `cclab run` on trace links: examples/lte-trace.toml runs and its output folder passes
//! tools/check-output; a malformed trace file is refused with exit status 2 and one line
//! naming the scenario file, the key, the trace file and the line.

mod support;

use support::{assert_contract, cclab, root, scratch, summary};

#[test]
fn the_lte_trace_example_runs_and_its_output_follows_the_contract() {
    let out = scratch("trace-cli", "lte").join("out");
    let example = root().join("examples/lte-trace.toml");
    support::run_into(&example, &out, &[]);
    assert_contract(&out);
    // The bottleneck reports the trace's mean rate: 30 444 opportunities of 1504 bytes over
    // the 12 000 ms period of lte.trace (tools/traces/generate.py prints the count).
    let summary = summary(&out);
    let rate = summary["links"][0]["rate_bps"].as_f64().unwrap();
    assert_eq!(rate, (30_444u64 * 1504 * 8 * 1000 / 12_000) as f64);
}

#[test]
fn a_malformed_trace_exits_2_with_the_line_number() {
    let dir = scratch("trace-cli", "bad");
    std::fs::write(dir.join("bad.trace"), "1\n2\n1\n").unwrap();
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        "[topology]\nbottleneck = { kind = \"trace\", trace = \"bad.trace\", delay = \"10ms\" }\n\
         [[flows]]\ncc = \"reno\"\n",
    )
    .unwrap();
    let output = cclab(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let expected = format!(
        "{}: topology.bottleneck.trace: trace file {} line 3: 1 is less than the timestamp before it (2)",
        scenario.display(),
        dir.join("bad.trace").display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}
