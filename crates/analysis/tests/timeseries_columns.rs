//! `timeseries.csv` of a real run, read back by column name: the contract's columns in their
//! order, and values that relate as their definitions say. `bytes_acked` is the sender's
//! cumulative ACK (snd_una) and `delivered_bytes` what the receiver handed its application
//! in order; an ACK reaches the sender a one-way delay after the data reached the receiver,
//! so `bytes_acked ≤ delivered_bytes ≤ bytes_sent` in every row, with the receiver ahead
//! while data is in flight.

use cclab_analysis::CsvSink;
use cclab_sim::Simulation;

/// One 100 KB transfer over 10 Mbit/s; one-way delay 1 + 10 + 1 ms, sampled every 1 ms.
const SCENARIO: &str = r#"
duration = "2s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms" }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = "100KB"
[output]
interval = "1ms"
"#;

const SIZE: u64 = 100_000;

#[test]
fn acked_and_delivered_columns_relate_as_defined() {
    let scenario = cclab_scenario::from_str("t.toml", SCENARIO, &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("cclab-ts-columns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sink = CsvSink::create(&dir).unwrap();
    Simulation::new(&scenario)
        .run(&mut sink, &mut |_| {})
        .unwrap();
    sink.commit().unwrap();
    let mut reader = csv::Reader::from_path(dir.join("timeseries.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    std::fs::remove_dir_all(&dir).unwrap();

    // The contract's columns (docs/outputs.md), in this order.
    assert_eq!(
        header,
        [
            "time_s",
            "flow",
            "cwnd_bytes",
            "ssthresh_bytes",
            "srtt_ms",
            "inflight_bytes",
            "bytes_acked",
            "delivered_bytes",
            "retransmissions",
            "rtt_ms",
            "pacing_rate_bps",
            "mode",
            "bytes_sent",
        ]
    );
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (time, acked, delivered, sent) = (
        column("time_s"),
        column("bytes_acked"),
        column("delivered_bytes"),
        column("bytes_sent"),
    );
    let rows: Vec<(f64, u64, u64, u64)> = records
        .iter()
        .map(|r| {
            (
                r[time].parse().unwrap(),
                r[acked].parse().unwrap(),
                r[delivered].parse().unwrap(),
                r[sent].parse().unwrap(),
            )
        })
        .collect();
    // 2 s at 1 ms: 2000 samples (the one at 0 s included or not).
    assert!(rows.len() >= 2000, "{} rows", rows.len());
    for &(t, acked, delivered, sent) in &rows {
        assert!(
            acked <= delivered && delivered <= sent,
            "at {t} s: acked {acked}, delivered {delivered}, sent {sent}"
        );
    }
    // The sample at which the receiver first holds all 100 KB comes less than 1 ms after
    // the last byte arrived; its ACK needs at least the 12 ms one-way delay, so the sender
    // has not seen it yet.
    let &(t, acked_then, _, _) = rows.iter().find(|r| r.2 == SIZE).unwrap();
    assert!(
        acked_then < SIZE,
        "at {t} s the sender already had the last ACK"
    );
    // By the end (2 s, far beyond the 40 ms delayed-ACK timer) everything is acknowledged.
    let &(_, acked_end, delivered_end, _) = rows.last().unwrap();
    assert_eq!((acked_end, delivered_end), (SIZE, SIZE));
    // While data is in flight the receiver is strictly ahead in many samples, not just one.
    let ahead = rows.iter().filter(|r| r.1 < r.2).count();
    assert!(ahead >= 10, "receiver ahead in only {ahead} samples");
}
