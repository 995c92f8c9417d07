use super::monitor::MiResult;
use super::*;

const PAPER: utility::UtilityParams = utility::UtilityParams {
    exponent: 0.9,
    latency: 900.0,
    loss: 11.35,
};

fn mi(id: u64, rate_mbps: f64, rtt_gradient: f64, loss_rate: f64) -> MiResult {
    MiResult {
        id,
        target_rate_bps: rate_mbps * 1e6,
        sending_rate_bps: rate_mbps * 1e6,
        loss_rate,
        rtt_gradient,
    }
}

#[test]
fn the_utility_is_equation_1() {
    // u(10) = 10^0.9 − 900·10·0.02 − 11.35·10·0.01 = 7.9433 − 180 − 1.135.
    let u = utility(&mi(0, 10.0, 0.02, 0.01), &PAPER);
    assert!((u - (10f64.powf(0.9) - 180.0 - 1.135)).abs() < 1e-9, "{u}");
    // A gradient below the filter counts as zero.
    let quiet = utility(&mi(0, 10.0, 0.005, 0.0), &PAPER);
    assert!((quiet - 10f64.powf(0.9)).abs() < 1e-12);
}

#[test]
fn the_gradient_between_two_probes_is_their_utility_difference_per_mbps() {
    // With no latency growth and no loss, u = x^0.9: its gradient between 10.5 and 9.5
    // Mbit/s is (10.5^0.9 − 9.5^0.9)/1, close to the derivative 0.9·10^−0.1 = 0.7149.
    let a = Sample {
        rate_bps: 10.5e6,
        utility: 10.5f64.powf(0.9),
    };
    let b = Sample {
        rate_bps: 9.5e6,
        utility: 9.5f64.powf(0.9),
    };
    let g = Vivace::gradient(a, b);
    assert!((g - (10.5f64.powf(0.9) - 9.5f64.powf(0.9))).abs() < 1e-12);
    assert!((g - 0.9 * 10f64.powf(-0.1)).abs() < 1e-3);
}

#[test]
fn the_moving_step_is_amplified_bounded_and_at_least_one_percent() {
    // Gradient 0.7149 per Mbit/s at 10 Mbit/s: θ·m·γ = 0.1 Mbit/s · 10 · 0.7149 = 0.715
    // Mbit/s, 7.1 % of the rate: under the 10 % bound, which resets.
    let (mut m, mut bound) = (MIN_AMPLIFIER, MIN_CHANGE_BOUND);
    let step = Vivace::moving_step(10e6, 0.7149, &mut m, &mut bound);
    assert!((step - 0.7149e6).abs() < 1.0, "{step}");
    assert_eq!((m, bound), (11.0, MIN_CHANGE_BOUND));
    // A steep gradient hits the bound: 10 % of the rate, and the bound grows to 15 %.
    let step = Vivace::moving_step(10e6, -5.0, &mut m, &mut bound);
    assert!((step + 1e6).abs() < 1e-6, "{step}");
    assert!((bound - 0.15).abs() < 1e-12);
    // A tiny gradient still moves 1 % of the rate.
    let (mut m, mut bound) = (MIN_AMPLIFIER, MIN_CHANGE_BOUND);
    let step = Vivace::moving_step(10e6, 0.0001, &mut m, &mut bound);
    assert!((step - 0.1e6).abs() < 1e-6, "{step}");
}

fn vivace_at(rate_mbps: f64) -> Vivace {
    let mut v = Vivace::new(&CcConfig::new(1448), VivaceParams::default());
    v.target_bps = Some(rate_mbps * 1e6);
    v.srtt = Some(SimDuration::from_millis(20));
    v
}

#[test]
fn starting_doubles_until_the_utility_falls_then_probes_from_the_last_good_rate() {
    let mut v = vivace_at(5.0);
    v.on_mi_result(mi(0, 5.0, 0.0, 0.0));
    assert_eq!(v.target_bps, Some(10e6));
    v.on_mi_result(mi(1, 10.0, 0.0, 0.0));
    assert_eq!(v.target_bps, Some(20e6));
    // At 20 Mbit/s the queue grows (dRTT/dT 0.05): u = 20^0.9 − 900·20·0.05 < u(10).
    v.on_mi_result(mi(2, 20.0, 0.05, 0.0));
    assert_eq!(v.target_bps, Some(10e6));
    assert_eq!(v.mode(), "probing");
}

#[test]
fn probing_pairs_that_agree_start_moving_toward_the_better_rate() {
    let mut v = vivace_at(10.0);
    v.start_probing();
    // Which MIs are high or low: the pair order set by `high_first`.
    let rates: Vec<f64> = (0..4).map(|id| v.rate_for_next_mi(id)).collect();
    let high = 10e6 * 1.05;
    let low = 10e6 * 0.95;
    assert!(rates.iter().filter(|&&r| (r - high).abs() < 1.0).count() == 2);
    assert!(rates.iter().filter(|&&r| (r - low).abs() < 1.0).count() == 2);
    // Utilities of x^0.9 alone: higher is better in both pairs, so move up.
    for (id, &r) in rates.iter().enumerate() {
        v.on_mi_result(mi(id as u64, r / 1e6, 0.0, 0.0));
    }
    assert_eq!(v.mode(), "moving");
    assert!(
        v.target_bps.expect("rate") > high,
        "moves up from the better probe"
    );
}

#[test]
fn probing_pairs_that_disagree_probe_again() {
    let mut v = vivace_at(10.0);
    v.start_probing();
    let rates: Vec<f64> = (0..4).map(|id| v.rate_for_next_mi(id)).collect();
    // First pair: higher better; second pair: lower better (a loss at the high rate).
    for (id, &r) in rates.iter().enumerate() {
        let loss = if id >= 2 && r > 10e6 { 0.2 } else { 0.0 };
        v.on_mi_result(mi(id as u64, r / 1e6, 0.0, loss));
    }
    assert_eq!(v.mode(), "probing");
    assert_eq!(v.target_bps, Some(10e6));
}

/// A timeout leaves Vivace's rate alone and holds the window at two segments until the
/// next ACK; an undo of that timeout ends the hold at once: the window is again twice the
/// rate's flight, 2 · 10 Mbit/s · 20 ms / 8 = 50 000 bytes (not Linux: PCC is out of tree).
#[test]
fn undo_ends_the_window_held_after_a_timeout() {
    let mut v = vivace_at(10.0);
    assert_eq!(v.cwnd(), 50_000);
    v.on_retransmission_timeout(&crate::controller::TimeoutEvent {
        now: SimTime::ZERO,
        bytes_in_flight: 50_000,
    });
    assert_eq!(v.cwnd(), 2 * 1448);
    v.on_undo(&crate::controller::UndoEvent {
        now: SimTime::ZERO,
        prior_cwnd: 50_000,
        prior_ssthresh: crate::controller::UNLIMITED,
    });
    assert_eq!(v.cwnd(), 50_000);
}
