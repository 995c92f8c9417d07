//! RED on the dumbbell's bottleneck (docs/queues.md): under load its average queue settles
//! between its thresholds, far below what drop-tail holds in the same large buffer, at high
//! utilization; adaptive RED (Floyd, Gummadi & Shenker 2001) moves max_p until the average
//! sits in its target band whatever the load; with ECN the early drops become marks.
//!
//! The path: 10 Mbit/s, 20 ms each way, 100 Mbit/s access links of 1 ms: a base RTT of
//! 44 ms, a BDP of 36.7 packets of 1500 bytes, 833 packets/s. The buffer is 10 BDP, so only
//! the discipline keeps the queue short. RED's defaults are ns-2's: min_th 5, max_th 15,
//! max_p 0.1, w_q 0.002, gentle. Queue lengths are packets waiting (the one in transmission
//! excluded), as RED counts them; "mean queue" is the time average over the steady window.

mod common;

use cclab_sim::RunResult;
use common::{run, scenario};

const MIN_TH: f64 = 5.0;
const MAX_TH: f64 = 15.0;

fn text(cc: &str, flows: u32, queue: &str, ecn: bool) -> String {
    format!(
        r#"
duration = "60s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = "10bdp", queue = {queue} }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "{cc}"
count = {flows}
ecn = {ecn}
[output]
steady_from = "10s"
"#
    )
}

/// The bottleneck over the steady window.
struct Steady {
    mean_queue: f64,
    utilization: f64,
    aqm_drops: u64,
    overflow_drops: u64,
    ce_marks: u64,
}

fn steady(result: &RunResult) -> Steady {
    let link = &result.links[0];
    assert_eq!(link.name, "bottleneck");
    let stats = link.stats.since(&link.at_window_start);
    let window = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    Steady {
        mean_queue: stats.queue_integral as f64 / 1e9 / window,
        utilization: (link.busy - link.busy_at_window_start).as_secs_f64() / window,
        aqm_drops: stats.aqm_drops,
        overflow_drops: stats.overflow_drops,
        ce_marks: stats.ce_marks,
    }
}

fn run_steady(cc: &str, flows: u32, queue: &str, ecn: bool) -> Steady {
    let s = steady(&run(&text(cc, flows, queue, ecn)).0);
    eprintln!(
        "{cc} × {flows}, queue {queue}, ecn {ecn}: mean queue {:.2}, utilization {:.4}, \
         aqm drops {}, overflow drops {}, CE marks {}",
        s.mean_queue, s.utilization, s.aqm_drops, s.overflow_drops, s.ce_marks
    );
    s
}

#[test]
fn red_average_lies_between_its_thresholds_at_high_utilization() {
    for cc in ["reno", "cubic"] {
        let red = run_steady(cc, 16, "\"red\"", false);
        // Below min_th RED never drops, so a queue that stayed there would grow (the buffer
        // is 367 packets); at max_th it drops with probability max_p, and in the gentle
        // region up to 2·max_th with up to 1, more than 16 flows of ~3 packets can sustain
        // (Reno's window sqrt(1.5/p) is 2.7 packets at p = 0.2). So under load the average,
        // and with it the time-mean queue, lies between the thresholds.
        assert!(
            red.mean_queue > MIN_TH && red.mean_queue < MAX_TH,
            "{cc}: mean queue {:.2}",
            red.mean_queue
        );
        assert!(red.aqm_drops > 0, "{cc}: RED dropped nothing");
        // The buffer is never reached: every drop is RED's.
        assert_eq!(red.overflow_drops, 0, "{cc}");
        // High utilization: one early drop halves (Reno) or cuts by 30 % (CUBIC) one flow's
        // window of (36.7 + 5)/16 = 2.6 packets or more, about 1.3 packets, and the queue of
        // at least min_th = 5 packets covers it, so the link idles only when drops cluster.
        // Five per cent idle time would need such clusters on most round trips.
        assert!(
            red.utilization >= 0.95,
            "{cc}: utilization {:.4}",
            red.utilization
        );
    }
}

#[test]
fn red_mean_queue_is_far_below_drop_tails_on_the_same_path() {
    let s = scenario(&text("reno", 16, "\"droptail\"", false));
    let bdp = s.bdp_bytes() as f64 / s.packet_bytes() as f64;
    let buffer = s
        .buffer_limit(s.topology.dumbbell().unwrap().bottleneck.buffer)
        .0
        .expect("a BDP multiple is a packet limit") as f64;
    // Reno halves (β = 0.5, RFC 5681), CUBIC cuts to β = 0.7 (RFC 9438 §4.6).
    for (cc, beta) in [("reno", 0.5), ("cubic", 0.7)] {
        let red = run_steady(cc, 16, "\"red\"", false);
        let droptail = run_steady(cc, 16, "\"droptail\"", false);
        // Drop-tail drops only when the buffer is full, with BDP + buffer packets in flight.
        // Even if every flow cut its window at once, β·(BDP + buffer) would stay in flight:
        // a queue of at least β·(BDP + buffer) − BDP until the next overflow (Reno: 165
        // packets, CUBIC: 227).
        let floor = beta * (bdp + buffer) - bdp;
        assert!(
            droptail.mean_queue >= floor,
            "{cc}: drop-tail mean queue {:.1} below {floor:.1}",
            droptail.mean_queue
        );
        assert!(
            droptail.overflow_drops > 0 && droptail.aqm_drops == 0,
            "{cc}"
        );
        // RED holds its average below max_th (previous test): at least ten times shorter.
        assert!(
            red.mean_queue < MAX_TH && 10.0 * red.mean_queue < droptail.mean_queue,
            "{cc}: RED {:.1}, drop-tail {:.1}",
            red.mean_queue,
            droptail.mean_queue
        );
    }
}

#[test]
fn adaptive_red_holds_its_target_band_at_light_and_heavy_load() {
    // Floyd, Gummadi & Shenker 2001: every 0.5 s max_p moves until the average lies in
    // [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)] = [9, 11].
    let (target_low, target_high) = (9.0, 11.0);
    // Plain RED with 4 Reno flows: windows of (36.7 + q)/4 ≈ 10.6 packets need a drop rate
    // of 1.5/W² = 1.3 % (Mathis et al. 1997), about 2·p_b with uniformly spaced drops, so
    // p_b = 0.0067 and the average settles at 5 + 10·0.0067/0.1 = 5.7: below the band.
    let plain = run_steady("reno", 4, "\"red\"", false);
    assert!(
        plain.mean_queue < target_low,
        "plain RED, 4 flows: {:.2}",
        plain.mean_queue
    );
    for flows in [4, 16] {
        let adaptive = run_steady("reno", flows, "{ kind = \"red\", adaptive = true }", false);
        assert!(
            (target_low..=target_high).contains(&adaptive.mean_queue),
            "adaptive RED, {flows} flows: mean queue {:.2}",
            adaptive.mean_queue
        );
        assert_eq!(adaptive.overflow_drops, 0);
    }
}

#[test]
fn red_with_ecn_marks_instead_of_dropping() {
    // ECN-capable Reno (the simulator's RFC 3168 response halves the window once per round
    // trip with marks): RED marks where it would drop early, so in steady state nothing is
    // lost at the bottleneck, and the marks hold the average between the thresholds as the
    // drops did.
    let ecn = run_steady("reno", 16, "{ kind = \"red\", ecn = true }", true);
    assert!(ecn.ce_marks > 1000, "{} marks", ecn.ce_marks);
    assert_eq!(ecn.aqm_drops, 0);
    assert_eq!(ecn.overflow_drops, 0);
    assert!(
        ecn.mean_queue > MIN_TH && ecn.mean_queue < MAX_TH,
        "mean queue {:.2}",
        ecn.mean_queue
    );
    // The same flows through RED without `ecn` are dropped instead.
    let drops = run_steady("reno", 16, "\"red\"", true);
    assert!(drops.aqm_drops > 1000 && drops.ce_marks == 0);
}
