//! The socket send buffer of a TCP flow (`send_buffer`, `tcp_wmem`,
//! `send_buffer_accounting`): how large it is, and what it counts (docs/model.md, "Send
//! buffer").

/// `send_buffer`: what bounds the data the application has written and TCP has not had
/// acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendBuffer {
    pub size: SendBufferSize,
    pub accounting: SendBufferAccounting,
}

/// How large the buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendBufferSize {
    /// `send_buffer = "4MiB"`: this many bytes from the start, as with `SO_SNDBUF` (which
    /// locks the size, `SOCK_SNDBUF_LOCK`) or an auto-tuned buffer already at its cap.
    Fixed(u64),
    /// `send_buffer = "auto"`: Linux's auto-tuning. `sk_sndbuf` starts at `tcp_wmem[1]`, is
    /// raised at establishment (`tcp_init_buffer_space`) and grows with the window while the
    /// writer waits for room (`tcp_new_space`: `tcp_sndbuf_expand`), never past
    /// `tcp_wmem[2]`.
    Auto { initial: u64, max: u64 },
}

/// Linux's `net.ipv4.tcp_wmem` default, `4096 16384 4194304`: the auto-tuned send buffer
/// starts at 16 KiB and grows to at most 4 MiB.
pub const TCP_WMEM_DEFAULT: [u64; 3] = [4096, 16_384, 4_194_304];

/// What the buffer counts against its size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SendBufferAccounting {
    /// `send_buffer_accounting = "payload"` (the default): the payload bytes written and
    /// not yet acknowledged.
    #[default]
    Payload,
    /// `"truesize"`: the memory Linux charges to `sk_wmem_queued`, the payload and each
    /// skb's `sk_buff`, head and shared info (`skb->truesize`; docs/model.md).
    Truesize,
}
