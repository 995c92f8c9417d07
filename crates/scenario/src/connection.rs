//! A TCP connection's life beyond the transfer itself: the handshake and close, the
//! receiver's quick-ACKs at connection start, and its receive-window auto-tuning
//! (`handshake`, `quick_ack`, `receive_window = "auto"`, `drop_syn`). Every option is off by
//! default, which keeps the model as it was before they existed (docs/model.md).

/// Per-flow connection options of a `[[flows]]` group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// `handshake = true`: SYN / SYN-ACK before the first data segment and the FIN
    /// exchange after the last (RFC 9293 §3.5–3.6); a finite flow's FCT then runs from its
    /// SYN to the acknowledgment of its FIN.
    pub handshake: bool,
    /// `quick_ack = true`: the receiver ACKs the first segments at once instead of
    /// delaying them (Linux `tcp_incr_quickack`), and with an auto-tuned window each segment
    /// that grows it (`tcp_grow_window`).
    pub quick_ack: bool,
    /// `receive_window = "auto"`: the receiver advertises a window that Linux's dynamic
    /// right-sizing grows (`tcp_rcv_space_adjust`).
    pub receive_window_auto: bool,
    /// `drop_syn = n`: the first `n` SYNs of each connection are lost (needs `handshake`).
    pub drop_syn: u32,
    /// `tcp_rmem = [min, default, max]`: the auto-tuned receive buffer's sizes.
    pub tcp_rmem: TcpRmem,
    /// `scaling_ratio = n`: the receiving host's payload-to-memory ratio of its packets, in
    /// 256ths (Linux's `scaling_ratio`), which sets the window a receive buffer allows.
    pub scaling_ratio: ScalingRatio,
}

/// Linux's `tp->scaling_ratio` (since 6.6): the window a receive buffer of `space` bytes
/// allows is `space × ratio / 256` (`tcp_win_from_space`), the ratio being the payload over
/// the `truesize` (the memory charged) of the packets received, measured by
/// `tcp_measure_rcv_mss` and kept in a `u8`. It belongs to the receiving host's driver: a TUN
/// device charges about 2317 bytes per 1448-byte segment (160), drivers with page fragments
/// less. The default is `TCP_DEFAULT_SCALING_RATIO`, 128 (one half), what the kernel assumes
/// until its first full-sized segment and what `tcp_adv_win_scale = 1` gave before 6.6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalingRatio(pub u8);

impl ScalingRatio {
    /// `TCP_DEFAULT_SCALING_RATIO` = 1 << (`TCP_RMEM_TO_WIN_SCALE` − 1).
    pub const LINUX_DEFAULT: ScalingRatio = ScalingRatio(128);
}

impl Default for ScalingRatio {
    fn default() -> Self {
        ScalingRatio::LINUX_DEFAULT
    }
}

/// Linux's `net.ipv4.tcp_rmem`: the receive buffer's minimum, initial and largest size in
/// bytes, for a receiver that tunes its window (`receive_window = "auto"`). The default is
/// the value Linux had for years, 4096 131072 6291456; newer kernels, such as Linux 6.18,
/// have a `max` of 32 MB (33554432). The model never shrinks the buffer (memory pressure is
/// not modelled), so `min` is kept for the record only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpRmem {
    pub min: u64,
    pub default: u64,
    pub max: u64,
}

impl Default for TcpRmem {
    fn default() -> Self {
        TcpRmem {
            min: 4096,
            default: 131_072,
            max: 6_291_456,
        }
    }
}
