//! Smooth-start: H. Wang, H. Xin, D. S. Reeves, K. G. Shin, "A Simple Refinement of
//! Slow-start of TCP Congestion Control", Proc. 5th IEEE Symposium on Computers and
//! Communications (ISCC 2000). The formulas were lost from the paper's text; the algorithm
//! below is the reconstruction of seed-spec §1.3, which reproduces the paper's Table III to
//! 0.1 point (tested here).
//!
//! Below the separator `smsthresh = ssthresh / 2^m` (m = depth) cwnd grows as in slow start,
//! one segment per acknowledged segment. Above it the Smooth-start period is split into the
//! halving intervals `[S/2^k, S/2^(k-1))`, k = m … 1, and each interval `[L, 2L)` into n + 1
//! equal steps by n lag points at `L + j·L/(n+1)`. In the i-th step (the i-th RTT of the
//! sub-phase) it takes n + i acknowledged segments to add one segment to cwnd; that RTT
//! carries `L·(n+i)/(n+1)` segments, so cwnd advances exactly one step per RTT, and every
//! sub-phase costs n extra RTTs compared with slow start: m·n in all.
//!
//! Windows are bytes here, so one segment is `window.mss` bytes and every increment is
//! `mss/(n+i)` bytes. The fractions are kept exactly: the internal window is cwnd in units
//! of `1/scale` byte, where `scale = 2^m · lcm(n+1, …, 2n+1)` makes every increment, every
//! sub-phase bound `S/2^k` and every lag-point test an integer. The controller sees the
//! whole bytes (rounded down). The rule is applied once per acknowledged segment
//! (`bytes_acked / mss`, remainder carried), so delayed ACKs give the same growth per RTT.

use super::segments::SegmentCounter;
use super::{SlowStart, SlowStartInfo, Window};
use crate::controller::Ack;
use crate::metrics::SlowStartExit;
use crate::params::{ParamSpec, Params};

/// The paper's four probe strategies: (name, depth m, lag points n). "Coarse"/"fine" insert
/// one/two lag points per halving interval; "-2"/"-4" put the separator at ssthresh/2 or /4.
const PROBES: &[(&str, u32, u32)] = &[
    ("coarse-2", 1, 1),
    ("coarse-4", 2, 1),
    ("fine-2", 1, 2),
    ("fine-4", 2, 2),
];
const PROBE_NAMES: &[&str] = &["coarse-2", "coarse-4", "fine-2", "fine-4"];

/// Largest depth and lag-point count accepted: with both at 8 the fixed-point scale is
/// 2^8 · lcm(9..=17) ≈ 3.1e9, and a cwnd of 10^13 bytes still fits in a u128 many times over.
pub const MAX_DEPTH: u32 = 8;
pub const MAX_LAG_POINTS: u32 = 8;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("probe", "fine-4", PROBE_NAMES).doc(
        "the paper's probe strategy: coarse|fine = 1|2 lag points per halving interval, \
         -2|-4 = separator ssthresh/2|ssthresh/4",
    ),
    ParamSpec::integer("depth", -1, -1, MAX_DEPTH as i64).doc(
        "m, separator smsthresh = ssthresh/2^m; -1 keeps the probe's, 0 gives standard slow start",
    ),
    ParamSpec::integer("lag_points", -1, -1, MAX_LAG_POINTS as i64)
        .unit("per halving interval")
        .doc(
            "n, lag points per halving interval; -1 keeps the probe's, 0 gives standard slow start",
        ),
];

pub const INFO: SlowStartInfo = SlowStartInfo {
    name: "smooth-start",
    summary: "slow start until ssthresh/2^m, then n lag points per halving interval (n+i ACKs per \
              increment in the i-th RTT): m*n extra RTTs, gentler approach to ssthresh",
    reference: "Wang, Xin, Reeves, Shin, \"A Simple Refinement of Slow-start of TCP Congestion \
                Control\", IEEE ISCC 2000 (reconstruction: seed-spec §1.3, Table III)",
    params: PARAMS,
    build: |_config, params| Box::new(SmoothStart::from_params(params)),
};

#[derive(Clone, Debug)]
pub struct SmoothStart {
    depth: u32,
    lag_points: u32,
    /// Fixed-point scale of `exact_cwnd`: 2^m · lcm(n+1, …, 2n+1).
    scale: u128,
    /// cwnd in bytes × `scale`, keeping the fractions the increments leave.
    exact_cwnd: u128,
    /// The cwnd this part last wrote; if the controller changed cwnd since (a loss), the exact
    /// window restarts from the controller's value.
    written_cwnd: Option<u64>,
    segments: SegmentCounter,
}

impl SmoothStart {
    /// Depth m and lag points n (each at most 8; larger values are reduced to 8).
    pub fn new(depth: u32, lag_points: u32) -> Self {
        let depth = depth.min(MAX_DEPTH);
        let lag_points = lag_points.min(MAX_LAG_POINTS);
        let lcm = (lag_points + 1..=2 * lag_points + 1)
            .map(u128::from)
            .fold(1, |acc, q| acc / gcd(acc, q) * q);
        SmoothStart {
            depth,
            lag_points,
            scale: lcm << depth,
            exact_cwnd: 0,
            written_cwnd: None,
            segments: SegmentCounter::new(),
        }
    }

    /// One of the paper's probes by name (`coarse-2`, `coarse-4`, `fine-2`, `fine-4`).
    pub fn probe(name: &str) -> Option<Self> {
        PROBES
            .iter()
            .find(|(probe, _, _)| *probe == name)
            .map(|&(_, depth, lag_points)| SmoothStart::new(depth, lag_points))
    }

    /// The probe sets (m, n); a `depth` or `lag_points` of 0 or more overrides its half.
    pub fn from_params(params: &Params) -> Self {
        let probe = params.choice("probe");
        let &(_, probe_depth, probe_lag_points) = PROBES
            .iter()
            .find(|(name, _, _)| *name == probe)
            .expect("`probe` is validated against PROBE_NAMES, which lists exactly PROBES");
        let override_or = |name: &str, probe_value: u32| {
            let value = params.number(name);
            if value >= 0.0 {
                value as u32
            } else {
                probe_value
            }
        };
        SmoothStart::new(
            override_or("depth", probe_depth),
            override_or("lag_points", probe_lag_points),
        )
    }

    /// Depth number m (separator ssthresh/2^m).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Lag points n per halving interval.
    pub fn lag_points(&self) -> u32 {
        self.lag_points
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl SlowStart for SmoothStart {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        let scale = self.scale;
        if self.written_cwnd != Some(window.cwnd) {
            self.exact_cwnd = u128::from(window.cwnd) * scale;
        }
        let ssthresh = u128::from(window.ssthresh) * scale;
        // Exact: scale carries the factor 2^m, so every ssthresh/2^k (k ≤ m) is an integer.
        let smsthresh = ssthresh >> self.depth;
        let one_segment = u128::from(window.mss) * scale;
        let n = u128::from(self.lag_points);

        for _ in 0..self.segments.segments(ack.bytes_acked, window.mss) {
            if self.exact_cwnd >= ssthresh {
                break;
            }
            let increment = if self.exact_cwnd < smsthresh {
                // Below the separator: slow start, +1 segment per acknowledged segment.
                one_segment
            } else {
                // The sub-phase [L, 2L): L is the largest ssthresh/2^k (k ≥ 1) not above cwnd.
                // The loop stops by k = m because cwnd ≥ smsthresh = ssthresh/2^m ≥ 1.
                let mut low = ssthresh >> 1;
                while low > self.exact_cwnd {
                    low >>= 1;
                }
                // seed-spec §1.3: i = floor((cwnd − L)/(L/(n+1))) + 1 ∈ 1..=n+1 (cwnd < 2L),
                // and n + i acknowledged segments make one segment of growth.
                let i = (self.exact_cwnd - low) * (n + 1) / low + 1;
                one_segment / (n + i)
            };
            // Like standard slow start, stop at ssthresh (seed-spec §1.3: min(cwnd, ssthresh)).
            self.exact_cwnd = (self.exact_cwnd + increment).min(ssthresh);
        }
        // The loop never lowers the window, and it starts from window.cwnd × scale.
        window.cwnd = (self.exact_cwnd / scale) as u64;
        self.written_cwnd = Some(window.cwnd);
    }

    fn restart(&mut self) {
        self.written_cwnd = None;
        self.segments.reset();
    }

    /// Smooth-start never lowers ssthresh: slow start ends when cwnd reaches it, through the
    /// lag-point phase unless m or n is 0 (plain slow start).
    fn exit_cause(&self) -> SlowStartExit {
        if self.depth > 0 && self.lag_points > 0 {
            SlowStartExit::SmoothStart
        } else {
            SlowStartExit::SsthreshReached
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::{CcConfig, UNLIMITED};
    use crate::params::ParamInput;
    use crate::test_support::ack;

    const MSS: u64 = 1000;

    fn window(cwnd_segments: u64, ssthresh_segments: u64) -> Window {
        Window {
            cwnd: cwnd_segments * MSS,
            ssthresh: ssthresh_segments * MSS,
            mss: MSS,
        }
    }

    /// Rounds as in seed-spec §1.5: in each round the sender sends floor(cwnd) segments and
    /// each is acknowledged (`segments_per_ack` segments per ACK; 1 in the paper).
    /// Returns floor(cwnd) at the start of every round, until cwnd reaches ssthresh.
    fn rounds(
        ss: &mut SmoothStart,
        initial: u64,
        ssthresh: u64,
        segments_per_ack: u64,
    ) -> Vec<u64> {
        let mut w = window(initial, ssthresh);
        let mut trajectory = vec![w.cwnd / MSS];
        while w.cwnd < w.ssthresh {
            let acks = (w.cwnd / MSS) / segments_per_ack;
            for _ in 0..acks {
                if w.cwnd >= w.ssthresh {
                    break; // the controller leaves slow start here
                }
                ss.on_ack(&mut w, &ack(segments_per_ack * MSS));
            }
            trajectory.push(w.cwnd / MSS);
            assert!(trajectory.len() < 64, "no progress: {trajectory:?}");
        }
        trajectory
    }

    fn probe(name: &str) -> SmoothStart {
        SmoothStart::probe(name).unwrap()
    }

    #[test]
    fn test_vectors_of_seed_spec_1_5_for_ssthresh_16() {
        // Slow start is the special case m = 0.
        assert_eq!(
            rounds(&mut SmoothStart::new(0, 2), 1, 16, 1),
            [1, 2, 4, 8, 16]
        );
        // Coarse-2 (m=1, n=1): smsthresh 8; L = 8, step 4: 8 ACKs at +1/2 -> 12,
        // 12 ACKs at +1/3 -> 16.
        assert_eq!(
            rounds(&mut probe("coarse-2"), 1, 16, 1),
            [1, 2, 4, 8, 12, 16]
        );
        // Fine-2 (m=1, n=2): L = 8, step 8/3, lag points 10.67 and 13.33.
        // 8 ACKs at +1/3 -> 10.667 (exactly on the lag point, so i = 2 next);
        // 10 ACKs at +1/4 -> 13.167; 13 ACKs: one at +1/4 -> 13.417, twelve at +1/5 -> 15.817;
        // then +1/5 per ACK reaches 16.
        assert_eq!(
            rounds(&mut probe("fine-2"), 1, 16, 1),
            [1, 2, 4, 8, 10, 13, 15, 16]
        );
        // Coarse-4 (m=2, n=1): smsthresh 4; [4,8) step 2: 4 -> 6 -> 8; [8,16) step 4: 12, 16.
        assert_eq!(
            rounds(&mut probe("coarse-4"), 1, 16, 1),
            [1, 2, 4, 6, 8, 12, 16]
        );
        // Fine-4 (m=2, n=2): [4,8) step 4/3: 4 ACKs at +1/3 -> 5.333; 5 at +1/4 -> 6.583;
        // 6 ACKs: one at +1/4 -> 6.833, five at +1/5 -> 7.833; 7 ACKs: one at +1/5 -> 8.033,
        // six at +1/3 -> 10.033; 10 ACKs: two at +1/3 -> 10.7, eight at +1/4 -> 12.7;
        // 12 ACKs: three at +1/4 -> 13.45, nine at +1/5 -> 15.25; then 16.
        assert_eq!(
            rounds(&mut probe("fine-4"), 1, 16, 1),
            [1, 2, 4, 5, 6, 7, 10, 12, 15, 16]
        );
    }

    #[test]
    fn test_vectors_of_seed_spec_1_5_for_ssthresh_64() {
        assert_eq!(
            rounds(&mut SmoothStart::new(0, 0), 1, 64, 1),
            [1, 2, 4, 8, 16, 32, 64]
        );
        // Coarse-2: [32,64) step 16: 32 ACKs at +1/2 -> 48, 48 at +1/3 -> 64.
        assert_eq!(
            rounds(&mut probe("coarse-2"), 1, 64, 1),
            [1, 2, 4, 8, 16, 32, 48, 64]
        );
        // Fine-2: step 32/3: 32 ACKs at +1/3 -> 42.667 (lag point); 42 at +1/4 -> 53.167;
        // 53 ACKs: one at +1/4 -> 53.417, 52 at +1/5 -> 63.817; then 64.
        assert_eq!(
            rounds(&mut probe("fine-2"), 1, 64, 1),
            [1, 2, 4, 8, 16, 32, 42, 53, 63, 64]
        );
        // Coarse-4: [16,32) step 8: 24, 32; [32,64) step 16: 48, 64.
        assert_eq!(
            rounds(&mut probe("coarse-4"), 1, 64, 1),
            [1, 2, 4, 8, 16, 24, 32, 48, 64]
        );
        // Fine-4: 16 ACKs at +1/3 -> 21.333; 21 at +1/4 -> 26.583; one at +1/4 and 25 at
        // +1/5 -> 31.833; one at +1/5 -> 32.033 and 30 at +1/3 -> 42.033; two at +1/3 ->
        // 42.7 and 40 at +1/4 -> 52.7; three at +1/4 -> 53.45 and 49 at +1/5 -> 63.25; 64.
        assert_eq!(
            rounds(&mut probe("fine-4"), 1, 64, 1),
            [1, 2, 4, 8, 16, 21, 26, 31, 42, 52, 63, 64]
        );
    }

    /// Utilization without congestion (seed-spec §1.6): rwnd = ssthresh = 64, IW = 1, the
    /// connection sends floor(cwnd) packets per RTT for `lifetime` RTTs; utilization =
    /// packets sent / (lifetime × 64).
    fn utilization_percent(ss: &mut SmoothStart, lifetime: usize) -> f64 {
        let trajectory = rounds(ss, 1, 64, 1);
        let sent: u64 = (0..lifetime)
            .map(|r| trajectory.get(r).copied().unwrap_or(64))
            .sum();
        100.0 * sent as f64 / (lifetime as f64 * 64.0)
    }

    #[test]
    fn table_iii_utilization_within_a_tenth_of_a_point() {
        // Slow-start: 1+2+4+8+16+32 = 63 packets in 6 RTTs, then 64 per RTT:
        // N=10: (63 + 4·64)/640 = 319/640 = 49.84 %; N=19: 895/1216 = 73.60 %;
        // N=29: 1535/1856 = 82.70 %; N=38: 2111/2432 = 86.80 %.
        // Fine-2: 1+2+4+8+16+32+42+53+63 = 221 packets in 9 RTTs, then 64 per RTT:
        // N=10: 285/640 = 44.53 %; N=19: 861/1216 = 70.81 %; N=29: 1501/1856 = 80.87 %;
        // N=38: 2077/2432 = 85.40 %.
        // The paper's Table III (Slow-start, Fine-2) per lifetime:
        let table = [
            (10, 49.8, 44.6),
            (19, 73.6, 70.8),
            (29, 82.7, 80.9),
            (38, 86.8, 85.4),
        ];
        for (lifetime, slow_start, fine_2) in table {
            let ours = utilization_percent(&mut SmoothStart::new(0, 0), lifetime);
            assert!(
                (ours - slow_start).abs() <= 0.1,
                "slow start, {lifetime} RTTs: {ours:.2} vs {slow_start}"
            );
            let ours = utilization_percent(&mut probe("fine-2"), lifetime);
            assert!(
                (ours - fine_2).abs() <= 0.1,
                "Fine-2, {lifetime} RTTs: {ours:.2} vs {fine_2}"
            );
        }
    }

    #[test]
    fn each_sub_phase_costs_n_extra_rtts_so_m_times_n_in_all() {
        // Choose IW = n+1 and S = (n+1)·2^(m+2) so that every lag point is a whole number of
        // segments and the floor(cwnd) ACK count is exact. Slow start reaches S in m+2 RTTs.
        // Smooth-start: 2 RTTs to smsthresh = 4(n+1), then each of the m halving intervals
        // [L, 2L) takes n+1 RTTs (the i-th carries L(n+i)/(n+1) ACKs at 1/(n+i) each, i.e.
        // exactly one step L/(n+1)). Extra RTTs = 2 + m(n+1) − (m+2) = m·n.
        for m in 0..=3u32 {
            for n in 0..=3u32 {
                let iw = u64::from(n) + 1;
                let s = iw << (m + 2);
                let rtts = rounds(&mut SmoothStart::new(m, n), iw, s, 1).len() - 1;
                let slow_start_rtts = (m + 2) as usize;
                assert_eq!(rtts - slow_start_rtts, (m * n) as usize, "m={m} n={n}");
            }
        }
        // The paper's Table I: extra RTTs 1, 2, 2, 4 for Coarse-2, Coarse-4, Fine-2, Fine-4
        // (IW = 3, S = 96 puts every lag point on a whole segment for n = 1 and n = 2).
        for (name, extra) in [
            ("coarse-2", 1),
            ("coarse-4", 2),
            ("fine-2", 2),
            ("fine-4", 4),
        ] {
            // Slow start: 3, 6, 12, 24, 48, 96 = 5 RTTs.
            let rtts = rounds(&mut probe(name), 3, 96, 1).len() - 1;
            assert_eq!(rtts, 5 + extra, "{name}");
        }
    }

    #[test]
    fn delayed_and_odd_sized_acks_give_the_same_growth_per_rtt() {
        // Fine-2, S = 96, from smsthresh 48: 48 -> 64 -> 80 -> 96, one step of 16 per RTT.
        let per_segment = rounds(&mut probe("fine-2"), 48, 96, 1);
        assert_eq!(per_segment, [48, 64, 80, 96]);
        // The same rounds acknowledged two segments per ACK (delayed ACKs).
        assert_eq!(rounds(&mut probe("fine-2"), 48, 96, 2), per_segment);
        // One round of 48 segments acknowledged by 32 ACKs of 1.5 segments: still 64.
        let mut ss = probe("fine-2");
        let mut w = window(48, 96);
        for _ in 0..32 {
            ss.on_ack(&mut w, &ack(1500));
        }
        assert_eq!(w.cwnd, 64 * MSS);
    }

    #[test]
    fn depth_or_lag_points_zero_is_standard_slow_start() {
        assert_eq!(probe("fine-4").exit_cause(), SlowStartExit::SmoothStart);
        for mut ss in [SmoothStart::new(0, 2), SmoothStart::new(2, 0)] {
            assert_eq!(ss.exit_cause(), SlowStartExit::SsthreshReached);
            let mut w = window(40, 64);
            ss.on_ack(&mut w, &ack(MSS));
            assert_eq!(w.cwnd, 41 * MSS);
            ss.on_ack(&mut w, &ack(2 * MSS));
            assert_eq!(w.cwnd, 43 * MSS);
        }
        // With no threshold yet, the Smooth-start period is never reached.
        let mut ss = probe("fine-4");
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: UNLIMITED,
            mss: MSS,
        };
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 11 * MSS);
    }

    #[test]
    fn stops_exactly_at_ssthresh() {
        // Coarse-2 at 15 of 16: +1/3 per segment; a stretch ACK of 10 segments would add
        // 3.33 segments, but growth stops at ssthresh.
        let mut ss = probe("coarse-2");
        let mut w = window(15, 16);
        ss.on_ack(&mut w, &ack(10 * MSS));
        assert_eq!(w.cwnd, 16 * MSS);
    }

    #[test]
    fn follows_the_controller_when_it_changes_cwnd_and_forgets_on_restart() {
        // Fine-2, S = 16: at 8 segments each ACKed segment adds 1/3 segment = 333.33 bytes.
        let mut ss = probe("fine-2");
        let mut w = window(8, 16);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 8333);
        // The controller sets cwnd back to 8 segments: the kept fraction (1/3 byte) is
        // dropped and growth restarts from exactly 8000 bytes.
        w.cwnd = 8 * MSS;
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 8333);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 8666);
        // Half a segment is carried; after a restart it no longer counts.
        ss.on_ack(&mut w, &ack(MSS / 2));
        assert_eq!(w.cwnd, 8666);
        ss.restart();
        ss.on_ack(&mut w, &ack(MSS / 2));
        assert_eq!(w.cwnd, 8666);
    }

    #[test]
    fn probe_is_the_first_parameter_and_depth_and_lag_points_override_it() {
        let shape = |inputs: &[(&str, ParamInput)]| {
            let params =
                Params::from_inputs(PARAMS, inputs.iter().map(|(name, v)| (*name, v))).unwrap();
            let ss = SmoothStart::from_params(&params);
            (ss.depth(), ss.lag_points())
        };
        assert_eq!(PARAMS[0].name, "probe");
        // Default: Fine-4.
        assert_eq!(shape(&[]), (2, 2));
        assert_eq!(
            shape(&[("probe", ParamInput::Text("coarse-2".into()))]),
            (1, 1)
        );
        assert_eq!(
            shape(&[("probe", ParamInput::Text("fine-2".into()))]),
            (1, 2)
        );
        assert_eq!(
            shape(&[("probe", ParamInput::Text("coarse-4".into()))]),
            (2, 1)
        );
        assert_eq!(
            shape(&[
                ("probe", ParamInput::Text("fine-2".into())),
                ("depth", ParamInput::Number(3.0)),
            ]),
            (3, 2)
        );
        assert_eq!(shape(&[("lag_points", ParamInput::Number(0.0))]), (2, 0));
    }

    #[test]
    fn registered_and_drives_reno() {
        let info = crate::registry::find_slow_start(INFO.name).unwrap();
        assert_eq!(info.name, INFO.name);
        let config = CcConfig::new(1448);
        let reno = crate::registry::find_algorithm("reno").unwrap();
        let mut cc = crate::registry::build(
            reno,
            &Params::defaults(reno.params),
            info,
            &Params::defaults(info.params),
            &config,
        );
        // IW 10 segments, no ssthresh yet: a delayed ACK grows cwnd by two segments.
        cc.on_ack(&ack(2 * 1448));
        assert_eq!(cc.cwnd(), 12 * 1448);
    }
}
