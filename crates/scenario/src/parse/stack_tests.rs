//! `stack`: the keys each stack fills in, a table's own keys winning, and one sentence for a
//! bad value.

use crate::model::{
    FlowGroup, LossDetection, LostRetransmission, PrrBound, Recovery, ReduceFrom, RtoEstimator,
};
use crate::send_buffer::{SendBuffer, SendBufferAccounting, SendBufferSize};
use crate::{ScenarioError, from_str};

/// `stack = "linux"`'s send buffer: auto-tuned up to `tcp_wmem[2]` = 4 MiB from
/// `tcp_wmem[1]` = 16 KiB, counted in `truesize`.
const LINUX_SEND_BUFFER: Option<SendBuffer> = Some(SendBuffer {
    size: SendBufferSize::Auto {
        initial: 16_384,
        max: 4_194_304,
    },
    accounting: SendBufferAccounting::Truesize,
});

fn group(keys: &str) -> Result<FlowGroup, ScenarioError> {
    group_of("cubic", keys)
}

fn group_of(cc: &str, keys: &str) -> Result<FlowGroup, ScenarioError> {
    let text = format!(
        "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n[[flows]]\ncc = \"{cc}\"\n{keys}\n"
    );
    from_str("s.toml", &text, &[]).map(|s| s.flows[0].clone())
}

#[test]
fn without_stack_the_model_defaults_hold() {
    let g = group("").unwrap();
    assert_eq!(g.loss_detection, LossDetection::DupAck);
    assert!(!g.limited_transmit && !g.connection.quick_ack && !g.connection.handshake);
    assert!(!g.connection.receive_window_auto);
    assert_eq!(g.min_rto.as_nanos(), 200_000_000);
    assert_eq!(g.rto_estimator, RtoEstimator::Rfc6298);
    assert_eq!(g.send_buffer, None);
    assert_eq!(g.lost_retransmission, LostRetransmission::Reduce);
    assert_eq!(g.reduce_from, ReduceFrom::Flight);
    assert_eq!(g.prr_bound, PrrBound::Ssrb);
}

#[test]
fn linux_sets_rack_tlp_undo_quick_ack_auto_tuning_and_200_ms() {
    let g = group("stack = \"linux\"").unwrap();
    assert_eq!(g.loss_detection, LossDetection::RackTlp);
    assert!(g.limited_transmit && g.connection.quick_ack && g.connection.receive_window_auto);
    assert_eq!(g.min_rto.as_nanos(), 200_000_000);
    assert!(g.undo && g.frto);
    assert_eq!(g.rto_estimator, RtoEstimator::Linux, "tcp_rtt_estimator");
    assert_eq!(
        g.send_buffer, LINUX_SEND_BUFFER,
        "tcp_sndbuf_expand, truesize"
    );
    assert_eq!(g.lost_retransmission, LostRetransmission::Continue);
    assert_eq!(
        g.reduce_from,
        ReduceFrom::Cwnd,
        "tcp_reno_ssthresh reads snd_cwnd"
    );
    assert_eq!(
        g.prr_bound,
        PrrBound::SafeAck,
        "tcp_cwnd_reduction: sndcnt++ only if FLAG_SND_UNA_ADVANCED && !newly_lost"
    );
    // A bulk flow opens no connection; a finite one does (its FCT counts from the SYN).
    assert!(!g.connection.handshake);
    assert!(
        group("stack = \"linux\"\nsize = \"1MB\"")
            .unwrap()
            .connection
            .handshake
    );
}

#[test]
fn rfc_sets_the_duplicate_ack_rule_one_second_and_no_experimental_mechanisms() {
    let g = group("stack = \"rfc\"\nsize = \"1MB\"").unwrap();
    assert_eq!(g.loss_detection, LossDetection::DupAck);
    assert_eq!(g.min_rto.as_nanos(), 1_000_000_000, "RFC 6298 §2.4");
    assert!(g.limited_transmit, "RFC 5681 §3.2: SHOULD use RFC 3042");
    assert!(!g.connection.quick_ack && !g.connection.receive_window_auto);
    assert!(!g.undo && !g.frto);
    assert_eq!(g.rto_estimator, RtoEstimator::Rfc6298, "RFC 6298 §2");
    assert!(g.connection.handshake);
    assert_eq!(
        g.lost_retransmission,
        LostRetransmission::Reduce,
        "RFC 5681 §4.3"
    );
    assert_eq!(
        g.reduce_from,
        ReduceFrom::Flight,
        "RFC 5681 §3.1: FlightSize"
    );
    assert_eq!(g.prr_bound, PrrBound::Ssrb, "RFC 6937 §3: PRR-SSRB");
}

#[test]
fn a_key_the_table_gives_wins_over_the_stack() {
    let g = group("stack = \"linux\"\nmin_rto = \"1s\"\nquick_ack = false").unwrap();
    assert_eq!(g.min_rto.as_nanos(), 1_000_000_000);
    assert!(!g.connection.quick_ack);
    let g = group("stack = \"linux\"\nrto_estimator = \"rfc6298\"").unwrap();
    assert_eq!(g.rto_estimator, RtoEstimator::Rfc6298);
    let g = group("stack = \"linux\"\nsend_buffer = \"unlimited\"").unwrap();
    assert_eq!(g.send_buffer, None);
    let g = group("send_buffer = \"64KB\"").unwrap();
    assert_eq!(
        g.send_buffer,
        Some(SendBuffer {
            size: SendBufferSize::Fixed(64_000),
            accounting: SendBufferAccounting::Payload,
        })
    );
    // The buffer before auto-tuning and truesize accounting: a fixed 4 MiB of payload.
    let g =
        group("stack = \"linux\"\nsend_buffer = \"4MiB\"\nsend_buffer_accounting = \"payload\"")
            .unwrap();
    assert_eq!(
        g.send_buffer,
        Some(SendBuffer {
            size: SendBufferSize::Fixed(4 << 20),
            accounting: SendBufferAccounting::Payload,
        })
    );
    let g = group("stack = \"linux\"\nlost_retransmission = \"reduce\"").unwrap();
    assert_eq!(g.lost_retransmission, LostRetransmission::Reduce);
    let g = group("stack = \"rfc\"\nrto_estimator = \"linux\"").unwrap();
    assert_eq!(g.rto_estimator, RtoEstimator::Linux);
    // A recovery without SACK keeps RFC 6675's rule instead of a refused rack-tlp.
    let g = group("stack = \"linux\"\nrecovery = \"newreno\"").unwrap();
    assert_eq!(g.recovery, Recovery::NewReno);
    assert_eq!(g.loss_detection, LossDetection::DupAck);
}

#[test]
fn a_bad_stack_is_one_sentence() {
    let message = group("stack = \"bsd\"").unwrap_err().to_string();
    assert!(
        message.starts_with("s.toml: flows.0.stack") && message.contains("\"linux\" or \"rfc\""),
        "{message}"
    );
}

#[test]
fn a_bad_lost_retransmission_is_one_sentence() {
    let message = group("lost_retransmission = \"ignore\"")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("s.toml: flows.0.lost_retransmission")
            && message.contains("\"reduce\"")
            && message.contains("\"continue\""),
        "{message}"
    );
}

#[test]
fn a_bad_reduce_from_is_one_sentence() {
    let message = group("reduce_from = \"pipe\"").unwrap_err().to_string();
    assert!(
        message.starts_with("s.toml: flows.0.reduce_from")
            && message.contains("\"flight\"")
            && message.contains("\"cwnd\""),
        "{message}"
    );
}

#[test]
fn a_bad_prr_bound_is_one_sentence() {
    let message = group("prr_bound = \"crb\"").unwrap_err().to_string();
    assert!(
        message.starts_with("s.toml: flows.0.prr_bound")
            && message.contains("\"ssrb\"")
            && message.contains("\"safe_ack\""),
        "{message}"
    );
}

#[test]
fn a_bad_rto_estimator_is_one_sentence() {
    let message = group("rto_estimator = \"bsd\"").unwrap_err().to_string();
    assert!(
        message.starts_with("s.toml: flows.0.rto_estimator")
            && message.contains("\"rfc6298\" or \"linux\""),
        "{message}"
    );
}

#[test]
fn linux_makes_cubic_tcp_cubic_c() {
    // tcp_cubic.c: hystart = 1 (HyStart on), and bictcp_update's growth floor while
    // last_max_cwnd is 0 (no loss yet).
    let g = group("stack = \"linux\"").unwrap();
    assert_eq!(g.slow_start.name, "hystart");
    assert!(g.params.boolean("linux_no_loss_floor"));
    // Without a stack, and with the RFC stack, CUBIC stays RFC 9438's.
    for keys in ["", "stack = \"rfc\""] {
        let g = group(keys).unwrap();
        assert_eq!(g.slow_start.name, "standard", "{keys}");
        assert!(!g.params.boolean("linux_no_loss_floor"), "{keys}");
    }
}

#[test]
fn linux_makes_bbr_and_the_other_modules_the_kernels() {
    let g = group_of("bbr", "stack = \"linux\"").unwrap();
    assert_eq!(g.params.choice("variant"), "linux", "tcp_bbr.c");
    assert_eq!(
        group_of("bbr", "").unwrap().params.choice("variant"),
        "paper"
    );
    // tcp_vegas.c: alpha = 2, beta = 4; tcp_bic.c: max_increment = 16.
    let g = group_of("vegas", "stack = \"linux\"").unwrap();
    assert_eq!(g.params.choice("variant"), "linux");
    assert_eq!(
        (g.params.number("alpha"), g.params.number("beta")),
        (2.0, 4.0)
    );
    let g = group_of("bic", "stack = \"linux\"").unwrap();
    assert_eq!(
        (g.params.choice("variant"), g.params.number("s_max")),
        ("linux", 16.0)
    );
    for cc in ["westwood", "scalable"] {
        let g = group_of(cc, "stack = \"linux\"").unwrap();
        assert_eq!(g.params.choice("variant"), "linux", "{cc}");
    }
    // Reno has no Linux variant: its params stay the defaults.
    let g = group_of("reno", "stack = \"linux\"").unwrap();
    assert_eq!(g.slow_start.name, "standard");
}

#[test]
fn a_controller_setting_the_table_gives_wins_over_the_stack() {
    // Key by key inside params: the explicit one stays, the others are filled in.
    let g = group("stack = \"linux\"\nparams = { linux_no_loss_floor = false }").unwrap();
    assert!(!g.params.boolean("linux_no_loss_floor"));
    assert_eq!(g.slow_start.name, "hystart");
    let g = group("stack = \"linux\"\nslow_start = \"standard\"").unwrap();
    assert_eq!(g.slow_start.name, "standard");
    assert!(g.params.boolean("linux_no_loss_floor"));
    // slow_start_params alone configures the standard slow start: HyStart is not forced on it.
    let g = group("stack = \"linux\"\nslow_start_params = { }").unwrap();
    assert_eq!(g.slow_start.name, "standard");
    let g = group_of("bbr", "stack = \"linux\"\nparams = { variant = \"paper\" }").unwrap();
    assert_eq!(g.params.choice("variant"), "paper");
    let g = group_of("vegas", "stack = \"linux\"\nparams = { alpha = 1 }").unwrap();
    assert_eq!(
        (g.params.number("alpha"), g.params.number("beta")),
        (1.0, 4.0)
    );
}

#[test]
fn both_stacks_keep_tcp_small_queues_and_a_table_may_turn_them_off() {
    // TSQ is the sending host's, not the TCP model's: a Linux host with a NIC has it, one
    // whose device orphans each packet (TUN) never uses it; so neither stack sets the key.
    for keys in ["", "stack = \"linux\"", "stack = \"rfc\""] {
        assert!(group(keys).unwrap().small_queues, "{keys}");
    }
    let g = group("stack = \"linux\"\nsmall_queues = false").unwrap();
    assert!(!g.small_queues);
    assert_eq!(
        g.send_buffer, LINUX_SEND_BUFFER,
        "the rest of the stack stands"
    );
}
