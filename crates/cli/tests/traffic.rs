//! `cclab run` on UDP cross traffic: the example runs, its folder honours the output contract
//! (`tools/check-output`), the UDP flow appears in summary.json and rates.csv but not in
//! timeseries.csv; a bad UDP key is one sentence and exit status 2.

mod support;

use support::{assert_contract, cclab, root};

#[test]
fn the_udp_cross_traffic_example_runs_and_honours_the_contract() {
    let dir = support::scratch("traffic", "example");
    let out = dir.join("out");
    let example = root().join("examples/udp-cross-traffic.toml");
    // 8 s: the UDP source starts at 5 s, so 3 s of cross traffic.
    let output = cclab(&[
        "run",
        example.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--set",
        "duration=8s",
        "--set",
        "output.steady_from=6s",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_contract(&out);

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let flows = summary["flows"].as_array().unwrap();
    assert_eq!(flows[0]["kind"], "tcp");
    assert_eq!(flows[1]["kind"], "udp");
    assert_eq!(flows[1]["cc"], "udp");
    assert_eq!(flows[1]["retransmissions"], 0);
    assert_eq!(flows[1]["mean_rtt_ms"], 0.0);
    assert!(
        flows[0].get("loss_rate").is_none(),
        "UDP fields on a TCP flow"
    );
    // One-way delay at least the path's propagation: 1 + 10 + 1 ms.
    assert!(flows[1]["min_one_way_delay_ms"].as_f64().unwrap() >= 12.0);
    assert!(flows[1]["mean_one_way_delay_ms"].as_f64().unwrap() >= 12.0);
    let loss = flows[1]["loss_rate"].as_f64().unwrap();
    assert!((0.0..0.05).contains(&loss), "{loss}");
    // In the steady window (6–8 s) the CBR source delivers its 30 Mbit/s of wire rate as
    // 30 × 1472/1500 = 29.44 Mbit/s of payload, less its losses; CUBIC, which was alone on
    // the link until 5 s, has 100 − 30 = 70 Mbit/s of wire rate left: 67.57 Mbit/s of
    // payload at best. The fair share of the TCP flow counts only from its start (alone).
    let steady = |i: usize| flows[i]["goodput_steady_bps"].as_f64().unwrap() / 1e6;
    assert!((steady(1) / 29.44 - 1.0).abs() < 0.05, "{}", steady(1));
    assert!(steady(0) < 67.57 * 1.01, "{}", steady(0));

    // rates.csv has both flows; timeseries.csv (cwnd, RTT) only the TCP flow.
    let rows = |file: &str, flow: &str| {
        std::fs::read_to_string(out.join(file))
            .unwrap()
            .lines()
            .skip(1)
            .filter(|l| l.split(',').nth(1) == Some(flow))
            .count()
    };
    assert!(rows("rates.csv", "1") > 0 && rows("rates.csv", "0") > 0);
    assert!(rows("timeseries.csv", "0") > 0);
    assert_eq!(rows("timeseries.csv", "1"), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_congestion_control_on_a_udp_flow_is_refused_in_one_sentence() {
    let dir = support::scratch("traffic", "bad");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n\
         [[flows]]\nkind = \"udp\"\nrate = \"1Mbps\"\ncc = \"cubic\"\n",
    )
    .unwrap();
    let output = cclab(&["check", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("flows.0.cc"), "{stderr}");
    assert!(stderr.contains("no congestion control"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
