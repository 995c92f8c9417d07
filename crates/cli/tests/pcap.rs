//! `[output] pcap` end to end: the files are read back — by a small pcap reader written here
//! from the format's description (independent of the writer), and by `tshark` — and their
//! packet counts, retransmissions and bytes checked against `summary.json`.
//!
//! tshark (Debian's `tshark` package) is installed by `.ci/run`, which sets
//! CCLAB_REQUIRE_TSHARK=1; without it on PATH the tshark half is skipped, unless required.

mod support;

use std::path::Path;
use std::process::Command;

use support::{cclab, run_into, scratch, summary};

/// Two flows over a lossy 10 Mbit/s bottleneck, one ECN-capable: drops, retransmissions,
/// SACK blocks and CE marks all appear in the captures. Both finish well before the end, so
/// no packet is still in flight when the captures stop.
const SCENARIO: &str = r#"
name = "pcap"
duration = "4s"
[topology]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp", loss = 0.002 }
[[flows]]
cc = "cubic"
size = "1500KB"
[[flows]]
cc = "reno"
ecn = true
size = "1MB"
[output]
pcap = ["bottleneck", "flows"]
"#;

/// A TCP segment as the reader sees it.
#[derive(Debug)]
struct Segment {
    source: [u8; 4],
    sequence: u32,
    acknowledgment: u32,
    payload: u32,
}

/// Read a classic pcap file (nanosecond magic, LINKTYPE_RAW): per record, the IPv4 and TCP
/// header fields the checks need, with the payload length from the IPv4 total length.
fn read_pcap(path: &Path) -> Vec<Segment> {
    let bytes = std::fs::read(path).unwrap();
    let le = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(le(0), 0xa1b2_3c4d, "nanosecond pcap");
    assert_eq!(le(20), 101, "LINKTYPE_RAW");
    let mut segments = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let stored = le(at + 8) as usize;
        let ip = &bytes[at + 16..at + 16 + stored];
        let total = u16::from_be_bytes([ip[2], ip[3]]) as u32;
        let ihl = (ip[0] & 0x0f) as usize * 4;
        assert_eq!(ip[9], 6, "TCP");
        let tcp = &ip[ihl..];
        let offset = (tcp[12] >> 4) as u32 * 4;
        segments.push(Segment {
            source: ip[12..16].try_into().unwrap(),
            sequence: u32::from_be_bytes(tcp[4..8].try_into().unwrap()),
            acknowledgment: u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            payload: total - ihl as u32 - offset,
        });
        at += 16 + stored;
    }
    segments
}

/// Data segments sent, those below the highest byte already sent (retransmissions), the
/// highest byte sent and the highest cumulative ACK, of one flow's sender-side capture.
fn sender_counts(segments: &[Segment], sender: [u8; 4]) -> (u64, u64, u64, u64) {
    let (mut sent, mut again, mut highest, mut acked) = (0, 0, 0u64, 0u64);
    for s in segments {
        if s.source == sender && s.payload > 0 {
            sent += 1;
            let end = s.sequence as u64 - 1 + s.payload as u64;
            if end <= highest {
                again += 1;
            }
            highest = highest.max(end);
        } else if s.source != sender {
            acked = acked.max(s.acknowledgment as u64 - 1);
        }
    }
    (sent, again, highest, acked)
}

#[test]
fn captures_match_the_summary() {
    let dir = scratch("pcap", "summary");
    let file = dir.join("pcap.toml");
    std::fs::write(&file, SCENARIO).unwrap();
    let out = dir.join("out");
    run_into(&file, &out, &["--no-plots"]);
    let summary = summary(&out);
    let flows = summary["flows"].as_array().unwrap();
    let bottleneck = read_pcap(&out.join("pcap/bottleneck.pcap"));
    for (id, flow) in flows.iter().enumerate() {
        let sender = [10, 0, 0, 2 * id as u8 + 1];
        let at_sender = read_pcap(&out.join(format!("pcap/flow{id}.pcap")));
        let (sent, again, highest, acked) = sender_counts(&at_sender, sender);
        assert_eq!(
            sent,
            flow["packets_sent"].as_u64().unwrap(),
            "flow {id} sent"
        );
        assert_eq!(
            again,
            flow["retransmissions"].as_u64().unwrap(),
            "flow {id} resent"
        );
        assert_eq!(
            acked,
            flow["bytes_acked"].as_u64().unwrap(),
            "flow {id} acked"
        );
        assert!(highest >= acked);
        assert!(flow["fct_s"].is_number(), "flow {id} finished");
        // On the bottleneck: what was sent less what was lost on the way (every data drop
        // of this scenario is at the bottleneck).
        let crossed = bottleneck
            .iter()
            .filter(|s| s.source == sender && s.payload > 0)
            .count() as u64;
        assert_eq!(
            crossed,
            sent - flow["drops"].as_u64().unwrap(),
            "flow {id} over the bottleneck"
        );
    }
    if let Some(tshark) = tshark() {
        check_with_tshark(&tshark, &out, flows);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tshark() -> Option<String> {
    let found = Command::new("tshark").arg("--version").output().is_ok();
    if !found && std::env::var_os("CCLAB_REQUIRE_TSHARK").is_some() {
        panic!("CCLAB_REQUIRE_TSHARK is set but tshark is not on PATH");
    }
    found.then(|| "tshark".to_string())
}

fn tshark_fields(tshark: &str, file: &Path, filter: &str, fields: &[&str]) -> Vec<Vec<String>> {
    let mut command = Command::new(tshark);
    command
        .arg("-r")
        .arg(file)
        .args([
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
        ])
        .args(["-Y", filter, "-T", "fields"]);
    for field in fields {
        command.args(["-e", field]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// tshark decodes every packet as TCP with the flows' addresses, finds no bad checksum, and
/// its sequence analysis gives the summary's numbers.
fn check_with_tshark(tshark: &str, out: &Path, flows: &[serde_json::Value]) {
    for (id, flow) in flows.iter().enumerate() {
        let file = out.join(format!("pcap/flow{id}.pcap"));
        let bad = tshark_fields(
            tshark,
            &file,
            "tcp.checksum.status == 0 || ip.checksum.status == 0",
            &["frame.number"],
        );
        assert!(bad.is_empty(), "flow {id}: {} bad checksums", bad.len());
        let sender = format!("10.0.0.{}", 2 * id + 1);
        let data = tshark_fields(
            tshark,
            &file,
            &format!("ip.src == {sender} && tcp.len > 0"),
            &["tcp.seq", "tcp.len"],
        );
        assert_eq!(data.len() as u64, flow["packets_sent"].as_u64().unwrap());
        // Wireshark flags a resent segment "retransmission" or, when it follows the
        // original closely, "out-of-order"; together they are the resent segments.
        let resent = tshark_fields(
            tshark,
            &file,
            "tcp.analysis.retransmission || tcp.analysis.out_of_order",
            &["frame.number"],
        );
        assert_eq!(
            resent.len() as u64,
            flow["retransmissions"].as_u64().unwrap(),
            "flow {id}: resent segments by tshark"
        );
        let acks = tshark_fields(tshark, &file, &format!("ip.dst == {sender}"), &["tcp.ack"]);
        let acked = acks
            .iter()
            .map(|f| f[0].parse::<u64>().unwrap())
            .max()
            .unwrap();
        // Relative ACK numbers count the SYN: byte n is acknowledged as n + 1.
        assert_eq!(acked - 1, flow["bytes_acked"].as_u64().unwrap());
    }
}

#[test]
fn bad_capture_points_are_refused_with_the_links_named() {
    let dir = scratch("pcap", "refused");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        SCENARIO.replace(
            r#"pcap = ["bottleneck", "flows"]"#,
            r#"pcap = ["botleneck"]"#,
        ),
    )
    .unwrap();
    let output = cclab(&["check", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("output.pcap") && message.contains("did you mean \"bottleneck\""),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `handshake = true`: the capture opens with SYN and SYN-ACK and closes with the sender's
/// FIN (on its last segment) and the receiver's; tshark reads them with valid checksums,
/// and the summary gives the handshake time, one round trip of the 60-byte SYN and SYN-ACK.
#[test]
fn a_handshake_shows_in_the_capture() {
    let dir = scratch("pcap", "handshake");
    let file = dir.join("handshake.toml");
    std::fs::write(
        &file,
        r#"
name = "handshake"
duration = "2s"
[topology]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp" }
[[flows]]
cc = "cubic"
size = "100KB"
handshake = true
[output]
pcap = ["flows"]
"#,
    )
    .unwrap();
    let out = dir.join("out");
    run_into(&file, &out, &["--no-plots"]);
    let summary = summary(&out);
    let flow = &summary["flows"][0];
    assert!(flow["handshake_s"].as_f64().unwrap() > 0.040);
    assert_eq!(flow["handshake_drops"].as_u64(), Some(0));
    let segments = read_pcap(&out.join("pcap/flow0.pcap"));
    // SYN (sequence 0), SYN-ACK (acknowledging 1), the data, the receiver's FIN
    // acknowledging 1 + 100 000 + 1.
    assert_eq!((segments[0].sequence, segments[0].payload), (0, 0));
    assert_eq!(segments[1].acknowledgment, 1);
    let last = segments.last().unwrap();
    assert_eq!(last.acknowledgment, 100_002);
    if let Some(tshark) = tshark() {
        let file = out.join("pcap/flow0.pcap");
        let count = |filter: &str| tshark_fields(&tshark, &file, filter, &["frame.number"]).len();
        assert_eq!(
            count("tcp.checksum.status == 0 || ip.checksum.status == 0"),
            0
        );
        assert_eq!(count("tcp.flags.syn == 1 && tcp.flags.ack == 0"), 1);
        assert_eq!(count("tcp.flags.syn == 1 && tcp.flags.ack == 1"), 1);
        assert_eq!(count("tcp.flags.fin == 1 && ip.src == 10.0.0.1"), 1);
        assert_eq!(count("tcp.flags.fin == 1 && ip.src == 10.0.0.2"), 1);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
