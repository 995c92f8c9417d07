//! `cclab run` and `check` on the topology kinds beyond the dumbbell: link names and fair
//! shares in summary.json, queue.csv rows per reported link, and one-line errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .output()
        .expect("the cclab binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-topo-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `text`; summary.json and the folder.
fn run(name: &str, text: &str) -> (serde_json::Value, PathBuf) {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let output = cclab(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--no-plots",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    (summary, out)
}

fn link_names(summary: &serde_json::Value) -> Vec<String> {
    summary["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect()
}

fn fair_shares(summary: &serde_json::Value) -> Vec<f64> {
    summary["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fair_share_bps"].as_f64().unwrap())
        .collect()
}

/// Payload fraction of a 1448-byte segment with 52 bytes of headers.
const PAYLOAD: f64 = 1448.0 / 1500.0;

/// A 3-hop parking lot at 10, 4 and 10 Mbit/s with the long flow and one flow per hop. Max-min
/// by hand: hop 2 saturates first at 2 Mbit/s for its two flows (the long one and the hop-2
/// one); hops 1 and 3 leave 10 − 2 = 8 Mbit/s to their one-hop flows. fair_share_bps is that
/// times the payload fraction.
#[test]
fn parking_lot_summary_names_hops_and_gives_max_min_shares() {
    let (summary, out) = run(
        "parking-lot",
        r#"
duration = "1s"
[topology]
kind = "parking-lot"
hops = 3
link = { rate = "10Mbps", delay = "5ms" }
hop2 = { rate = "4Mbps" }
[[flows]]
cc = "reno"
[[flows]]
cc = "reno"
route = { from = 0, to = 1 }
[[flows]]
cc = "reno"
route = { from = 1, to = 2 }
[[flows]]
cc = "reno"
route = { from = 2, to = 3 }
"#,
    );
    assert_eq!(link_names(&summary), ["hop1", "hop2", "hop3"]);
    let expected = [2e6, 8e6, 2e6, 8e6].map(|x| x * PAYLOAD);
    for (share, want) in fair_shares(&summary).iter().zip(expected) {
        assert!((share - want).abs() < 1e-6 * want, "{share} vs {want}");
    }
    // queue.csv: a row per sample (1 s / 10 ms = 100) and hop, hop by hop at each tick.
    let queue = std::fs::read_to_string(out.join("queue.csv")).unwrap();
    let links: Vec<&str> = queue
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(links.len(), 300);
    assert_eq!(&links[..3], ["hop1", "hop2", "hop3"]);
}

/// `cclab check` on a parking lot says what it will report instead of a bottleneck rate.
#[test]
fn check_describes_a_parking_lot() {
    let dir = scratch("check");
    let file = dir.join("lot.toml");
    std::fs::write(
        &file,
        "[topology]\nkind = \"parking-lot\"\nhops = 2\nlink = { rate = \"10Mbps\", delay = \"5ms\" }\nhop2 = { rate = \"20Mbps\" }\n[[flows]]\ncc = \"reno\"\n",
    )
    .unwrap();
    let output = cclab(&["check", file.to_str().unwrap()]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Base RTT: 2 × (5 ms + 5 ms), no access delay.
    assert!(
        stdout.contains("parking-lot: 2 reported links, fastest 20000000 bit/s, base RTT: 20ms"),
        "{stdout}"
    );
}

/// Two-way traffic on a dumbbell: each direction is its own link, so one flow each way has
/// a whole 10 Mbit/s link as its fair share; both directions are reported by name.
#[test]
fn reverse_flows_report_both_directions() {
    let (summary, _) = run(
        "two-way",
        r#"
duration = "1s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms" }
[[flows]]
cc = "reno"
[[flows]]
cc = "reno"
direction = "reverse"
"#,
    );
    assert_eq!(link_names(&summary), ["bottleneck", "bottleneck-reverse"]);
    assert_eq!(fair_shares(&summary), [10e6 * PAYLOAD; 2]);
    let reverse = &summary["links"][1];
    assert!(reverse["packets"].as_u64().unwrap() > 0);
}

/// A graph pair with no chain of links between them: exit 2, one line naming the file, the
/// key and the pair.
#[test]
fn a_graph_pair_without_a_route_is_refused_by_name() {
    let dir = scratch("no-route");
    let file = dir.join("islands.toml");
    std::fs::write(
        &file,
        r#"
[topology]
kind = "graph"
nodes = ["a", "r1", "c", "r2"]
links = [ { between = ["a", "r1"], rate = "10Mbps", delay = "1ms" },
          { between = ["c", "r2"], rate = "10Mbps", delay = "1ms" } ]
[[flows]]
cc = "reno"
route = { from = "a", to = "c" }
"#,
    )
    .unwrap();
    let output = cclab(&["check", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("islands.toml")
            && stderr.contains("flows.0.route.to")
            && stderr.contains("no route between `a` and `c`"),
        "{stderr}"
    );
}
