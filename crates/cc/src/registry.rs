//! Every controller and slow-start variant by name, with its parameters and reference.
//! `cclab algorithms`, scenario validation and the simulator all look algorithms up here.

use thiserror::Error;

use crate::algorithms;
use crate::controller::{CcConfig, CongestionControl};
use crate::params::{ParamSpec, Params, did_you_mean};
use crate::slow_start::{self, SlowStart, SlowStartInfo};

/// Builds a controller from its validated parameters and its slow-start part.
pub type BuildController = fn(&CcConfig, &Params, Box<dyn SlowStart>) -> Box<dyn CongestionControl>;

/// A congestion controller in the registry.
pub struct AlgorithmInfo {
    pub name: &'static str,
    /// Other names accepted for the same controller.
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// Primary source(s) the implementation follows.
    pub reference: &'static str,
    pub params: &'static [ParamSpec],
    /// Whether the `slow_start` scenario key applies (false for controllers with their own
    /// start-up, such as Vegas or BBR).
    pub uses_slow_start: bool,
    /// Which `initial_ssthresh` settings the controller honours.
    pub initial_ssthresh: InitialSsthreshUse,
    pub build: BuildController,
}

/// Which `initial_ssthresh` settings a controller honours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialSsthreshUse {
    /// It has no slow-start threshold (BBR, FAST): the key does not apply.
    None,
    /// A given number of segments or bytes (controllers whose own start-up ends at
    /// ssthresh without taking an estimate, such as Vegas).
    Given,
    /// A given value or Hoe's packet-pair estimate (every pluggable slow start, and Hybla).
    GivenOrPacketPair,
}

impl std::fmt::Debug for AlgorithmInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlgorithmInfo({})", self.name)
    }
}

impl std::fmt::Debug for SlowStartInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SlowStartInfo({})", self.name)
    }
}

/// Controllers, grouped as the survey paper does: loss-based, delay-based, hybrid,
/// bandwidth-estimating, then model-based.
pub const ALGORITHMS: &[&AlgorithmInfo] = &[
    &algorithms::reno::INFO,
    &algorithms::highspeed::INFO,
    &algorithms::scalable::INFO,
    &algorithms::bic::INFO,
    &algorithms::cubic::INFO,
    &algorithms::htcp::INFO,
    &algorithms::hybla::INFO,
    &algorithms::libra::INFO,
    &algorithms::dctcp::INFO,
    &algorithms::prague::INFO,
    &algorithms::vegas::INFO,
    &algorithms::dynamic_vegas::INFO,
    &algorithms::fast::INFO,
    &algorithms::copa::INFO,
    &algorithms::ledbat::INFO,
    &algorithms::ledbat_plus_plus::INFO,
    &algorithms::compound::INFO,
    &algorithms::africa::INFO,
    &algorithms::illinois::INFO,
    &algorithms::yeah::INFO,
    &algorithms::veno::INFO,
    &algorithms::westwood::INFO,
    &algorithms::areno::INFO,
    &algorithms::fusion::INFO,
    &algorithms::bbr::INFO,
    &algorithms::bbr3::INFO,
    &algorithms::vivace::INFO,
    &algorithms::xcp::INFO,
    &algorithms::vcp::INFO,
];

/// Slow-start variants, in listing order.
pub const SLOW_STARTS: &[&SlowStartInfo] = &[
    &slow_start::standard::INFO,
    &slow_start::smooth_start::INFO,
    &slow_start::limited::INFO,
    &slow_start::hystart::INFO,
    &slow_start::hystart_plus_plus::INFO,
];

#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown {what} `{name}`{}", match .suggestion {
    Some(s) => format!("; did you mean `{s}`?"),
    None => format!("; known: {}", .known),
})]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub suggestion: Option<&'static str>,
    pub known: String,
}

pub fn find_algorithm(name: &str) -> Result<&'static AlgorithmInfo, UnknownName> {
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.name == name || a.aliases.contains(&name))
        .ok_or_else(|| {
            let all = || {
                ALGORITHMS
                    .iter()
                    .flat_map(|a| std::iter::once(&a.name).chain(a.aliases.iter()))
                    .copied()
            };
            UnknownName {
                what: "algorithm",
                name: name.to_string(),
                suggestion: did_you_mean(name, all()),
                known: all().collect::<Vec<_>>().join(", "),
            }
        })
}

pub fn find_slow_start(name: &str) -> Result<&'static SlowStartInfo, UnknownName> {
    SLOW_STARTS
        .iter()
        .copied()
        .find(|s| s.name == name)
        .ok_or_else(|| UnknownName {
            what: "slow-start variant",
            name: name.to_string(),
            suggestion: did_you_mean(name, SLOW_STARTS.iter().map(|s| s.name)),
            known: SLOW_STARTS
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Build a controller from validated parameters.
pub fn build(
    algorithm: &AlgorithmInfo,
    params: &Params,
    slow_start: &SlowStartInfo,
    slow_start_params: &Params,
    config: &CcConfig,
) -> Box<dyn CongestionControl> {
    let slow_start = (slow_start.build)(config, slow_start_params);
    (algorithm.build)(config, params, slow_start)
}

/// Controllers whose window follows a sending rate they choose (Vivace: cwnd is twice
/// rate × srtt), so that a window handed to them is a rate, not a share of an aggregate
/// window: a coupled group (`sharing = "aggregate"`) refuses them.
pub const WINDOW_FOLLOWS_RATE: &[&str] = &["vivace"];

/// Whether a coupled group can hand `algorithm` its share of the aggregate window
/// ([`CongestionControl::assign_window`] then sets the window it sends by).
pub fn takes_assigned_window(algorithm: &AlgorithmInfo) -> bool {
    !WINDOW_FOLLOWS_RATE.contains(&algorithm.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::SendsObserved;

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(find_algorithm("reno").unwrap().name, "reno");
        assert_eq!(find_algorithm("newreno").unwrap().name, "reno");
        assert_eq!(find_slow_start("standard").unwrap().name, "standard");
    }

    #[test]
    fn unknown_names_get_a_suggestion() {
        let err = find_algorithm("renoo").err().unwrap();
        assert_eq!(
            err.to_string(),
            "unknown algorithm `renoo`; did you mean `reno`?"
        );
    }

    #[test]
    fn every_entry_builds_with_defaults_and_reports_its_name() {
        let config = CcConfig::new(1448);
        for algorithm in ALGORITHMS {
            for slow_start in SLOW_STARTS {
                let cc = build(
                    algorithm,
                    &Params::defaults(algorithm.params),
                    slow_start,
                    &Params::defaults(slow_start.params),
                    &config,
                );
                assert_eq!(cc.name(), algorithm.name);
                assert_eq!(
                    cc.cwnd(),
                    config.initial_cwnd,
                    "{} does not start at the initial window",
                    algorithm.name
                );
            }
        }
    }

    /// The sender alone decides whether a timeout is a new congestion event (RFC 5681 §3.1,
    /// Linux `tcp_enter_loss`); a controller sets ssthresh in `on_timeout_congestion_event`
    /// only. Before the sender took the rule over, Compound, Illinois, YeAH, Vegas and FAST
    /// recomputed ssthresh on every timeout, from the 1-segment window of the previous one.
    #[test]
    fn only_a_new_timeout_congestion_event_sets_ssthresh() {
        use crate::controller::{TimeoutEvent, UNLIMITED};
        use crate::test_support::{ack_with_rtt, new_timeout};
        use crate::time::{SimDuration, SimTime};
        let mss = 1448;
        let config = CcConfig::new(mss);
        for algorithm in ALGORITHMS {
            let mut cc = build(
                algorithm,
                &Params::defaults(algorithm.params),
                &slow_start::standard::INFO,
                &Params::defaults(slow_start::standard::INFO.params),
                &config,
            );
            for i in 0..40 {
                cc.on_ack(&ack_with_rtt(mss, 100 + i, 100));
            }
            let window = cc.cwnd();
            let first = TimeoutEvent {
                now: SimTime::ZERO + SimDuration::from_secs(2),
                bytes_in_flight: window,
            };
            new_timeout(cc.as_mut(), &first);
            let ssthresh = cc.ssthresh();
            if !matches!(algorithm.name, "bbr" | "bbr3" | "copa" | "vivace") {
                // Every controller with a slow-start threshold sets one (BBR, Copa and Vivace
                // have none: bbr.md, copa.md, vivace.md); none below RFC 5681's 2 SMSS.
                assert!(
                    ssthresh != UNLIMITED && ssthresh >= 2 * mss,
                    "{}: ssthresh {ssthresh} after a timeout at cwnd {window}",
                    algorithm.name
                );
            }
            // RFC 5681's 1-segment loss window (ns-2 Vegas restarts from 2, vegas.md).
            assert!(cc.cwnd() <= 2 * mss, "{}: the loss window", algorithm.name);
            // Backed-off timeouts of the same episode (the sender skips the ssthresh call).
            for k in 1..=3u64 {
                cc.on_retransmission_timeout(&TimeoutEvent {
                    now: first.now + SimDuration::from_secs(k),
                    bytes_in_flight: mss,
                });
                assert_eq!(
                    cc.ssthresh(),
                    ssthresh,
                    "{}: timeout {} of one episode changed ssthresh",
                    algorithm.name,
                    k + 1
                );
            }
        }
    }

    /// TCB sharing hands every member its share (seed-spec §3.4 step 1: cwnd(i) = P(i)·S_CW/S_P,
    /// ssthresh(i) = P(i)·S_SS/S_P): after `assign_window` a controller's cwnd is the share,
    /// whatever state its own rules left it in, and so is ssthresh where it has one.
    #[test]
    fn every_controller_that_takes_a_window_takes_it_exactly() {
        use crate::controller::UNLIMITED;
        use crate::test_support::ack_with_rtt;
        let mss = 1448;
        let config = CcConfig::new(mss);
        let no_threshold = ["bbr", "bbr3", "copa"];
        for algorithm in ALGORITHMS.iter().filter(|a| takes_assigned_window(a)) {
            let mut cc = build(
                algorithm,
                &Params::defaults(algorithm.params),
                &slow_start::standard::INFO,
                &Params::defaults(slow_start::standard::INFO.params),
                &config,
            );
            for i in 0..30 {
                cc.on_ack(&ack_with_rtt(mss, 100 + i, 100));
            }
            for (cwnd, ssthresh) in [
                (7 * mss, 5 * mss),
                (23 * mss + 100, UNLIMITED),
                (mss, 2 * mss),
            ] {
                cc.assign_window(cwnd, ssthresh);
                assert_eq!(cc.cwnd(), cwnd, "{}: assigned cwnd", algorithm.name);
                let expected = if no_threshold.contains(&algorithm.name) {
                    UNLIMITED
                } else {
                    ssthresh
                };
                assert_eq!(
                    cc.ssthresh(),
                    expected,
                    "{}: assigned ssthresh",
                    algorithm.name
                );
            }
        }
    }

    /// Linux `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`, the undo of every module
    /// but BBR's: after a spurious timeout cwnd = max(cwnd, prior_cwnd) and ssthresh =
    /// max(ssthresh, prior_ssthresh), where the sender saved prior_cwnd = the window before
    /// the timeout and prior_ssthresh = `tcp_current_ssthresh` = max(ssthresh, ¾·cwnd).
    /// BBR v1 and v3 (`bbr_undo_cwnd`) return the window unchanged; Vivace's window is set
    /// by its rate (its own test).
    #[test]
    fn every_algorithm_undoes_a_spurious_timeout() {
        use crate::controller::UndoEvent;
        use crate::test_support::{ack_with_rtt, new_timeout};
        use crate::time::{SimDuration, SimTime};
        let mss = 1448;
        let config = CcConfig::new(mss);
        for algorithm in ALGORITHMS {
            let mut cc = build(
                algorithm,
                &Params::defaults(algorithm.params),
                &slow_start::standard::INFO,
                &Params::defaults(slow_start::standard::INFO.params),
                &config,
            );
            for i in 0..40 {
                cc.on_ack(&ack_with_rtt(mss, 100 + i, 100));
            }
            let (prior_cwnd, ssthresh_before) = (cc.cwnd(), cc.ssthresh());
            let prior_ssthresh = ssthresh_before.max(prior_cwnd / 2 + prior_cwnd / 4);
            let now = SimTime::ZERO + SimDuration::from_secs(2);
            new_timeout(
                cc.as_mut(),
                &crate::controller::TimeoutEvent {
                    now,
                    bytes_in_flight: prior_cwnd,
                },
            );
            let (cwnd_after, ssthresh_after) = (cc.cwnd(), cc.ssthresh());
            cc.on_undo(&UndoEvent {
                now,
                prior_cwnd,
                prior_ssthresh,
            });
            match algorithm.name {
                "bbr" | "bbr3" => assert_eq!(cc.cwnd(), cwnd_after, "{}", algorithm.name),
                "vivace" => {}
                name => {
                    assert_eq!(cc.cwnd(), prior_cwnd.max(cwnd_after), "{name}: cwnd");
                    assert_eq!(
                        cc.ssthresh(),
                        prior_ssthresh.max(ssthresh_after),
                        "{name}: ssthresh"
                    );
                }
            }
        }
    }

    /// A group assigns on every member's ACK, so a controller must keep its growth counter
    /// across assignments. Reno (RFC 3465 §2.1): cwnd += SMSS once cwnd bytes are acknowledged.
    /// At cwnd 10 SMSS in congestion avoidance, 5 SMSS acknowledged, then the group assigns
    /// 10 SMSS again: 5 more SMSS reach the 10 SMSS count, so cwnd becomes 11 SMSS.
    #[test]
    fn an_assignment_keeps_the_growth_counter() {
        use crate::test_support::ack_with_rtt;
        let mss = 1448;
        let config = CcConfig::new(mss);
        let mut cc = build(
            find_algorithm("reno").expect("registered"),
            &Params::defaults(&[]),
            &slow_start::standard::INFO,
            &Params::defaults(slow_start::standard::INFO.params),
            &config,
        );
        cc.assign_window(10 * mss, 5 * mss);
        for i in 0..5 {
            cc.on_ack(&ack_with_rtt(mss, 100 + i, 100));
        }
        assert_eq!(cc.cwnd(), 10 * mss);
        cc.assign_window(10 * mss, 5 * mss);
        for i in 5..10 {
            cc.on_ack(&ack_with_rtt(mss, 100 + i, 100));
        }
        assert_eq!(cc.cwnd(), 11 * mss);
    }

    /// What a controller shows the sender after each step: cwnd, ssthresh, pacing rate, mode
    /// and its metrics (as text: NaN is not equal to itself).
    type Observed = (u64, u64, Option<u64>, &'static str, String);

    fn observe(cc: &dyn CongestionControl) -> Observed {
        (
            cc.cwnd(),
            cc.ssthresh(),
            cc.pacing_rate(),
            cc.mode(),
            format!("{:?}", cc.metrics()),
        )
    }

    /// A run of 60 rounds as a sender drives a controller: ACK-clocked sends with RTT and
    /// delivery-rate samples, idle periods (nothing in flight, then a send from idle), two
    /// fast recoveries and two timeouts. `on_packet_sent` is called for the segments `calls`
    /// names: none, those sent from an empty pipe, or every one.
    fn drive(cc: &mut dyn CongestionControl, mss: u64, calls: SendsObserved) -> Vec<Observed> {
        use crate::controller::{Ack, CongestionEvent, RateSample, TimeoutEvent};
        use crate::test_support::{ack, new_timeout};
        use crate::time::{SimDuration, SimTime};
        let mut trace = Vec::new();
        let mut now = SimTime::ZERO;
        let (mut snd_una, mut snd_nxt, mut delivered) = (0u64, 0u64, 0u64);
        let mut min_rtt: Option<SimDuration> = None;
        let send = |cc: &mut dyn CongestionControl, now: SimTime, snd_nxt: &mut u64, una: u64| {
            *snd_nxt += mss;
            let in_flight = *snd_nxt - una;
            if calls == SendsObserved::All || (calls == SendsObserved::FromIdle && in_flight <= mss)
            {
                cc.on_packet_sent(now, mss, in_flight);
            }
        };
        for round in 0..60u64 {
            let rtt = SimDuration::from_millis(60 + (round * 7) % 23);
            let drain = round % 15 == 7;
            let target = (cc.cwnd() / mss).clamp(1, 64);
            while snd_nxt - snd_una < target * mss {
                send(cc, now, &mut snd_nxt, snd_una);
            }
            trace.push(observe(cc));
            let prior_delivered = delivered;
            let start = now;
            let to_ack = if drain {
                (snd_nxt - snd_una) / mss
            } else {
                (snd_nxt - snd_una).div_ceil(2 * mss)
            };
            for i in 0..to_ack {
                now = start + rtt + SimDuration::from_micros(100 * i);
                let prior_in_flight = snd_nxt - snd_una;
                snd_una += mss;
                delivered += mss;
                min_rtt = Some(min_rtt.map_or(rtt, |m| m.min(rtt)));
                cc.on_ack(&Ack {
                    now,
                    rtt: Some(rtt),
                    min_rtt,
                    srtt: Some(rtt),
                    prior_in_flight,
                    bytes_in_flight: snd_nxt - snd_una,
                    delivered,
                    snd_una,
                    snd_nxt,
                    rate_sample: Some(RateSample {
                        delivered: delivered - prior_delivered,
                        interval: rtt,
                        prior_delivered,
                        is_app_limited: false,
                    }),
                    ..ack(mss)
                });
                trace.push(observe(cc));
                if !drain && i % 2 == 0 {
                    send(cc, now, &mut snd_nxt, snd_una);
                }
            }
            if drain {
                now += SimDuration::from_secs(3); // idle: the next send starts from nothing
            }
            let flight = snd_nxt - snd_una;
            if round % 30 == 12 {
                cc.on_congestion_event(&CongestionEvent {
                    now,
                    bytes_in_flight: flight,
                    srtt: Some(rtt),
                    min_rtt,
                });
                trace.push(observe(cc));
                cc.on_recovery_exit(now);
            }
            if round % 30 == 27 {
                let event = TimeoutEvent {
                    now,
                    bytes_in_flight: flight,
                };
                new_timeout(cc, &event);
            }
            trace.push(observe(cc));
        }
        trace
    }

    /// The sender makes only the `on_packet_sent` calls a controller's `observes_sends`
    /// names, and asks `pacing_rate` only of one whose `paces` is true
    /// (`crates/sim/src/tcp/sender`): every registered controller must behave the same with
    /// the calls it names as with every call. The run must tell an observing controller
    /// apart (else it proves nothing): at least one behaves differently with no calls at all
    /// (Vegas and the others that count rounds from sends do; CUBIC's shift of its epoch
    /// after idle, by one RTT here, does not show in these windows).
    #[test]
    fn every_controller_declares_the_calls_it_uses() {
        let mss = 1448;
        let config = CcConfig::new(mss);
        let built = |algorithm: &AlgorithmInfo| {
            build(
                algorithm,
                &Params::defaults(algorithm.params),
                &slow_start::standard::INFO,
                &Params::defaults(slow_start::standard::INFO.params),
                &config,
            )
        };
        let mut observers_told_apart = 0;
        for algorithm in ALGORITHMS {
            let name = algorithm.name;
            let declared = built(algorithm).observes_sends();
            let run = |calls| drive(built(algorithm).as_mut(), mss, calls);
            let every_call = run(SendsObserved::All);
            assert_eq!(
                run(declared),
                every_call,
                "{name} uses on_packet_sent calls beyond {declared:?}"
            );
            if declared != SendsObserved::None {
                observers_told_apart += usize::from(run(SendsObserved::None) != every_call);
            }
            if !built(algorithm).paces() {
                assert!(
                    every_call.iter().all(|step| step.2.is_none()),
                    "{name} sets a pacing rate"
                );
            }
        }
        assert!(observers_told_apart > 0, "the run tells no observer apart");
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ALGORITHMS
            .iter()
            .flat_map(|a| std::iter::once(&a.name).chain(a.aliases.iter()))
            .copied()
            .collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate algorithm name or alias");
    }
}
