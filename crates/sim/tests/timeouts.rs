//! Retransmission timeouts in real runs: the sender, not the controller, decides whether a
//! timeout is a new congestion event (RFC 5681 §3.1, Linux `tcp_enter_loss`), and only then
//! may ssthresh change.
//!
//! A lossy path (20 % random loss on a 10 Mbit/s bottleneck) makes many timeouts, and many
//! of them repeat one whose retransmission was lost too. The controllers here are the five
//! that recomputed ssthresh on every timeout before the sender took the rule over (Vegas
//! halved from the 2-segment window of the previous timeout, and so on).
//!
//! And when the timer fires: RFC 6298's RTO against Linux's (`rto_estimator`) on a long path
//! with a steady RTT.

mod common;

use std::marker::PhantomData;

use cclab_cc::{
    Ack, CcConfig, CongestionControl, CongestionEvent, Params, SendsObserved, SimTime, SlowStart,
    TimeoutEvent, registry,
};
use common::{Call, Probed, Seen, probe_info, run, run_observed, scenario};

trait Named: Send + 'static {
    const NAME: &'static str;
}

/// A registry controller by name, for the probe: built from the group's validated parameters.
struct Registered<N: Named> {
    inner: Box<dyn CongestionControl>,
    name: PhantomData<N>,
}

impl<N: Named> CongestionControl for Registered<N> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.inner.on_ack(ack)
    }
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.inner.on_congestion_event(event)
    }
    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.inner.on_timeout_congestion_event(event)
    }
    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
        self.inner.on_retransmission_timeout(event)
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.inner.on_recovery_exit(now)
    }
    fn on_reduction_complete(&mut self, now: SimTime) {
        self.inner.on_reduction_complete(now);
    }
    fn observes_sends(&self) -> SendsObserved {
        self.inner.observes_sends()
    }
    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        self.inner.on_packet_sent(now, bytes, bytes_in_flight)
    }
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.inner.assign_window(cwnd, ssthresh)
    }
    fn paces(&self) -> bool {
        self.inner.paces()
    }
    fn pacing_rate(&self) -> Option<u64> {
        self.inner.pacing_rate()
    }
    fn controls_recovery_window(&self) -> bool {
        self.inner.controls_recovery_window()
    }
    fn responds_to_ecn(&self) -> bool {
        self.inner.responds_to_ecn()
    }
    fn mode(&self) -> &'static str {
        self.inner.mode()
    }
}

impl<N: Named> Probed for Registered<N> {
    fn build(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        let info = registry::find_algorithm(N::NAME).expect("registered");
        Registered {
            inner: (info.build)(config, params, slow_start),
            name: PhantomData,
        }
    }
}

/// What the sender did at each timeout: whether it called the ssthresh hook, and ssthresh
/// before and after the timeout; plus whether snd_una advanced since the previous timeout.
#[derive(Clone, Copy, Debug)]
struct Timeout {
    at: f64,
    new_event: bool,
    progress_since_last: bool,
    ssthresh_before: u64,
    ssthresh_after: u64,
}

#[derive(Default)]
struct Log {
    timeouts: Vec<Timeout>,
    ssthresh: u64,
    pending_new: bool,
    ssthresh_before_hook: u64,
    una_at_last_timeout: Option<u64>,
    una: u64,
}

fn observe(log: &mut Log, seen: &Seen) {
    match seen.call {
        Call::Ack(ack) => log.una = log.una.max(ack.snd_una),
        Call::TimeoutCongestion(_) => {
            log.pending_new = true;
            log.ssthresh_before_hook = log.ssthresh;
        }
        Call::Timeout(event) => {
            let before = if log.pending_new {
                log.ssthresh_before_hook
            } else {
                log.ssthresh
            };
            let progress = log.una_at_last_timeout.is_none_or(|una| log.una > una);
            log.timeouts.push(Timeout {
                at: event.now.as_secs_f64(),
                new_event: std::mem::take(&mut log.pending_new),
                progress_since_last: progress,
                ssthresh_before: before,
                ssthresh_after: seen.ssthresh,
            });
            log.una_at_last_timeout = Some(log.una);
        }
        _ => {}
    }
    log.ssthresh = seen.ssthresh;
}

fn timeouts_of<N: Named>() -> Vec<Timeout> {
    let mut s = scenario(&format!(
        r#"
duration = "60s"
seed = 2
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 100, loss = 0.2 }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "{}"
"#,
        N::NAME
    ));
    let info: &'static _ = Box::leak(Box::new(probe_info::<Registered<N>>()));
    s.flows[0].cc = info;
    let (_, _, log) = run_observed(&s, Log::default(), observe);
    log.timeouts
}

fn check<N: Named>() {
    let timeouts = timeouts_of::<N>();
    let repeated = timeouts.iter().filter(|t| !t.progress_since_last).count();
    eprintln!(
        "{}: {} timeouts, {} with no progress since the previous one",
        N::NAME,
        timeouts.len(),
        repeated
    );
    // The path exercises the rule.
    assert!(
        repeated >= 5,
        "{}: only {repeated} repeated timeouts",
        N::NAME
    );
    for t in &timeouts {
        // A timeout with no progress since the previous one repeats it (Linux: Loss state
        // with icsk_retransmits > 0): never a new congestion event.
        if !t.progress_since_last {
            assert!(
                !t.new_event,
                "{}: the timeout at {:.3} s repeats the previous one but was taken as a new \
                 event",
                N::NAME,
                t.at
            );
        }
        if !t.new_event {
            assert_eq!(
                t.ssthresh_after,
                t.ssthresh_before,
                "{}: a timeout within the episode changed ssthresh: {t:?}",
                N::NAME
            );
        }
    }
    // And the first timeout of an episode still lowers it.
    assert!(
        timeouts
            .iter()
            .any(|t| t.new_event && t.ssthresh_after < t.ssthresh_before),
        "{}: no timeout ever lowered ssthresh",
        N::NAME
    );
}

macro_rules! repeated_timeouts_keep_ssthresh {
    ($($test:ident: $ty:ident = $name:literal;)*) => {$(
        struct $ty;
        impl Named for $ty {
            const NAME: &'static str = $name;
        }
        #[test]
        fn $test() {
            check::<$ty>();
        }
    )*};
}

repeated_timeouts_keep_ssthresh! {
    vegas_keeps_ssthresh_across_repeated_timeouts: VegasName = "vegas";
    compound_keeps_ssthresh_across_repeated_timeouts: CompoundName = "compound";
    illinois_keeps_ssthresh_across_repeated_timeouts: IllinoisName = "illinois";
    yeah_keeps_ssthresh_across_repeated_timeouts: YeahName = "yeah";
    fast_keeps_ssthresh_across_repeated_timeouts: FastName = "fast";
}

/// 80 segments over a 600 ms path, two at a time (receive window of 2 segments, far below the
/// BDP, so no queue: every RTT sample is the same), each acknowledged at once; the last one
/// is dropped and nothing follows it, so only the RTO can resend it.
const STEADY_LONG_PATH: &str = r#"
duration = "40s"
[topology]
bottleneck = { rate = "100Mbps", delay = "298ms", buffer = 100 }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = 115840
receive_window = 2
delayed_ack = false
drop = [79]
rto_estimator = "ESTIMATOR"
"#;

#[test]
fn on_a_steady_long_path_linux_times_out_rto_min_after_srtt_and_rfc6298_just_after_it() {
    let flow = |estimator: &str| {
        let (result, _) = run(&STEADY_LONG_PATH.replace("ESTIMATOR", estimator));
        result.flows[0].clone()
    };
    let (rfc, linux) = (flow("rfc6298"), flow("linux"));
    // Segments 78 and 79 leave together in the 40th round trip (39 R after the first);
    // the ACK of 78 restarts the timer at 40 R (RFC 6298 §5.3); the RTO then resends 79,
    // which reaches the receiver D later: completion = 40 R + RTO + D. D = 300 ms of
    // propagation + three 1 500-byte serializations at 100 Mbit/s (0.12 ms each) = 300.36 ms
    // (R itself adds the 52-byte ACK's 3 × 0.004 ms: 600.372 ms).
    for f in [&rfc, &linux] {
        assert_eq!((f.timeouts, f.retransmissions), (1, 1));
    }
    let r = rfc.mean_rtt.expect("samples").as_secs_f64() * 1e3;
    let done = |f: &cclab_sim::FlowResult| f.completed_at.expect("completes").as_secs_f64() * 1e3;
    let d = 300.0 + 3.0 * 0.12;
    let (rfc_rto, linux_rto) = (done(&rfc) - 40.0 * r - d, done(&linux) - 40.0 * r - d);
    eprintln!("R = {r:.3} ms; RTO: rfc6298 {rfc_rto:.3} ms, linux {linux_rto:.3} ms");
    // RFC 6298: 160 identical samples decay RTTVAR (300 ms × 0.75^n) to nothing, so RTO =
    // SRTT + max(G, 4·RTTVAR) = R + 1 ms, above min_rto (200 ms).
    assert!(
        (rfc_rto - (r + 1.0)).abs() < 0.2,
        "rfc6298 RTO {rfc_rto} ms"
    );
    // Linux: rttvar falls once per round trip toward mdev_max, which never drops below
    // rto_min: after 40 round trips it is 200 ms + 1000 ms × 0.75^~36 (under 0.1 ms):
    // RTO = R + 200 ms.
    assert!(
        (linux_rto - (r + 200.0)).abs() < 0.2,
        "linux RTO {linux_rto} ms"
    );
}
