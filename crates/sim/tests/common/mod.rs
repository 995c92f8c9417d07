//! Shared helpers for the scenario tests: run a scenario from TOML text, and watch what the
//! simulator hands a controller (every call of the `CongestionControl` trait, with the
//! controller's own state after it) without changing the controller or the simulator.
//!
//! Watching works by swapping a flow group's registry entry for a wrapper built by
//! [`probe_info`]: the wrapper builds the real controller from the group's validated
//! parameters, forwards every call to it, and reports the call to an observer installed for
//! the duration of one run on the test's thread.

#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use cclab_cc::{
    Ack, AlgorithmInfo, CcConfig, CongestionControl, CongestionEvent, ControllerMetrics, Params,
    SendsObserved, SimTime, SlowStart, TimeoutEvent,
};
use cclab_scenario::Scenario;
use cclab_sim::{FlowSample, MemorySink, RunResult, Simulation};

pub fn scenario(text: &str) -> Scenario {
    cclab_scenario::from_str("test.toml", text, &[]).expect("valid scenario")
}

pub fn run_scenario(scenario: &Scenario) -> (RunResult, MemorySink) {
    let mut sink = MemorySink::default();
    let result = Simulation::new(scenario)
        .run(&mut sink, &mut |_| {})
        .expect("invariants hold");
    (result, sink)
}

pub fn run(text: &str) -> (RunResult, MemorySink) {
    run_scenario(&scenario(text))
}

/// The first reported link's (the bottleneck's) counters and utilization over the steady
/// window (`[output] steady_from` to the end).
pub fn steady(result: &RunResult) -> (cclab_sim::net::link::LinkStats, f64) {
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let window = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    let utilization = (link.busy - link.busy_at_window_start).as_secs_f64() / window;
    (stats, utilization)
}

/// The smallest queue length below which the queue spent at least `q` of the time
/// (`LinkStats::queue_time_ns`).
pub fn time_weighted_quantile(queue_time_ns: &[u64], q: f64) -> u64 {
    let total: u64 = queue_time_ns.iter().sum();
    let mut below = 0;
    for (pkts, &ns) in queue_time_ns.iter().enumerate() {
        below += ns;
        if below as f64 >= q * total as f64 {
            return pkts as u64;
        }
    }
    queue_time_ns.len() as u64
}

/// Queue samples of the bottleneck in `[from_s, to_s]`: (time s, packets waiting).
pub fn queue_samples(sink: &MemorySink, from_s: f64, to_s: f64) -> Vec<(f64, u64)> {
    sink.links
        .iter()
        .filter(|(_, link, ..)| link == "bottleneck")
        .map(|(t, _, pkts, ..)| (t.as_secs_f64(), *pkts))
        .filter(|(t, _)| *t >= from_s - 1e-9 && *t <= to_s + 1e-9)
        .collect()
}

pub fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    assert!(n > 0, "mean of nothing");
    sum / n as f64
}

/// Flow samples of one flow in `[from_s, to_s]`.
pub fn flow_samples(sink: &MemorySink, flow: u32, from_s: f64, to_s: f64) -> Vec<FlowSample> {
    sink.flows
        .iter()
        .filter(|s| s.flow == flow)
        .filter(|s| {
            let t = s.time.as_secs_f64();
            t >= from_s - 1e-9 && t <= to_s + 1e-9
        })
        .copied()
        .collect()
}

/// Bytes delivered to flow `flow`'s application between two sample times.
pub fn delivered_between(sink: &MemorySink, flow: u32, from_s: f64, to_s: f64) -> u64 {
    let at = |t: f64| {
        sink.flows
            .iter()
            .rfind(|s| s.flow == flow && s.time.as_secs_f64() <= t + 1e-9)
            .map_or(0, |s| s.delivered_bytes)
    };
    at(to_s) - at(from_s)
}

// ---- Watching a controller ------------------------------------------------------------------

/// One call the simulator made on a watched controller.
#[derive(Clone, Copy, Debug)]
pub enum Call {
    Ack(Ack),
    Sent {
        now: SimTime,
        bytes: u64,
        bytes_in_flight: u64,
    },
    Congestion(CongestionEvent),
    /// A timeout the sender judged a new congestion event (ssthresh may change).
    TimeoutCongestion(TimeoutEvent),
    Timeout(TimeoutEvent),
    RecoveryExit(SimTime),
}

/// A call with the controller's state right after it.
#[derive(Clone, Copy, Debug)]
pub struct Seen {
    /// The flow's index among the watched flows, in the simulator's flow order.
    pub flow: u32,
    pub call: Call,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub pacing_rate: Option<u64>,
    pub mode: &'static str,
    /// What the controller reports about its model ([`CongestionControl::metrics`]).
    pub metrics: ControllerMetrics,
    /// Controller-specific state, see [`Probed::state`].
    pub state: [f64; 4],
}

/// A controller that can be watched: how to build it from its registry parameters, and which
/// internal values to report.
pub trait Probed: CongestionControl + Sized + 'static {
    fn build(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self;
    fn state(&self) -> [f64; 4] {
        [0.0; 4]
    }
}

type Observer = Box<dyn FnMut(&Seen)>;

thread_local! {
    static OBSERVER: RefCell<Option<Observer>> = const { RefCell::new(None) };
    static NEXT_FLOW: Cell<u32> = const { Cell::new(0) };
}

struct Probe<C> {
    flow: u32,
    inner: C,
}

impl<C: Probed> Probe<C> {
    fn report(&self, call: Call) {
        let seen = Seen {
            flow: self.flow,
            call,
            cwnd: self.inner.cwnd(),
            ssthresh: self.inner.ssthresh(),
            pacing_rate: self.inner.pacing_rate(),
            mode: self.inner.mode(),
            metrics: self.inner.metrics(),
            state: self.inner.state(),
        };
        OBSERVER.with(|o| {
            if let Some(observer) = o.borrow_mut().as_mut() {
                observer(&seen);
            }
        });
    }
}

impl<C: Probed> CongestionControl for Probe<C> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.inner.on_ack(ack);
        self.report(Call::Ack(*ack));
    }
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.inner.on_congestion_event(event);
        self.report(Call::Congestion(*event));
    }
    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.inner.on_timeout_congestion_event(event);
        self.report(Call::TimeoutCongestion(*event));
    }
    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
        self.inner.on_retransmission_timeout(event);
        self.report(Call::Timeout(*event));
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.inner.on_recovery_exit(now);
        self.report(Call::RecoveryExit(now));
    }
    fn on_reduction_complete(&mut self, now: SimTime) {
        self.inner.on_reduction_complete(now);
    }
    fn observes_sends(&self) -> SendsObserved {
        SendsObserved::All // the probe reports every send, whatever the controller it wraps
    }
    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        self.inner.on_packet_sent(now, bytes, bytes_in_flight);
        self.report(Call::Sent {
            now,
            bytes,
            bytes_in_flight,
        });
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
    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }
}

fn build_probe<C: Probed>(
    config: &CcConfig,
    params: &Params,
    slow_start: Box<dyn SlowStart>,
) -> Box<dyn CongestionControl> {
    let flow = NEXT_FLOW.with(|n| {
        let flow = n.get();
        n.set(flow + 1);
        flow
    });
    Box::new(Probe {
        flow,
        inner: C::build(config, params, slow_start),
    })
}

/// A registry entry that builds a watched `C`. Put it in place of a flow group's `cc` after
/// parsing the scenario with the real controller's name (so its parameters are validated).
pub const fn probe_info<C: Probed>() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "probe",
        aliases: &[],
        summary: "",
        reference: "",
        params: &[],
        uses_slow_start: true,
        initial_ssthresh: cclab_cc::registry::InitialSsthreshUse::GivenOrPacketPair,
        build: build_probe::<C>,
    }
}

/// Run `scenario` while `observe` sees every call on the watched controllers; returns the run
/// and what the observer accumulated in `init`.
pub fn run_observed<T: 'static>(
    scenario: &Scenario,
    init: T,
    mut observe: impl FnMut(&mut T, &Seen) + 'static,
) -> (RunResult, MemorySink, T) {
    let acc = Rc::new(RefCell::new(init));
    let inner = Rc::clone(&acc);
    OBSERVER.with(|o| {
        *o.borrow_mut() = Some(Box::new(move |seen: &Seen| {
            observe(&mut inner.borrow_mut(), seen)
        }))
    });
    NEXT_FLOW.with(|n| n.set(0));
    let (result, sink) = run_scenario(scenario);
    OBSERVER.with(|o| o.borrow_mut().take());
    let acc = Rc::try_unwrap(acc)
        .ok()
        .expect("observer dropped")
        .into_inner();
    (result, sink, acc)
}
