//! Retransmission timeouts in real runs: the sender, not the controller, decides whether a
//! timeout is a new congestion event (RFC 5681 §3.1, Linux `tcp_enter_loss`), and only then
//! may ssthresh change.
//!
//! A lossy path (20 % random loss on a 10 Mbit/s bottleneck) makes many timeouts, and many
//! of them repeat one whose retransmission was lost too. The controllers here are the five
//! that recomputed ssthresh on every timeout before the sender took the rule over (Vegas
//! halved from the 2-segment window of the previous timeout, and so on).

mod common;

use std::marker::PhantomData;

use cclab_cc::{
    Ack, CcConfig, CongestionControl, CongestionEvent, Params, SimTime, SlowStart, TimeoutEvent,
    registry,
};
use common::{Call, Probed, Seen, probe_info, run_observed, scenario};

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
