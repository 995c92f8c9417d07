//! The Wi-Fi example end to end: `cclab run` writes a folder that `tools/check-output`
//! accepts, with both directions of the medium reported and their MAC counters in
//! summary.json.

mod support;

use support::{assert_contract, root, run_into, summary};

#[test]
fn the_wifi_example_runs_and_its_output_passes_check_output() {
    let out = support::scratch("wifi-cli", "example").join("out");
    run_into(&root().join("examples/wifi-bbr-vs-cubic.toml"), &out, &[]);
    assert_contract(&out);
    let summary = summary(&out);
    let links = summary["links"].as_array().expect("links[]");
    let names: Vec<&str> = links.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bottleneck", "bottleneck-reverse"]);
    for link in links {
        let wifi = &link["wifi"];
        let transmissions = wifi["transmissions"].as_u64().expect("wifi counters");
        let frames = wifi["frames"].as_u64().unwrap();
        assert!(transmissions > 0 && frames >= transmissions, "{wifi}");
        let mean = wifi["mean_aggregate_frames"].as_f64().unwrap();
        assert!((mean - frames as f64 / transmissions as f64).abs() < 1e-9);
    }
    for flow in summary["flows"].as_array().unwrap() {
        assert!(flow["goodput_bps"].as_f64().unwrap() > 0.0, "{flow}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
