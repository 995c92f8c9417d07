//! The Wi-Fi example end to end: `cclab run` writes a folder that `tools/check-output`
//! accepts, with both directions of the medium reported and their MAC counters in
//! summary.json.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_wifi_example_runs_and_its_output_passes_check_output() {
    let out = std::env::temp_dir().join(format!("cclab-wifi-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let example = repository().join("examples/wifi-bbr-vs-cubic.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args([
            "run",
            example.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .expect("the cclab binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let check = Command::new("python3")
        .arg(repository().join("tools/check-output"))
        .arg(&out)
        .output()
        .expect("python3 runs tools/check-output");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
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
