//! `handshake`, `quick_ack`, `drop_syn` and `receive_window = "auto"`: defaults, accepted
//! forms, and one sentence naming file, key and problem for every bad one.

use crate::connection::{ConnectionOptions, ScalingRatio, TcpRmem};
use crate::{FlowGroup, from_str};

fn with_flow(keys: &str) -> String {
    format!(
        "[topology]\nbottleneck = {{ rate = \"100Mbps\", delay = \"10ms\" }}\n\
         [[flows]]\ncc = \"cubic\"\n{keys}\n"
    )
}

/// The first flow group of a scenario whose one flow table has `keys` (shared with the other
/// flow-key tests of this folder).
pub(in crate::parse) fn group(keys: &str) -> FlowGroup {
    from_str("t.toml", &with_flow(keys), &[])
        .expect("valid scenario")
        .flows[0]
        .clone()
}

/// The scenario with `keys` is refused in one line naming the file, `key` and `fragment`.
pub(in crate::parse) fn assert_refused(keys: &str, key: &str, fragment: &str) {
    let message = from_str("bad.toml", &with_flow(keys), &[])
        .expect_err(keys)
        .to_string();
    assert!(
        message.starts_with(&format!("bad.toml: flows.0.{key}: ")),
        "{keys}: {message}"
    );
    assert!(message.contains(fragment), "{keys}: {message}");
    assert!(!message.contains('\n'), "one line: {message}");
}

#[test]
fn every_option_is_off_by_default() {
    let g = group("");
    assert_eq!(g.connection, ConnectionOptions::default());
    assert_eq!(
        g.connection,
        ConnectionOptions {
            handshake: false,
            quick_ack: false,
            receive_window_auto: false,
            drop_syn: 0,
            // Linux's long-standing net.ipv4.tcp_rmem default.
            tcp_rmem: TcpRmem {
                min: 4096,
                default: 131_072,
                max: 6_291_456
            },
            // Linux's TCP_DEFAULT_SCALING_RATIO: one half.
            scaling_ratio: ScalingRatio(128),
        }
    );
    assert_eq!(g.receive_window, None);
}

#[test]
fn the_options_are_read() {
    let g = group("handshake = true\nquick_ack = true\ndrop_syn = 2\nreceive_window = \"auto\"");
    assert_eq!(
        g.connection,
        ConnectionOptions {
            handshake: true,
            quick_ack: true,
            receive_window_auto: true,
            drop_syn: 2,
            tcp_rmem: TcpRmem::default(),
            scaling_ratio: ScalingRatio::default(),
        }
    );
    // The receiver tunes the window: the sender keeps no fixed cap.
    assert_eq!(g.receive_window, None);
    // A fixed window is not auto-tuned.
    let g = group("receive_window = 50");
    assert_eq!(
        (g.receive_window, g.connection.receive_window_auto),
        (Some(50 * 1448), false)
    );
}

#[test]
fn bad_values_are_refused_in_one_sentence() {
    assert_refused("handshake = 1", "handshake", "true or false");
    assert_refused("quick_ack = \"yes\"", "quick_ack", "true or false");
    assert_refused("handshake = true\ndrop_syn = 7", "drop_syn", "0 to 6");
    assert_refused("handshake = true\ndrop_syn = -1", "drop_syn", "0 to 6");
    assert_refused("drop_syn = 1", "drop_syn", "handshake = true");
    assert_refused("receive_window = \"automatic\"", "receive_window", "");
    assert_refused(
        "handshake = true\non_off = { on = \"1s\", off = \"1s\" }",
        "handshake",
        "on/off",
    );
}

#[test]
fn a_workload_takes_the_options() {
    let text = "[topology]\nbottleneck = { rate = \"100Mbps\", delay = \"10ms\" }\n\
                [[flows]]\ncc = \"cubic\"\nsize = \"1MB\"\n\
                [[flows]]\nkind = \"workload\"\ncc = \"cubic\"\nload = 0.5\n\
                sizes = { distribution = \"fixed\", mean = \"10KB\" }\nhandshake = true\n";
    let s = from_str("t.toml", text, &[]).expect("valid scenario");
    assert!(s.flows[1].connection.handshake);
    let message = from_str("bad.toml", &format!("{text}drop_syn = 1\n"), &[])
        .expect_err("drop_syn on a workload")
        .to_string();
    assert!(
        message.contains("flows.1.drop_syn") && message.contains("long-lived"),
        "{message}"
    );
}

#[test]
fn a_udp_flow_takes_none_of_them() {
    let text = "[topology]\nbottleneck = { rate = \"100Mbps\", delay = \"10ms\" }\n\
                [[flows]]\ncc = \"cubic\"\n\
                [[flows]]\nkind = \"udp\"\nrate = \"1Mbps\"\nhandshake = true\n";
    let message = from_str("bad.toml", text, &[])
        .expect_err("UDP")
        .to_string();
    assert!(message.contains("flows.1.handshake"), "{message}");
}

#[test]
fn tcp_rmem_is_read_as_the_sysctl_prints_it() {
    // `cat /proc/sys/net/ipv4/tcp_rmem` on Linux 6.18: 4096 131072 33554432.
    let g = group("receive_window = \"auto\"\ntcp_rmem = [4096, 131072, 33554432]");
    assert_eq!(
        g.connection.tcp_rmem,
        TcpRmem {
            min: 4096,
            default: 131_072,
            max: 33_554_432
        }
    );
    // Sizes with units: 32 MiB = 33 554 432 bytes, 128 KiB = 131 072.
    let g = group("stack = \"linux\"\ntcp_rmem = [\"4KiB\", \"128KiB\", \"32MiB\"]");
    assert_eq!(g.connection.tcp_rmem.max, 33_554_432);
    assert_eq!(g.connection.tcp_rmem.default, 131_072);
}

#[test]
fn scaling_ratio_is_the_receiving_hosts_and_needs_a_tuned_window() {
    // 256 × 1448 / 2317 = 160: a TUN device's truesize for a 1448-byte segment.
    let g = group("receive_window = \"auto\"\nscaling_ratio = 160");
    assert_eq!(g.connection.scaling_ratio, ScalingRatio(160));
    let g = group("stack = \"linux\"\nscaling_ratio = 255");
    assert_eq!(g.connection.scaling_ratio, ScalingRatio(255));
    // A stack leaves it at Linux's initial assumption.
    assert_eq!(
        group("stack = \"linux\"").connection.scaling_ratio,
        ScalingRatio(128)
    );
    assert_refused(
        "scaling_ratio = 160",
        "scaling_ratio",
        "receive_window = \"auto\"",
    );
    for bad in ["0", "256", "-1", "1.25", "\"160\""] {
        assert_refused(
            &format!("receive_window = \"auto\"\nscaling_ratio = {bad}"),
            "scaling_ratio",
            "1 to 255",
        );
    }
}

#[test]
fn a_bad_tcp_rmem_is_one_sentence() {
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = 6291456",
        "tcp_rmem",
        "[min, default, max]",
    );
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = [4096, 131072]",
        "tcp_rmem",
        "[min, default, max]",
    );
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = [0, 131072, 6291456]",
        "tcp_rmem",
        "[min, default, max]",
    );
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = [4096, 131072, 65536]",
        "tcp_rmem",
        "min to default to max",
    );
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = [4096, 131072, \"3GB\"]",
        "tcp_rmem",
        "C int",
    );
    assert_refused(
        "receive_window = \"auto\"\ntcp_rmem = [4096, 131072, \"lots\"]",
        "tcp_rmem",
        "not a size",
    );
    // Only an auto-tuned receiver has the buffer it sizes.
    assert_refused(
        "tcp_rmem = [4096, 131072, 33554432]",
        "tcp_rmem",
        "receive_window = \"auto\"",
    );
}
