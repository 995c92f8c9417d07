//! `send_buffer`, `tcp_wmem` and `send_buffer_accounting`: the forms, the defaults, and one
//! sentence for each bad value.

use crate::parse::connection::tests::{assert_refused, group};
use crate::send_buffer::{SendBuffer, SendBufferAccounting, SendBufferSize, TCP_WMEM_DEFAULT};

#[test]
fn auto_takes_linuxs_tcp_wmem_unless_the_table_gives_its_own() {
    // net.ipv4.tcp_wmem's default since Linux 2.6: 4096 16384 4194304.
    assert_eq!(TCP_WMEM_DEFAULT, [4096, 16_384, 4_194_304]);
    let g = group("send_buffer = \"auto\"");
    assert_eq!(
        g.send_buffer,
        Some(SendBuffer {
            size: SendBufferSize::Auto {
                initial: 16_384,
                max: 4_194_304
            },
            accounting: SendBufferAccounting::Payload,
        })
    );
    let g = group("send_buffer = \"auto\"\ntcp_wmem = [4096, \"64KiB\", \"16MiB\"]");
    assert_eq!(
        g.send_buffer.map(|b| b.size),
        Some(SendBufferSize::Auto {
            initial: 65_536,
            max: 16 << 20
        })
    );
}

#[test]
fn the_accounting_is_payload_unless_truesize_is_asked_for() {
    let g = group("send_buffer = \"4MiB\"");
    assert_eq!(
        g.send_buffer.map(|b| b.accounting),
        Some(SendBufferAccounting::Payload)
    );
    let g = group("send_buffer = \"4MiB\"\nsend_buffer_accounting = \"truesize\"");
    assert_eq!(
        g.send_buffer.map(|b| b.accounting),
        Some(SendBufferAccounting::Truesize)
    );
}

#[test]
fn bad_send_buffer_keys_are_one_sentence() {
    assert_refused("send_buffer = 4", "send_buffer", "\"auto\"");
    assert_refused("send_buffer = \"automatic\"", "send_buffer", "");
    assert_refused(
        "send_buffer = \"4MiB\"\ntcp_wmem = [4096, 16384, 4194304]",
        "tcp_wmem",
        "send_buffer = \"auto\"",
    );
    assert_refused(
        "send_buffer = \"auto\"\ntcp_wmem = [4096, 16384]",
        "tcp_wmem",
        "net.ipv4.tcp_wmem",
    );
    assert_refused(
        "send_buffer = \"auto\"\ntcp_wmem = [4096, 16384, 1000]",
        "tcp_wmem",
        "must grow",
    );
    assert_refused(
        "send_buffer_accounting = \"truesize\"",
        "send_buffer_accounting",
        "has none",
    );
    assert_refused(
        "send_buffer = \"4MiB\"\nsend_buffer_accounting = \"memory\"",
        "send_buffer_accounting",
        "\"truesize\"",
    );
}
