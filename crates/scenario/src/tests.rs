//! Validation of whole scenario files: the contract's keys, defaults, and one clear error per
//! malformed input.

use super::*;
use cclab_cc::{SimDuration, SimTime};

const FULL: &str = r#"
name = "cubic-vs-reno"
duration = "60s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mbps", delay = "30ms", queue = "droptail", buffer = "1bdp", loss = 0.0001 }
access = { rate = "1Gbps", delay = "1ms" }

[[flows]]
cc = "reno"
count = 2
start = "0s"
size = "unlimited"
extra_rtt = "0ms"
mss = 1448
initial_window = 10
slow_start = "standard"
recovery = "sack"
delayed_ack = true
receive_window = "unlimited"
initial_ssthresh = "unlimited"
params = { }
drop = [5, 3]

[[flows]]
cc = "newreno"
start = "1.5s"
size = "1MB"
recovery = "newreno"
delayed_ack = false
receive_window = 50
initial_window = "rfc3390"

[output]
interval = "10ms"
"#;

#[test]
fn every_contract_key_is_understood() {
    let s = from_str("full.toml", FULL, &[]).unwrap();
    assert_eq!(s.name, "cubic-vs-reno");
    assert_eq!(s.duration, SimDuration::from_secs(60));
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.rate_bps,
        100_000_000
    );
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.loss,
        LossModel::Bernoulli(0.0001)
    );
    assert_eq!(
        s.topology.dumbbell().unwrap().access.rate_bps,
        1_000_000_000
    );
    assert_eq!(s.flows.len(), 2);
    assert_eq!(s.flow_count(), 3);
    let first = &s.flows[0];
    assert_eq!(first.cc.name, "reno");
    assert_eq!(first.drop, vec![3, 5]);
    assert_eq!(first.delayed_ack, Some(SimDuration::from_millis(40)));
    assert_eq!(first.initial_window, 10 * 1448);
    let second = &s.flows[1];
    assert_eq!(second.start, SimTime::ZERO + SimDuration::from_millis(1500));
    assert_eq!(second.size, Some(1_000_000));
    assert_eq!(second.recovery, Recovery::NewReno);
    assert_eq!(second.delayed_ack, None);
    assert_eq!(second.receive_window, Some(50 * 1448));
    // RFC 3390: min(4*1448, max(2*1448, 4380)) = min(5792, 4380) = 4380.
    assert_eq!(second.initial_window, 4380);
    assert_eq!(first.ecn, EcnMode::Off);
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.ecn_threshold,
        None
    );
    let s = from_str(
        "full.toml",
        FULL,
        &[
            "flows.0.ecn=true".into(),
            "topology.bottleneck.ecn_threshold=20".into(),
        ],
    )
    .unwrap();
    assert_eq!(s.flows[0].ecn, EcnMode::Classic);
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.ecn_threshold,
        Some(20)
    );
    let s = from_str("full.toml", FULL, &["flows.0.ecn=\"l4s\"".into()]).unwrap();
    assert_eq!(s.flows[0].ecn, EcnMode::L4s);
    let s = from_str("full.toml", FULL, &["flows.0.ecn=false".into()]).unwrap();
    assert_eq!(s.flows[0].ecn, EcnMode::Off);
}

#[test]
fn bdp_buffer_is_rounded_to_packets() {
    let s = from_str("full.toml", FULL, &[]).unwrap();
    // Base RTT = 2 * (1 + 30 + 1) ms = 64 ms; BDP = 100e6 * 0.064 / 8 = 800_000 bytes;
    // 800_000 / 1500 = 533.3 -> 533 packets.
    assert_eq!(s.base_rtt(), SimDuration::from_millis(64));
    assert_eq!(s.bdp_bytes(), 800_000);
    assert_eq!(
        s.buffer_limit(s.topology.dumbbell().unwrap().bottleneck.buffer),
        (Some(533), None)
    );
}

#[test]
fn minimal_file_gets_documented_defaults() {
    let text = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n";
    let s = from_str("dir/minimal.toml", text, &[]).unwrap();
    assert_eq!(s.name, "minimal");
    assert_eq!(s.duration, SimDuration::from_secs(60));
    assert_eq!(s.seed, 1);
    assert_eq!(s.topology.dumbbell().unwrap().access.rate_bps, 100_000_000);
    assert_eq!(
        s.topology.dumbbell().unwrap().access.buffer,
        Buffer::Unlimited
    );
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.buffer,
        Buffer::Bdp(1.0)
    );
    assert_eq!(s.flows[0].recovery, Recovery::Sack);
    assert_eq!(s.flows[0].min_rto, SimDuration::from_millis(200));
    assert_eq!(s.output.interval, SimDuration::from_millis(10));
}

/// `codel` and `fq_codel`: defaults of RFC 8289 §4 / RFC 8290 §5 when named, every key when
/// given, and one sentence naming the key for each bad value.
#[test]
fn codel_and_fq_codel_queues() {
    let file = |queue: &str| {
        format!(
            "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", queue = {queue} }}\n[[flows]]\ncc = \"reno\"\n"
        )
    };
    let parse = |queue: &str| from_str("q.toml", &file(queue), &[]);
    let codel = parse("\"codel\"")
        .unwrap()
        .topology
        .dumbbell()
        .unwrap()
        .bottleneck
        .queue
        .clone();
    assert_eq!(
        codel,
        QueueDiscipline::Codel(CodelConfig {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            ecn: false,
        })
    );
    let fq = parse("\"fq_codel\"")
        .unwrap()
        .topology
        .dumbbell()
        .unwrap()
        .bottleneck
        .queue
        .clone();
    assert_eq!(
        fq,
        QueueDiscipline::FqCodel(FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            ecn: false,
        })
    );
    let given = parse(
        "{ kind = \"fq_codel\", flows = 16, quantum = 300, target = \"2ms\", interval = \"40ms\", ecn = true }",
    )
    .unwrap()
    .topology
    .dumbbell()
    .unwrap()
    .bottleneck
    .queue
    .clone();
    assert_eq!(
        given,
        QueueDiscipline::FqCodel(FqCodelConfig {
            flows: 16,
            quantum: 300,
            target: SimDuration::from_millis(2),
            interval: SimDuration::from_millis(40),
            ecn: true,
        })
    );
    for (queue, key, words) in [
        (
            "{ kind = \"codel\", target = \"0ms\" }",
            "queue.target",
            "longer than zero",
        ),
        (
            "{ kind = \"codel\", interval = 100 }",
            "queue.interval",
            "unit",
        ),
        (
            "{ kind = \"codel\", target = \"200ms\" }",
            "queue.target",
            "shorter than the interval",
        ),
        (
            "{ kind = \"codel\", ecn = \"yes\" }",
            "queue.ecn",
            "true or false",
        ),
        (
            "{ kind = \"codel\", flows = 4 }",
            "queue.flows",
            "unknown key",
        ),
        (
            "{ kind = \"fq_codel\", flows = 0 }",
            "queue.flows",
            "outside [1, 65536]",
        ),
        (
            "{ kind = \"fq_codel\", flows = 2.5 }",
            "queue.flows",
            "integer",
        ),
        (
            "{ kind = \"fq_codel\", quantum = 100 }",
            "queue.quantum",
            "outside [256, 1048576]",
        ),
        (
            "{ kind = \"fq_codel\", quantom = 300 }",
            "queue.quantom",
            "did you mean `quantum`",
        ),
    ] {
        let err = parse(queue).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("q.toml: topology.bottleneck.{key}: ")),
            "{err}"
        );
        assert!(err.contains(words), "{err}");
    }
}

#[test]
fn red_queue_by_name_or_table() {
    let parse = |queue: &str| {
        let text = format!(
            "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", queue = {queue} }}\n\
             [[flows]]\ncc = \"reno\"\n"
        );
        from_str("red.toml", &text, &[])
            .unwrap()
            .topology
            .dumbbell()
            .unwrap()
            .bottleneck
            .queue
            .clone()
    };
    // By name: ns-2's defaults (thresh_ 5, maxthresh_ 15, q_weight_ 0.002, linterm_ 10,
    // gentle_ true); w_q stays unset so that adaptive mode may derive it.
    assert_eq!(parse("\"red\""), QueueDiscipline::Red(RedConfig::default()));
    assert_eq!(
        RedConfig::default(),
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            w_q: None,
            max_p: 0.1,
            gentle: true,
            adaptive: false,
            byte_mode: false,
            mean_packet_bytes: None,
            ecn: false,
        }
    );
    assert_eq!(
        parse(
            "{ kind = \"red\", min_th = 20, max_th = 60, w_q = 0.001, max_p = 0.05, \
             gentle = false, adaptive = true, byte_mode = true, mean_packet_bytes = 1000, ecn = true }"
        ),
        QueueDiscipline::Red(RedConfig {
            min_th: 20.0,
            max_th: 60.0,
            w_q: Some(0.001),
            max_p: 0.05,
            gentle: false,
            adaptive: true,
            byte_mode: true,
            mean_packet_bytes: Some(1000),
            ecn: true,
        })
    );
}

#[test]
fn overrides_apply_before_validation() {
    let s = from_str(
        "full.toml",
        FULL,
        &[
            "flows.1.cc=reno".into(),
            "topology.bottleneck.rate=10Mbps".into(),
            "seed=9".into(),
        ],
    )
    .unwrap();
    assert_eq!(s.seed, 9);
    assert_eq!(
        s.topology.dumbbell().unwrap().bottleneck.rate_bps,
        10_000_000
    );
    let err = from_str("full.toml", FULL, &["flows.0.cc=cubik".into()]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("full.toml: flows.0.cc: unknown algorithm `cubik`")
    );
}

/// Each malformed input: the message names the file and the key; the text says what is wrong.
#[test]
fn malformed_inputs_name_file_key_and_problem() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "bottleneck = { rate = \"0Mbps\", delay = \"30ms\" }",
            "topology.bottleneck.rate",
            "positive",
        ),
        (
            "bottleneck = { rate = \"-1Mbps\", delay = \"30ms\" }",
            "topology.bottleneck.rate",
            "positive",
        ),
        (
            "bottleneck = { rate = \"100\", delay = \"30ms\" }",
            "topology.bottleneck.rate",
            "no unit",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"-5ms\" }",
            "topology.bottleneck.delay",
            "negative",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"0ms\" }",
            "topology.bottleneck.delay",
            "longer than zero",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = 30 }",
            "topology.bottleneck.delay",
            "unit",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", buffer = 0 }",
            "topology.bottleneck.buffer",
            "at least one packet",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", buffer = \"0KB\" }",
            "topology.bottleneck.buffer",
            "at least one packet",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", buffer = \"100B\" }",
            "topology.bottleneck.buffer",
            "cannot hold",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", bufer = 10 }",
            "topology.bottleneck.bufer",
            "did you mean `buffer`",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", min_th = 15, max_th = 5 } }",
            "topology.bottleneck.queue.max_th",
            "must be above min_th",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", min_th = 20 } }",
            "topology.bottleneck.queue.min_th",
            "must be above min_th (20)",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", min_th = -1 } }",
            "topology.bottleneck.queue.min_th",
            "negative",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", w_q = 0 } }",
            "topology.bottleneck.queue.w_q",
            "(0, 1]",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", w_q = 1.5 } }",
            "topology.bottleneck.queue.w_q",
            "(0, 1]",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", max_p = 0 } }",
            "topology.bottleneck.queue.max_p",
            "probability in (0, 1]",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", max_p = 1.1 } }",
            "topology.bottleneck.queue.max_p",
            "probability in (0, 1]",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", gentle = 1 } }",
            "topology.bottleneck.queue.gentle",
            "true or false",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", mean_packet_bytes = 0 } }",
            "topology.bottleneck.queue.mean_packet_bytes",
            "at least 1",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", queue = { kind = \"red\", maxth = 5 } }",
            "topology.bottleneck.queue.maxth",
            "did you mean `max_th`",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", loss = 1.5 }",
            "topology.bottleneck.loss",
            "probability",
        ),
        (
            "kind = \"ring\"\nbottleneck = { rate = \"100Mbps\", delay = \"30ms\" }",
            "topology.kind",
            "\"parking-lot\"",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\", ecn_threshold = 0 }",
            "topology.bottleneck.ecn_threshold",
            "at least 1",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\" }\naccess = { rate = \"1Gbps\", loss = 0.1 }",
            "topology.access.loss",
            "unknown key",
        ),
        (
            "bottleneck = { rate = \"100Mbps\", delay = \"30ms\" }\naccess = { rate = \"1Gbps\", ecn_threshold = 5 }",
            "topology.access.ecn_threshold",
            "unknown key",
        ),
    ];
    for (topology, key, fragment) in cases {
        let text = format!("[topology]\n{topology}\n[[flows]]\ncc = \"reno\"\n");
        let message = from_str("bad.toml", &text, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("bad.toml: {key}: ")),
            "{message}"
        );
        assert!(message.contains(fragment), "{message} lacks {fragment}");
        assert!(!message.contains('\n'), "{message} is not one line");
    }

    let topology = "[topology]\nbottleneck = { rate = \"100Mbps\", delay = \"30ms\" }\n";
    let flow_cases: &[(&str, &str, &str)] = &[
        ("cc = \"cubik\"", "flows.0.cc", "unknown algorithm"),
        ("cc = \"renoo\"", "flows.0.cc", "did you mean `reno`"),
        ("count = 2", "flows.0.cc", "missing"),
        ("cc = \"reno\"\ncount = 0", "flows.0.count", "outside"),
        (
            "cc = \"reno\"\nstrat = \"1s\"",
            "flows.0.strat",
            "did you mean `start`",
        ),
        ("cc = \"reno\"\nsize = 0", "flows.0.size", "unlimited"),
        (
            "cc = \"reno\"\nrecovery = \"sak\"",
            "flows.0.recovery",
            "did you mean \"sack\"",
        ),
        (
            "cc = \"reno\"\nslow_start = \"fast\"",
            "flows.0.slow_start",
            "unknown slow-start variant",
        ),
        (
            "cc = \"hybla\"\nslow_start = \"limited\"",
            "flows.0.slow_start",
            "own start-up",
        ),
        (
            "cc = \"vegas\"\ninitial_ssthresh = \"packet-pair\"",
            "flows.0.initial_ssthresh",
            "does not take the packet-pair estimate",
        ),
        (
            "cc = \"bbr\"\ninitial_ssthresh = 100",
            "flows.0.initial_ssthresh",
            "`bbr` has no slow-start threshold",
        ),
        (
            "cc = \"reno\"\nparams = { beta = 0.5 }",
            "flows.0.params.beta",
            "unknown parameter",
        ),
        (
            "cc = \"reno\"\ninitial_window = 0",
            "flows.0.initial_window",
            "segments",
        ),
        (
            "cc = \"reno\"\nreceive_window = \"10B\"",
            "flows.0.receive_window",
            "at least one segment",
        ),
        (
            "cc = \"reno\"\nsend_buffer = \"10B\"",
            "flows.0.send_buffer",
            "at least one segment",
        ),
        (
            "cc = \"reno\"\nsend_buffer = 4",
            "flows.0.send_buffer",
            "bytes",
        ),
        (
            "cc = \"reno\"\nsmall_queues = \"tun\"",
            "flows.0.small_queues",
            "true or false",
        ),
        ("cc = \"reno\"\ndrop = [-1]", "flows.0.drop", "indexes"),
        (
            "cc = \"reno\"\nmin_rto = \"0ms\"",
            "flows.0.min_rto",
            "longer than zero",
        ),
        (
            "cc = \"reno\"\necn = \"yes\"",
            "flows.0.ecn",
            "true or false",
        ),
    ];
    for (flow, key, fragment) in flow_cases {
        let text = format!("{topology}[[flows]]\n{flow}\n");
        let message = from_str("bad.toml", &text, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("bad.toml: {key}: ")),
            "{message}"
        );
        assert!(message.contains(fragment), "{message} lacks {fragment}");
    }

    let root_cases: &[(&str, &str, &str)] = &[
        ("duration = \"0s\"", "duration", "longer than zero"),
        ("duraton = \"10s\"", "duraton", "did you mean `duration`"),
        ("seed = -3", "seed", "from 0 to 18446744073709551615"),
        (
            "[output]\ninterval = \"0ms\"",
            "output.interval",
            "longer than zero",
        ),
    ];
    for (root, key, fragment) in root_cases {
        let text = format!("{root}\n{topology}[[flows]]\ncc = \"reno\"\n");
        let text = if root.starts_with('[') {
            format!("{topology}[[flows]]\ncc = \"reno\"\n{root}\n")
        } else {
            text
        };
        let message = from_str("bad.toml", &text, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("bad.toml: {key}: ")),
            "{message}"
        );
        assert!(message.contains(fragment), "{message} lacks {fragment}");
    }

    let message = from_str("bad.toml", topology, &[]).unwrap_err().to_string();
    assert!(
        message.starts_with("bad.toml: flows: no flows"),
        "{message}"
    );
    let message = from_str("bad.toml", "[[flows]]\ncc = \"reno\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("bad.toml: topology.bottleneck: missing"),
        "{message}"
    );
}

#[test]
fn syntax_errors_report_line_and_column() {
    let message = from_str("bad.toml", "name = \"x\"\nduration = \n", &[])
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("bad.toml: line 2, column"), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn output_measurement_keys() {
    let base = "duration = \"60s\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\ncount = 2\n[output]\n";
    let s = from_str("o.toml", base, &[]).unwrap();
    assert_eq!(s.output.steady_from, SimDuration::ZERO);
    assert_eq!(s.output.rate_interval, SimDuration::from_millis(100));
    assert_eq!(s.output.convergence_window, SimDuration::from_secs(1));
    assert!(s.output.trace_packets.is_empty());
    // Defaults round up to whole multiples of the sampling interval.
    let s = from_str("o.toml", &format!("{base}interval = \"30ms\"\n"), &[]).unwrap();
    assert_eq!(s.output.rate_interval, SimDuration::from_millis(120));
    assert_eq!(s.output.convergence_window, SimDuration::from_millis(1080));
    let s = from_str(
        "o.toml",
        &format!("{base}steady_from = \"20s\"\nrate_interval = \"50ms\"\ntrace_packets = [1]\n"),
        &[],
    )
    .unwrap();
    assert_eq!(s.output.steady_from, SimDuration::from_secs(20));
    assert_eq!(s.output.rate_interval, SimDuration::from_millis(50));
    assert_eq!(s.output.trace_packets, [1]);

    for (line, key, words) in [
        ("steady_from = 5", "output.steady_from", "unit"),
        (
            "rate_interval = \"15ms\"",
            "output.rate_interval",
            "multiple of `interval`",
        ),
        (
            "convergence_window = \"150ms\"",
            "output.convergence_window",
            "multiple of `rate_interval`",
        ),
        (
            "trace_packets = [2]",
            "output.trace_packets",
            "flow 2 does not exist",
        ),
        (
            "trace_packets = 0",
            "output.trace_packets",
            "list of flow ids",
        ),
        (
            "steady_form = \"1s\"",
            "output.steady_form",
            "did you mean `steady_from`",
        ),
    ] {
        let err = from_str("o.toml", &format!("{base}{line}\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&format!("o.toml: {key}: ")), "{err}");
        assert!(err.contains(words), "{err}");
    }
}

/// A valid file with `extra` lines at the root and `flow` lines in the one flow table.
fn with(extra: &str, flow: &str) -> String {
    format!(
        "{extra}\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n[[flows]]\ncc = \"reno\"\n{flow}\n"
    )
}

#[test]
fn names_must_be_one_plain_path_component() {
    for good in ["cubic-vs-reno", "run_1.2", "a+b"] {
        let s = from_str("n.toml", &with(&format!("name = \"{good}\""), ""), &[]).unwrap();
        assert_eq!(s.name, good);
    }
    for (bad, problem) in [
        ("../../x", "starts with `.`"),
        ("/srv/x", "path separator"),
        ("a/b", "path separator"),
        ("a\\\\b", "path separator"),
        (".hidden", "starts with `.`"),
        ("..", "starts with `.`"),
        ("", "is empty"),
        ("two\\nlines", "character other than"),
        ("sp ace", "character other than"),
    ] {
        let err = from_str("n.toml", &with(&format!("name = \"{bad}\""), ""), &[])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("n.toml: name: "), "{err}");
        assert!(err.contains(problem), "{bad}: {err}");
        // One line: the newline in the value is shown escaped.
        assert!(!err.contains('\n'), "{err}");
    }
    let long = "x".repeat(101);
    let err = from_str("n.toml", &with(&format!("name = \"{long}\""), ""), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("longer than 100 characters"), "{err}");
    // Without `name`, the file stem is the name and must pass the same rule.
    let err = from_str("dir/my run.toml", &with("", ""), &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("dir/my run.toml: name: the file name `my run`"),
        "{err}"
    );
}

#[test]
fn flows_must_start_before_the_end() {
    let err = from_str(
        "s.toml",
        &with("duration = \"10s\"", "start = \"10s\""),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "s.toml: flows.0.start: 10s is at or after the end of the run (duration 10s); \
         start the flows earlier or lengthen `duration`"
    );
    assert!(
        from_str(
            "s.toml",
            &with("duration = \"10s\"", "start = \"9.9s\""),
            &[]
        )
        .is_ok()
    );
    // With jitter, the latest start (start + jitter - 1 ns) must lie before the end.
    let err = from_str(
        "s.toml",
        &with(
            "duration = \"10s\"",
            "start = \"9s\"\nstart_jitter = \"2s\"",
        ),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("s.toml: flows.0.start_jitter: start 9s plus start_jitter 2s"),
        "{err}"
    );
    let s = from_str(
        "s.toml",
        &with(
            "duration = \"10s\"",
            "start = \"9s\"\nstart_jitter = \"1s\"",
        ),
        &[],
    )
    .unwrap();
    assert_eq!(s.flows[0].start_jitter, SimDuration::from_secs(1));
    // --set duration=... that ends before a flow starts is refused too.
    assert!(
        from_str(
            "s.toml",
            &with("", "start = \"5s\""),
            &["duration=4s".into()]
        )
        .is_err()
    );
}

#[test]
fn seeds_cover_the_whole_u64_range() {
    let s = from_str("s.toml", &with("seed = \"18446744073709551615\"", ""), &[]).unwrap();
    assert_eq!(s.seed, u64::MAX);
    let s = from_str("s.toml", &with("seed = 9223372036854775807", ""), &[]).unwrap();
    assert_eq!(s.seed, i64::MAX as u64);
    // On the command line a number past i64 is not TOML, so it arrives as a string.
    let s = from_str(
        "s.toml",
        &with("", ""),
        &["seed=18446744073709551615".into()],
    )
    .unwrap();
    assert_eq!(s.seed, u64::MAX);
    let err = from_str("s.toml", &with("seed = 18446744073709551615", ""), &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("s.toml: line 1, column 8: integer too large"),
        "{err}"
    );
    assert!(err.contains("seed = \"18446744073709551615\""), "{err}");
    for bad in ["\"18446744073709551616\"", "\"-1\"", "1.5"] {
        let err = from_str("s.toml", &with(&format!("seed = {bad}"), ""), &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("s.toml: seed: must be an integer from 0 to"),
            "{err}"
        );
    }
}

#[test]
fn long_values_are_echoed_shortened() {
    let long = "q".repeat(100_000);
    let err = from_str(
        "s.toml",
        &with("", "").replace("\"reno\"", &format!("\"{long}\"")),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("s.toml: flows.0.cc: "), "{err}");
    assert!(
        err.contains(&format!("`{}…`", "q".repeat(ECHO_LIMIT))),
        "{err}"
    );
    // Cut to the limit: never 41 of them in a row.
    assert!(!err.contains(&"q".repeat(ECHO_LIMIT + 1)), "{err}");
    // An unknown key of any length, and a --set assignment.
    let err = from_str("s.toml", &with("", &format!("{long} = 1")), &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "s.toml: flows.0.{}…: unknown key",
            "q".repeat(ECHO_LIMIT)
        )),
        "{err}"
    );
    let err = from_str("s.toml", &with("", ""), &[format!("flows.9.cc={long}")])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "--set flows.9.cc={}…: ",
            "q".repeat(ECHO_LIMIT - "flows.9.cc=".len())
        )),
        "{err}"
    );
}

/// The estimate by hand, with the per-row sizes documented in model.rs.
#[test]
fn output_estimate_counts_rows_and_bytes() {
    let text = format!(
        "{}[output]\ninterval = \"10ms\"\ntrace_packets = [0]\n",
        with("duration = \"60s\"", "count = 2")
    );
    let s = from_str("e.toml", &text, &[]).unwrap();
    let e = s.output_estimate();
    // 60 s / 10 ms = 6000 samples; 2 flows; 600 rate bins of 100 ms.
    assert_eq!(e.timeseries_rows, 12_000);
    assert_eq!(e.queue_rows, 6000);
    assert_eq!(e.rates_rows, 1200);
    // 10 Mbit/s × 60 s / (8 × 1500-byte packets) = 50 000 packets, 3 rows each.
    assert_eq!(e.packets_rows, 150_000);
    // 120, 50, 30 and 45 bytes per row; summary 2000 per flow + 2000.
    let bytes = 12_000 * 120 + 6000 * 50 + 1200 * 30 + 150_000 * 45 + 2 * 2000 + 2000;
    assert_eq!(e.total_bytes(), bytes);
    assert_eq!(e.largest(), ("packets.csv", 150_000, "trace_packets"));
    assert!(check_output_size(&s).is_ok());

    // A traced flow of a second table with MSS 536 sends 588-byte packets (536 + 52):
    // 10 Mbit/s × 60 s / (8 × 588) = 127 551 packets (rounded down), 3 rows each.
    let text = format!(
        "{}[[flows]]\ncc = \"reno\"\nmss = 536\n[output]\ntrace_packets = [2]\n",
        with("duration = \"60s\"", "count = 2")
    );
    let e = from_str("e.toml", &text, &[]).unwrap().output_estimate();
    assert_eq!(e.packets_rows, 3 * 127_551);
}

#[test]
fn output_beyond_the_limit_is_refused_with_the_estimate() {
    let file = with("duration = \"60s\"", "");
    // 60 s / 1 us = 6e7 samples: timeseries 6e7 × 120 B + queue 6e7 × 50 B + rates 600 × 30 B
    // + summary 4000 B = 10 200 022 000 B = 9.5 GiB.
    let s = from_str("l.toml", &file, &["output.interval=1us".into()]).unwrap();
    let err = check_output_size(&s).unwrap_err().to_string();
    assert!(err.starts_with("l.toml: output.interval: 1 flow sampled every 1us for 60s would write about 9.5 GiB (timeseries.csv: 60000000 rows), more than the 1.0 GiB limit"), "{err}");
    // Raised or lifted by output.max_size.
    for limit in ["10GiB", "unlimited"] {
        let s = from_str(
            "l.toml",
            &file,
            &[
                "output.interval=1us".into(),
                format!("output.max_size={limit}"),
            ],
        )
        .unwrap();
        assert!(check_output_size(&s).is_ok(), "{limit}");
    }
    // Tiny rate bins are named by their own key.
    let s = from_str(
        "l.toml",
        &file,
        &[
            "output.interval=1ms".into(),
            "output.rate_interval=1ms".into(),
            "output.max_size=5MB".into(),
        ],
    )
    .unwrap();
    let err = check_output_size(&s).unwrap_err().to_string();
    assert!(err.starts_with("l.toml: output.interval: "), "{err}");
    let s = from_str(
        "l.toml",
        &file,
        &[
            "output.rate_interval=10ms".into(),
            "flows.0.count=1000".into(),
            "output.interval=10ms".into(),
            "output.max_size=10MB".into(),
        ],
    )
    .unwrap();
    // 1000 flows: timeseries 1000 × 6000 rows × 120 B = 720 MB, over 10 MB; it is the largest.
    assert!(
        check_output_size(&s)
            .unwrap_err()
            .to_string()
            .contains("1000 flows sampled every 10ms")
    );
    let err = from_str("l.toml", &file, &["output.max_size=big".into()])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("l.toml: output.max_size: "), "{err}");
}

#[test]
fn scenario_files_must_be_small_regular_files() {
    let dir = std::env::temp_dir().join(format!("cclab-scenario-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = load(&dir, &[]).unwrap_err().to_string();
    assert!(
        err.ends_with(": is a folder; give a scenario file (TOML)"),
        "{err}"
    );
    let big = dir.join("big.toml");
    // One byte over the 1 MiB limit.
    std::fs::write(&big, vec![b'#'; 1024 * 1024 + 1]).unwrap();
    let err = load(&big, &[]).unwrap_err().to_string();
    assert!(
        err.ends_with("big.toml: is larger than 1024 KiB, the limit for scenario files"),
        "{err}"
    );
    let device = std::path::Path::new("/dev/zero");
    if device.exists() {
        let err = load(device, &[]).unwrap_err().to_string();
        assert_eq!(
            err,
            "/dev/zero: is not a regular file; give a scenario file (TOML)"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Topology kinds and flow places: every bad input is one sentence naming the file and the
/// key (docs/scenarios.md, "Topologies").
#[test]
fn topology_errors_name_the_key() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (topology, flow keys, key, part of the message)
        (
            "kind = \"parking-lot\"\nhops = 0\nlink = { rate = \"10Mbps\", delay = \"5ms\" }",
            "",
            "topology.hops",
            "1 to 64",
        ),
        (
            "kind = \"parking-lot\"\nhops = 3\nlink = { rate = \"10Mbps\", delay = \"5ms\" }",
            "route = { from = 1, to = 4 }",
            "flows.0.route.to",
            "0 to 3",
        ),
        (
            "kind = \"parking-lot\"\nhops = 3\nlink = { rate = \"10Mbps\", delay = \"5ms\" }",
            "direction = \"reverse\"",
            "flows.0.direction",
            "dumbbell only",
        ),
        (
            "kind = \"parking-lot\"\nhops = 2\nlink = { rate = \"10Mbps\", delay = \"5ms\" }\nhop3 = { rate = \"1Mbps\" }",
            "",
            "topology.hop3",
            "unknown key",
        ),
        (
            "kind = \"graph\"\nnodes = [\"a\", \"b\"]\nlinks = [{ between = [\"a\", \"c\"], rate = \"10Mbps\", delay = \"5ms\" }]",
            "route = { from = \"a\", to = \"b\" }",
            "topology.links.0.between",
            "unknown node `c`",
        ),
        (
            "kind = \"graph\"\nnodes = [\"a\", \"b\"]\nlinks = [{ between = [\"a\", \"b\"], rate = \"10Mbps\", delay = \"5ms\" }]",
            "",
            "flows.0.route",
            "missing",
        ),
        (
            "kind = \"graph\"\nnodes = [\"a\", \"b\", \"c\", \"d\"]\nlinks = [{ between = [\"a\", \"b\"], rate = \"10Mbps\", delay = \"5ms\" }, { between = [\"c\", \"d\"], rate = \"10Mbps\", delay = \"5ms\" }]",
            "route = { from = \"a\", to = \"d\" }",
            "flows.0.route.to",
            "no route between `a` and `d`",
        ),
        (
            "bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }",
            "route = { from = 0, to = 1 }",
            "flows.0.route",
            "dumbbell",
        ),
        (
            "bottleneck = { rate = \"10Mbps\", delay = \"5ms\", reverse = { rate = \"1Mbps\", loss = 0.1 } }",
            "",
            "topology.bottleneck.reverse.loss",
            "unknown key",
        ),
    ];
    for (topology, flow, key, part) in cases {
        let text = format!("[topology]\n{topology}\n[[flows]]\ncc = \"reno\"\n{flow}\n");
        let message = from_str("net.toml", &text, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("net.toml: {key}:")) && message.contains(part),
            "{topology} / {flow}: {message}"
        );
        assert_eq!(message.lines().count(), 1, "{message}");
    }
}

#[test]
fn topology_kinds_parse_with_their_defaults() {
    let parse = |topology: &str, flows: &str| {
        from_str("t.toml", &format!("[topology]\n{topology}\n{flows}"), &[]).unwrap()
    };
    // Parking lot: per-hop overrides replace only the keys they name; the default route is
    // the long flow 0 → hops.
    let s = parse(
        "kind = \"parking-lot\"\nhops = 3\nlink = { rate = \"10Mbps\", delay = \"5ms\", buffer = 50 }\nhop2 = { rate = \"4Mbps\" }",
        "[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"reno\"\nroute = { from = 1, to = 2 }\n",
    );
    let Topology::ParkingLot(p) = &s.topology else {
        panic!("a parking lot")
    };
    let rates: Vec<u64> = p.hops.iter().map(|l| l.rate_bps).collect();
    assert_eq!(rates, [10_000_000, 4_000_000, 10_000_000]);
    assert_eq!(p.hops[1].buffer, Buffer::Packets(50));
    assert_eq!(s.flows[0].route, Some((0, 3)));
    assert_eq!(s.flows[1].route, Some((1, 2)));
    assert_eq!(s.reported_links(), 3);
    // Dumbbell reverse: unspecified keys default to the forward direction's.
    let s = parse(
        "bottleneck = { rate = \"10Mbps\", delay = \"5ms\", buffer = 40, reverse = { rate = \"500kbps\" } }",
        "[[flows]]\ncc = \"reno\"\n",
    );
    let d = s.topology.dumbbell().unwrap();
    let reverse = d.reverse.as_ref().unwrap();
    assert_eq!(
        (reverse.rate_bps, reverse.delay, reverse.buffer),
        (500_000, SimDuration::from_millis(5), Buffer::Packets(40))
    );
    assert_eq!(s.reported_links(), 2);
    // Graph: node indexes in `nodes` order; both directions reported.
    let s = parse(
        "kind = \"graph\"\nnodes = [\"a\", \"r\", \"b\"]\nlinks = [{ between = [\"a\", \"r\"], rate = \"10Mbps\", delay = \"1ms\" }, { between = [\"r\", \"b\"], rate = \"5Mbps\", delay = \"1ms\" }]",
        "[[flows]]\ncc = \"reno\"\nroute = { from = \"b\", to = \"a\" }\n",
    );
    assert_eq!(s.flows[0].route, Some((2, 0)));
    assert_eq!(s.reported_links(), 4);
}

/// `--set` (and so sweeps) reach the keys of every topology kind.
#[test]
fn overrides_reach_parking_lot_graph_and_reverse_keys() {
    let parking_lot = "[topology]\nkind = \"parking-lot\"\nhops = 2\nlink = { rate = \"10Mbps\", delay = \"5ms\" }\n[[flows]]\ncc = \"reno\"\n";
    let s = from_str(
        "p.toml",
        parking_lot,
        &[
            "topology.link.rate=20Mbps".into(),
            "topology.hop2.rate=5Mbps".into(),
        ],
    )
    .unwrap();
    let Topology::ParkingLot(p) = &s.topology else {
        panic!("a parking lot")
    };
    assert_eq!(
        (p.hops[0].rate_bps, p.hops[1].rate_bps),
        (20_000_000, 5_000_000)
    );

    let graph = "[topology]\nkind = \"graph\"\nnodes = [\"a\", \"b\"]\nlinks = [{ between = [\"a\", \"b\"], rate = \"10Mbps\", delay = \"5ms\" }]\n[[flows]]\ncc = \"reno\"\nroute = { from = \"a\", to = \"b\" }\n";
    let s = from_str("g.toml", graph, &["topology.links.0.rate=3Mbps".into()]).unwrap();
    let Topology::Graph(g) = &s.topology else {
        panic!("a graph")
    };
    assert_eq!(g.links[0].link.rate_bps, 3_000_000);

    let dumbbell = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"5ms\" }\n[[flows]]\ncc = \"reno\"\n";
    let s = from_str(
        "d.toml",
        dumbbell,
        &["topology.bottleneck.reverse.rate=1Mbps".into()],
    )
    .unwrap();
    let reverse = s.topology.dumbbell().unwrap().reverse.as_ref().unwrap();
    assert_eq!(reverse.rate_bps, 1_000_000);
}

/// queue.csv gets a row per sample and reported link: a 3-hop parking lot three, a dumbbell
/// with reverse flows two (docs/outputs.md, "Output size").
#[test]
fn queue_rows_follow_the_reported_links() {
    let rows = |topology: &str, flows: &str| {
        from_str(
            "q.toml",
            &format!(
                "duration = \"1s\"\n[topology]\n{topology}\n[[flows]]\ncc = \"reno\"\n{flows}"
            ),
            &[],
        )
        .unwrap()
        .output_estimate()
        .queue_rows
    };
    // 1 s at the default 10 ms interval: 100 samples.
    let dumbbell = "bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }";
    assert_eq!(rows(dumbbell, ""), 100);
    assert_eq!(
        rows(
            dumbbell,
            "[[flows]]\ncc = \"reno\"\ndirection = \"reverse\"\n"
        ),
        200
    );
    let parking_lot =
        "kind = \"parking-lot\"\nhops = 3\nlink = { rate = \"10Mbps\", delay = \"5ms\" }";
    assert_eq!(rows(parking_lot, ""), 300);
}

#[test]
fn pie_and_dualpi2_queues_by_name_or_table() {
    let parse = |queue: &str| {
        let text = format!(
            "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", queue = {queue} }}\n\
             [[flows]]\ncc = \"reno\"\n"
        );
        from_str("aqm.toml", &text, &[])
            .map(|s| {
                s.topology
                    .dumbbell()
                    .expect("a dumbbell")
                    .bottleneck
                    .queue
                    .clone()
            })
            .map_err(|e| e.to_string())
    };
    let ms = SimDuration::from_millis;
    // RFC 8033 §5: QDELAY_REF 15 ms, T_UPDATE 15 ms, alpha 0.125, beta 1.25, MAX_BURST 150 ms.
    assert_eq!(
        PieConfig::default(),
        PieConfig {
            target: ms(15),
            tupdate: ms(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: ms(150),
            ecn: false,
        }
    );
    assert_eq!(
        parse("\"pie\""),
        Ok(QueueDiscipline::Pie(PieConfig::default()))
    );
    assert_eq!(
        parse(
            "{ kind = \"pie\", target = \"5ms\", tupdate = \"30ms\", alpha = 0.25, beta = 2, \
             max_burst = \"0ms\", ecn = true }"
        ),
        Ok(QueueDiscipline::Pie(PieConfig {
            target: ms(5),
            tupdate: ms(30),
            alpha: 0.25,
            beta: 2.0,
            max_burst: SimDuration::ZERO,
            ecn: true,
        }))
    );
    // Linux's defaults, which RFC 9332 Appendix A derives from RTT_max = 100 ms.
    assert_eq!(
        DualPi2Config::default(),
        DualPi2Config {
            target: ms(15),
            tupdate: ms(16),
            alpha: 0.16,
            beta: 3.2,
            coupling: 2.0,
            step_threshold: ms(1),
        }
    );
    assert_eq!(
        parse("\"dualpi2\""),
        Ok(QueueDiscipline::DualPi2(DualPi2Config::default()))
    );
    assert_eq!(
        parse(
            "{ kind = \"dualpi2\", target = \"20ms\", tupdate = \"10ms\", alpha = 10, \
             beta = 100, coupling = 1.5, step_threshold = \"500us\" }"
        ),
        Ok(QueueDiscipline::DualPi2(DualPi2Config {
            target: ms(20),
            tupdate: ms(10),
            alpha: 10.0,
            beta: 100.0,
            coupling: 1.5,
            step_threshold: SimDuration::from_micros(500),
        }))
    );
    let errors = [
        (
            "{ kind = \"pie\", alpha = 3 }",
            "queue.alpha",
            "outside [0, 2]",
        ),
        (
            "{ kind = \"pie\", beta = -1 }",
            "queue.beta",
            "outside [0, 2]",
        ),
        (
            "{ kind = \"pie\", tupdate = \"0ms\" }",
            "queue.tupdate",
            "longer than zero",
        ),
        (
            "{ kind = \"pie\", target = 15 }",
            "queue.target",
            "needs a unit",
        ),
        (
            "{ kind = \"pie\", ecn = \"yes\" }",
            "queue.ecn",
            "true or false",
        ),
        (
            "{ kind = \"pie\", max_brust = \"1s\" }",
            "queue.max_brust",
            "did you mean `max_burst`",
        ),
        (
            "{ kind = \"dualpi2\", coupling = 0.5 }",
            "queue.coupling",
            "outside [1, 255]",
        ),
        (
            "{ kind = \"dualpi2\", alpha = 2000 }",
            "queue.alpha",
            "outside [0, 1000]",
        ),
        (
            "{ kind = \"dualpi2\", step_threshold = \"0ms\" }",
            "queue.step_threshold",
            "longer than zero",
        ),
        (
            "{ kind = \"dualpi2\", ecn = true }",
            "queue.ecn",
            "unknown key",
        ),
    ];
    for (queue, key, fragment) in errors {
        let message = parse(queue).unwrap_err();
        assert!(
            message.starts_with(&format!("aqm.toml: topology.bottleneck.{key}: ")),
            "{message}"
        );
        assert!(message.contains(fragment), "{message} lacks {fragment}");
        assert!(!message.contains('\n'), "{message} is not one line");
    }
}

#[test]
fn access_links_refuse_a_queue_discipline() {
    let text = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n\
                access = { rate = \"100Mbps\", delay = \"1ms\", queue = \"codel\" }\n\
                [[flows]]\ncc = \"reno\"\n";
    let message = from_str("a.toml", text, &[]).unwrap_err().to_string();
    assert!(
        message.starts_with("a.toml: topology.access.queue: access links are drop-tail"),
        "{message}"
    );
    let droptail = text.replace("\"codel\"", "\"droptail\"");
    assert!(from_str("a.toml", &droptail, &[]).is_ok());
}

/// `loss_detection`: RFC 6675's rule by default, RFC 8985 RACK-TLP when named (with SACK
/// only, RFC 8985 §4), and one sentence naming the key otherwise.
#[test]
fn loss_detection_key() {
    let base = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n";
    let s = from_str("l.toml", base, &[]).unwrap();
    assert_eq!(s.flows[0].loss_detection, LossDetection::DupAck);
    let s = from_str(
        "l.toml",
        &format!("{base}loss_detection = \"rack-tlp\"\n"),
        &[],
    )
    .unwrap();
    assert_eq!(s.flows[0].loss_detection, LossDetection::RackTlp);
    let s = from_str(
        "l.toml",
        base,
        &["flows.0.loss_detection=\"rack-tlp\"".into()],
    )
    .unwrap();
    assert_eq!(s.flows[0].loss_detection, LossDetection::RackTlp);
    let message = from_str("l.toml", &format!("{base}loss_detection = \"rack\"\n"), &[])
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("l.toml: flows.0.loss_detection")
            && message.contains("\"dupack\" or \"rack-tlp\"")
            && !message.contains('\n'),
        "{message}"
    );
    for recovery in ["reno", "newreno"] {
        let text = format!("{base}recovery = \"{recovery}\"\nloss_detection = \"rack-tlp\"\n");
        let message = from_str("l.toml", &text, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with("l.toml: flows.0.loss_detection")
                && message.contains("needs SACK")
                && message.contains(recovery),
            "{message}"
        );
    }
}

/// `[output] pcap`: link names of the topology (each direction) and `"flows"`; anything else
/// is one sentence naming the key, with the links or a suggestion.
#[test]
fn pcap_capture_points() {
    let dumbbell = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n[output]\n";
    let s = from_str(
        "p.toml",
        &format!("{dumbbell}pcap = [\"bottleneck-reverse\", \"flows\"]\n"),
        &[],
    )
    .unwrap();
    assert_eq!(
        s.output.pcap,
        [
            PcapPoint::Link("bottleneck-reverse".into()),
            PcapPoint::Flows
        ]
    );
    assert!(!s.output.pcap_payload);
    assert!(s.output_estimate().pcap_bytes() > 0);
    let s = from_str("p.toml", dumbbell, &[]).unwrap();
    assert_eq!(s.output_estimate().pcap_bytes(), 0);
    let parking = "[topology]\nkind = \"parking-lot\"\nhops = 2\nlink = { rate = \"10Mbps\", delay = \"5ms\" }\n[[flows]]\ncc = \"reno\"\nroute = { from = 0, to = 2 }\n[output]\npcap = [\"hop2-reverse\"]\n";
    let s = from_str("p.toml", parking, &[]).unwrap();
    assert_eq!(s.output.pcap, [PcapPoint::Link("hop2-reverse".into())]);
    for (value, expected) in [
        ("[\"botleneck\"]", "did you mean \"bottleneck\"?"),
        ("[\"core\"]", "the links are bottleneck, bottleneck-reverse"),
        ("\"bottleneck\"", "must be a list"),
        ("[\"flows\", \"flows\"]", "listed twice"),
    ] {
        let message = from_str("p.toml", &format!("{dumbbell}pcap = {value}\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("p.toml: output.pcap") && message.contains(expected),
            "{message}"
        );
    }
    let many = dumbbell.replace("cc = \"reno\"\n", "cc = \"reno\"\ncount = 2000\n");
    let message = from_str("p.toml", &format!("{many}pcap = [\"flows\"]\n"), &[])
        .unwrap_err()
        .to_string();
    assert!(message.contains("2000 (at most 1024)"), "{message}");
}
