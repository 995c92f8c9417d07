//! What the simulator hands a congestion controller, checked against the dumbbell's own
//! arithmetic: per-ACK RTT samples and the minimum RTT, delivery-rate samples
//! (draft-cheng-iccrg-delivery-rate-estimation), app-limited marking, and pacing.
//!
//! A fixed-window controller (below) makes the expected values exact: with a constant window
//! of W segments the sender is a pure ACK clock, so every quantity follows from the link
//! rates and delays. All links here serialize 1500-byte data packets (MSS 1448 + 52 bytes of
//! headers) and 52-byte ACKs (no SACK blocks: nothing is lost).

mod common;

use cclab_cc::{
    AlgorithmInfo, CcConfig, CongestionControl, CongestionEvent, Params, SimDuration, SimTime,
    SlowStart, TimeoutEvent, UNLIMITED,
};
use common::{Call, Probed, Seen, probe_info, queue_samples, run_observed, scenario};

/// A controller that keeps cwnd at the scenario's initial window whatever happens, and paces
/// at `PACING_BPS` (bit/s of payload) unless it is 0.
struct FixedWindow<const PACING_BPS: u64> {
    cwnd: u64,
}

impl<const PACING_BPS: u64> CongestionControl for FixedWindow<PACING_BPS> {
    fn name(&self) -> &'static str {
        "fixed-window"
    }
    fn on_ack(&mut self, _: &cclab_cc::Ack) {}
    fn on_congestion_event(&mut self, _: &CongestionEvent) {}
    fn on_timeout_congestion_event(&mut self, _: &TimeoutEvent) {}
    fn on_retransmission_timeout(&mut self, _: &TimeoutEvent) {}
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        UNLIMITED
    }
    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        let _ = ssthresh;
        self.cwnd = cwnd;
    }
    fn paces(&self) -> bool {
        true
    }
    fn pacing_rate(&self) -> Option<u64> {
        (PACING_BPS > 0).then_some(PACING_BPS)
    }
}

impl<const PACING_BPS: u64> Probed for FixedWindow<PACING_BPS> {
    fn build(config: &CcConfig, _: &Params, _: Box<dyn SlowStart>) -> Self {
        FixedWindow {
            cwnd: config.initial_cwnd,
        }
    }
}

static FIXED: AlgorithmInfo = probe_info::<FixedWindow<0>>();
/// 4 Mbit/s of payload: well below the 10 Mbit/s bottleneck.
const PACED_BPS: u64 = 4_000_000;
static FIXED_PACED: AlgorithmInfo = probe_info::<FixedWindow<PACED_BPS>>();

const MSS: u64 = 1448;
const WIRE: u64 = 1500;
const ACK_WIRE: u64 = 52;
const BOTTLENECK_BPS: u64 = 10_000_000;
const ACCESS_BPS: u64 = 1_000_000_000;

/// Serialization time of `bytes` at `bps`, in ns (exact for the sizes used here).
fn tx_ns(bytes: u64, bps: u64) -> u64 {
    assert_eq!(bytes * 8 * 1_000_000_000 % bps, 0, "not a whole ns");
    bytes * 8 * 1_000_000_000 / bps
}

/// Bottleneck serialization of one data packet: 1500 · 8 / 10 Mbit/s = 1.2 ms.
fn t_data() -> u64 {
    tx_ns(WIRE, BOTTLENECK_BPS)
}

/// The round trip of one segment through empty queues: 2 · (1 + 10 + 1) ms of propagation,
/// the data packet serialized on both access links (12 µs each) and the bottleneck (1.2 ms),
/// the ACK on both access links (0.416 µs each) and the reverse bottleneck (41.6 µs):
/// 25.266432 ms.
fn base_rtt_ns() -> u64 {
    24_000_000
        + 2 * tx_ns(WIRE, ACCESS_BPS)
        + tx_ns(WIRE, BOTTLENECK_BPS)
        + 2 * tx_ns(ACK_WIRE, ACCESS_BPS)
        + tx_ns(ACK_WIRE, BOTTLENECK_BPS)
}

fn fixed_window_run(
    info: &'static AlgorithmInfo,
    window: u64,
    extra: &str,
    duration: &str,
) -> (cclab_sim::RunResult, cclab_sim::MemorySink, Vec<Seen>) {
    let mut s = scenario(&format!(
        r#"
duration = "{duration}"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 1000 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
delayed_ack = false
initial_window = {window}
{extra}
[output]
interval = "10ms"
"#
    ));
    s.flows[0].cc = info;
    run_observed(&s, Vec::new(), |log: &mut Vec<Seen>, seen| log.push(*seen))
}

fn acks(log: &[Seen]) -> impl Iterator<Item = &cclab_cc::Ack> {
    log.iter().filter_map(|s| match &s.call {
        Call::Ack(ack) => Some(ack),
        _ => None,
    })
}

#[test]
fn below_the_bdp_every_rtt_sample_is_the_base_rtt() {
    // BDP = 10 Mbit/s · 25.27 ms = 21.06 packets; a window of 10 keeps the queue empty once
    // the initial burst is through, so each ACK-clocked segment sees exactly the base RTT.
    let base = base_rtt_ns();
    assert_eq!(base, 25_266_432);
    let (_, sink, log) = fixed_window_run(&FIXED, 10, "", "3s");
    let mut running_min = u64::MAX;
    let mut after_first_second = 0;
    for ack in acks(&log) {
        let rtt = ack
            .rtt
            .expect("no retransmissions: every ACK gives a sample");
        running_min = running_min.min(rtt.as_nanos());
        // The connection's min RTT is the smallest sample so far, this one included.
        assert_eq!(ack.min_rtt.unwrap().as_nanos(), running_min);
        assert!(rtt.as_nanos() >= base, "{rtt:?} below the base RTT");
        if ack.now.as_secs_f64() > 1.0 {
            assert_eq!(rtt.as_nanos(), base, "at {:?}", ack.now);
            after_first_second += 1;
        }
        // Without SACK blocks or loss the delivered count is the cumulative ACK.
        assert_eq!(ack.delivered, ack.snd_una);
    }
    assert_eq!(running_min, base);
    // 10 segments per 25.27 ms for 2 s: about 790 ACKs.
    assert!(
        (780..=800).contains(&after_first_second),
        "{after_first_second}"
    );
    assert!(queue_samples(&sink, 1.0, 3.0).iter().all(|&(_, q)| q == 0));

    // The delivery rate of a window-limited flow is the window per round trip:
    // 10 · 1448 · 8 / 25.266432 ms = 4.5847 Mbit/s, exactly, on every sample.
    let expected = (10 * MSS * 8) as f64 / (base as f64 / 1e9);
    for ack in acks(&log).filter(|a| a.now.as_secs_f64() > 1.0) {
        let rs = ack.rate_sample.expect("a sample per ACK");
        assert!(!rs.is_app_limited, "a bulk flow is never app-limited");
        assert_eq!(rs.delivered, 10 * MSS);
        assert_eq!(rs.interval.as_nanos(), base);
        assert!((rs.rate_bps() - expected).abs() < 1e-6 * expected);
    }
}

#[test]
fn above_the_bdp_samples_see_the_queue_and_the_bottleneck_payload_rate() {
    // W = 40 segments > BDP. The bottleneck never idles, so ACKs return one per 1.2 ms and
    // each releases one segment: the segment sent at the ACK of segment n is acknowledged
    // 40 departures later, RTT = W · 1.2 ms = 48 ms exactly (Little's law with the link as
    // the clock). The queue holds what the pipe cannot: 40 − 25.266432/1.2 = 18.94
    // packets, so 18 or 19 are waiting at any instant.
    let w = 40;
    let (result, sink, log) = fixed_window_run(&FIXED, w, "", "3s");
    let expected_rtt = w * t_data();
    let mut late = 0;
    for ack in acks(&log).filter(|a| a.now.as_secs_f64() > 1.0) {
        assert_eq!(
            ack.rtt.unwrap().as_nanos(),
            expected_rtt,
            "at {:?}",
            ack.now
        );
        assert_eq!(ack.min_rtt.unwrap().as_nanos(), base_rtt_ns());
        // Delivery rate (draft-cheng §3.3): the 40 segments delivered since the sampled one
        // was sent, over max(send_elapsed, ack_elapsed) = 40 · 1.2 ms: the bottleneck's
        // payload rate 10 Mbit/s · 1448/1500 = 9.6533 Mbit/s.
        let rs = ack.rate_sample.unwrap();
        assert!(!rs.is_app_limited);
        assert_eq!(rs.delivered, w * MSS);
        assert_eq!(rs.interval.as_nanos(), expected_rtt);
        let payload_rate = BOTTLENECK_BPS as f64 * MSS as f64 / WIRE as f64;
        assert!((rs.rate_bps() - payload_rate).abs() < 1e-6 * payload_rate);
        late += 1;
    }
    assert!(late > 1600, "{late} ACKs in 2 s at one per 1.2 ms");
    let pipe = base_rtt_ns() as f64 / t_data() as f64;
    let standing = w as f64 - pipe;
    for (t, q) in queue_samples(&sink, 1.0, 3.0) {
        assert!(
            q == standing.floor() as u64 || q == standing.ceil() as u64,
            "queue {q} at {t} s, expected {standing:.2}"
        );
    }
    assert_eq!(result.links[0].stats.drops(), 0);
}

#[test]
fn a_finite_flow_marks_what_it_sends_after_running_out_of_data_app_limited() {
    // 30 segments under a 50-segment window: the sender sends them all at once and then has
    // nothing more although the window allows it, so (draft-cheng §3.4) C.app_limited =
    // delivered + in flight = 30 segments. The last segment is dropped once; no later data
    // produces duplicate ACKs, so the RTO resends it while the app-limited period (which
    // ends only once 30 segments are delivered) is still running: its rate sample, and only
    // that one, is app-limited.
    let (result, _, log) = fixed_window_run(
        &FIXED,
        50,
        &format!("size = {}\ndrop = [29]", 30 * MSS),
        "3s",
    );
    let flow = &result.flows[0];
    assert_eq!(flow.delivered_bytes, 30 * MSS);
    assert_eq!((flow.timeouts, flow.retransmissions), (1, 1));
    let samples: Vec<_> = acks(&log).filter_map(|a| a.rate_sample).collect();
    let (last, before) = samples.split_last().expect("samples");
    assert!(
        last.is_app_limited,
        "the retransmission was sent app-limited"
    );
    assert_eq!(last.prior_delivered, 29 * MSS);
    assert!(before.iter().all(|s| !s.is_app_limited), "{before:?}");

    // The same flow held back by the receiver's window (10 segments) instead is not
    // app-limited: the application had data (draft §3.4 marks only an empty send buffer).
    let (_, _, log) = fixed_window_run(&FIXED, 50, "receive_window = 10", "2s");
    let samples: Vec<_> = acks(&log).filter_map(|a| a.rate_sample).collect();
    assert!(samples.len() > 500);
    assert!(samples.iter().all(|s| !s.is_app_limited));
}

#[test]
fn pacing_spaces_payload_at_the_controllers_rate() {
    // Pacing at 4 Mbit/s of payload: each 1448-byte segment leaves 1448 · 8 / 4e6 s =
    // 2.896 ms after the previous one, from the very first (the 100-segment window never
    // limits: 4 Mbit/s · 25 ms ≈ 9 segments are in flight).
    let gap = tx_ns(MSS, PACED_BPS);
    assert_eq!(gap, 2_896_000);
    let (result, sink, log) = fixed_window_run(&FIXED_PACED, 100, "", "2s");
    let sends: Vec<SimTime> = log
        .iter()
        .filter_map(|s| match s.call {
            Call::Sent { now, bytes, .. } => {
                assert_eq!(bytes, MSS);
                Some(now)
            }
            _ => None,
        })
        .collect();
    for (i, pair) in sends.windows(2).enumerate() {
        assert_eq!(
            (pair[1] - pair[0]).as_nanos(),
            gap,
            "segments {i} and {}",
            i + 1
        );
    }
    // 2 s / 2.896 ms = 690.6: segments 0..=690 left by the end.
    assert_eq!(sends.len(), 691);
    // Paced below the bottleneck rate, packets never wait there ...
    assert_eq!(result.links[0].stats.max_queue_pkts, 0);
    assert!(queue_samples(&sink, 0.0, 2.0).iter().all(|&(_, q)| q == 0));
    // ... and the delivery rate is the pacing rate (the ACK clock is the pacing clock), and
    // not app-limited: the application had data, pacing held it back.
    for ack in acks(&log).filter(|a| a.now.as_secs_f64() > 0.5) {
        let rs = ack.rate_sample.unwrap();
        assert!(!rs.is_app_limited);
        assert!(
            (rs.rate_bps() - PACED_BPS as f64).abs() < 1e-6 * PACED_BPS as f64,
            "{} bit/s",
            rs.rate_bps()
        );
        // No queue: every RTT sample is the base RTT.
        assert_eq!(ack.rtt.unwrap(), SimDuration::from_nanos(base_rtt_ns()));
    }
}
