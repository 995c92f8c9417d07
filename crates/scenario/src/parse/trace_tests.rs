//! `kind = "trace"` links and `preset = "pantheon-..."` paths: files found relative to the
//! scenario, the rate taken from the trace, and one sentence naming the scenario file, the key,
//! the trace file and its line for every malformed trace.

use std::path::{Path, PathBuf};

use crate::link_kind::LinkKind;
use crate::network::*;
use crate::{Buffer, Scenario, ScenarioError, Topology, from_str};

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-trace-parse-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    dir
}

/// A scenario in `dir` whose bottleneck has `keys`.
fn scenario_text(keys: &str) -> String {
    format!("[topology]\nbottleneck = {{ {keys} }}\n[[flows]]\ncc = \"reno\"\n")
}

fn parse_in(dir: &Path, keys: &str) -> Result<Scenario, ScenarioError> {
    let file = dir.join("s.toml");
    from_str(&file.display().to_string(), &scenario_text(keys), &[])
}

fn bottleneck(s: &Scenario) -> &crate::Link {
    &s.topology.dumbbell().expect("a dumbbell").bottleneck
}

#[test]
fn a_trace_link_reads_both_files_relative_to_the_scenario_and_takes_the_mean_rate() {
    let dir = folder("ok");
    // Forward: 3 opportunities per 2 ms period → 3 · 12_032 / 2 = 18.048 Mbit/s.
    std::fs::write(dir.join("traces/down.trace"), "1\n2\n2\n").unwrap();
    std::fs::write(dir.join("traces/up.trace"), "4\n").unwrap();
    let s = parse_in(
        &dir,
        r#"kind = "trace", trace = "traces/down.trace", reverse_trace = "traces/up.trace", delay = "20ms", buffer = 100"#,
    )
    .unwrap();
    let link = bottleneck(&s);
    assert_eq!(link.rate_bps, 18_048_000);
    assert_eq!(link.buffer, Buffer::Packets(100));
    let LinkKind::Trace(trace) = &link.kind else {
        panic!("{:?}", link.kind)
    };
    assert_eq!(&*trace.forward.times_ms, &[1, 2, 2]);
    assert_eq!(trace.forward.file, "traces/down.trace");
    let reverse = trace.reverse.as_ref().expect("reverse_trace given");
    assert_eq!(&*reverse.times_ms, &[4]);
    // One opportunity every 4 ms: 12.032 / 4 Mbit/s.
    assert_eq!(reverse.mean_rate_bps(), 3_008_000);
}

#[test]
fn a_trace_link_refuses_a_rate_and_needs_its_file() {
    let dir = folder("rate");
    std::fs::write(dir.join("t.trace"), "1\n").unwrap();
    let message = parse_in(
        &dir,
        r#"kind = "trace", trace = "t.trace", rate = "10Mbps", delay = "20ms""#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("topology.bottleneck.rate: a trace link's rate is its trace's"),
        "{message}"
    );
    let message = parse_in(&dir, r#"kind = "trace", delay = "20ms""#)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("topology.bottleneck.trace: missing"),
        "{message}"
    );
}

/// The message for a trace file holding `text`: one line naming the scenario file, the key,
/// the trace file and (when given) the line.
fn refused(name: &str, text: Option<&str>) -> String {
    let dir = folder(name);
    if let Some(text) = text {
        std::fs::write(dir.join("traces/bad.trace"), text).unwrap();
    }
    let message = parse_in(
        &dir,
        r#"kind = "trace", trace = "traces/bad.trace", delay = "20ms""#,
    )
    .unwrap_err()
    .to_string();
    let scenario = dir.join("s.toml").display().to_string();
    let trace = dir.join("traces/bad.trace").display().to_string();
    assert!(
        message.starts_with(&format!(
            "{scenario}: topology.bottleneck.trace: trace file {trace} "
        )),
        "{message}"
    );
    assert!(!message.contains('\n'), "{message}");
    message
}

#[test]
fn malformed_trace_files_are_refused_with_their_line_number() {
    let cases = [
        (
            "word",
            "1\n2\nthree\n",
            "line 3: `three` is not a timestamp",
        ),
        ("negative", "1\n-2\n", "line 2: `-2` is negative"),
        (
            "decreasing",
            "1\n5\n4\n",
            "line 3: 4 is less than the timestamp before it (5)",
        ),
        ("blank", "1\n\n2\n", "line 2: is empty"),
        ("empty", "", "line 1: the file is empty"),
        ("zero-period", "0\n0\n", "line 2: the last timestamp is 0"),
        ("fraction", "1\n2.5\n", "line 2: `2.5` is not a timestamp"),
    ];
    for (name, text, fragment) in cases {
        let message = refused(name, Some(text));
        assert!(message.contains(fragment), "{name}: {message}");
    }
    let message = refused("missing", None);
    assert!(message.contains("cannot be read"), "{message}");
}

#[test]
fn a_reverse_table_and_a_reverse_trace_exclude_each_other() {
    let dir = folder("reverse");
    std::fs::write(dir.join("t.trace"), "1\n").unwrap();
    let message = parse_in(
        &dir,
        r#"kind = "trace", trace = "t.trace", reverse_trace = "t.trace", delay = "20ms", reverse = { delay = "5ms" }"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains(
            "topology.bottleneck.reverse: a trace bottleneck's reverse direction is either"
        ),
        "{message}"
    );
    // A wired reverse table alone takes the trace's mean rate by default.
    let s = parse_in(
        &dir,
        r#"kind = "trace", trace = "t.trace", delay = "20ms", reverse = { delay = "5ms" }"#,
    )
    .unwrap();
    let reverse = s.topology.dumbbell().unwrap().reverse.as_ref().unwrap();
    assert_eq!(
        (reverse.rate_bps, reverse.kind.name()),
        (12_032_000, "wired")
    );
}

#[test]
fn trace_links_go_on_parking_lot_hops_and_graph_links() {
    let dir = folder("topologies");
    std::fs::write(dir.join("t.trace"), "1\n").unwrap();
    let file = dir.join("s.toml").display().to_string();
    let parking = "[topology]\nkind = \"parking-lot\"\nhops = 2\n\
        link = { rate = \"10Mbps\", delay = \"5ms\" }\n\
        hop2 = { kind = \"trace\", trace = \"t.trace\", rate = \"10Mbps\" }\n\
        [[flows]]\ncc = \"reno\"\n";
    // hop2 inherits the shared `rate`, which a trace link refuses: named at hop2.
    let message = from_str(&file, parking, &[]).unwrap_err().to_string();
    assert!(message.contains("topology.hop2.rate"), "{message}");
    let parking = "[topology]\nkind = \"parking-lot\"\nhops = 2\n\
        link = { kind = \"trace\", trace = \"t.trace\", delay = \"5ms\" }\n\
        [[flows]]\ncc = \"reno\"\n";
    let s = from_str(&file, parking, &[]).unwrap();
    let Topology::ParkingLot(p) = &s.topology else {
        panic!()
    };
    assert!(p.hops.iter().all(|h| h.rate_bps == 12_032_000));
    let graph = "[topology]\nkind = \"graph\"\nnodes = [\"a\", \"b\"]\n\
        links = [{ between = [\"a\", \"b\"], kind = \"trace\", trace = \"t.trace\", delay = \"5ms\" }]\n\
        [[flows]]\ncc = \"reno\"\nroute = { from = \"a\", to = \"b\" }\n";
    let s = from_str(&file, graph, &[]).unwrap();
    let Topology::Graph(g) = &s.topology else {
        panic!()
    };
    assert_eq!(g.links[0].link.kind.name(), "trace");
}

#[test]
fn a_pantheon_preset_fills_rate_delay_loss_and_buffer_and_keys_override_it() {
    // StanfordSNR/observatory src/scripts/experiments.yml, emu job 5 (AWS Korea to China):
    // 77.72mbps.trace, mm-delay 51, mm-loss uplink 0.0006, droptail packets=94.
    let s = from_str(
        "t.toml",
        &scenario_text(r#"preset = "pantheon-korea-china""#),
        &[],
    )
    .unwrap();
    let link = bottleneck(&s);
    assert_eq!(link.rate_bps, 77_720_000);
    assert_eq!(link.delay, cclab_cc::SimDuration::from_millis(51));
    assert_eq!(link.loss, LossModel::Bernoulli(0.0006));
    assert_eq!(link.buffer, Buffer::Packets(94));
    assert_eq!(link.queue, QueueDiscipline::DropTail);
    let s = from_str(
        "t.toml",
        &scenario_text(r#"preset = "pantheon-korea-china", delay = "10ms", queue = "codel""#),
        &[],
    )
    .unwrap();
    let link = bottleneck(&s);
    assert_eq!(
        (link.rate_bps, link.delay),
        (77_720_000, cclab_cc::SimDuration::from_millis(10))
    );
    assert_eq!(link.queue.name(), "codel");
    // Nepal to AWS India (emu job 1): 0.57mbps-poisson.trace, mm-delay 28, mm-loss uplink
    // 0.0477, packets=14; its reverse table inherits the preset's rate.
    let s = from_str(
        "t.toml",
        &scenario_text(r#"preset = "pantheon-nepal-india", reverse = { buffer = 50 }"#),
        &[],
    )
    .unwrap();
    let d = s.topology.dumbbell().unwrap();
    assert_eq!(
        (d.bottleneck.rate_bps, d.bottleneck.loss.clone()),
        (570_000, LossModel::Bernoulli(0.0477))
    );
    assert_eq!(d.reverse.as_ref().unwrap().rate_bps, 570_000);
    let message = from_str(
        "t.toml",
        &scenario_text(r#"preset = "pantheon-korea-chin""#),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.starts_with("t.toml: topology.bottleneck.preset: unknown path preset")
            && message.contains("did you mean \"pantheon-korea-china\"?"),
        "{message}"
    );
}
