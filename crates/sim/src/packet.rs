//! Packets are small `Copy` values: no payload bytes, only what the endpoints and links need.

pub use cclab_cc::LoadFactor;

/// A SACK block (RFC 2018): bytes `[start, end)` received above the cumulative ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// Three blocks fit in TCP's 40 option bytes next to the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// Option bytes of a SACK option with `n` blocks: kind + length, then 8 bytes per block.
pub const fn sack_option_bytes(n: usize) -> u32 {
    if n == 0 { 0 } else { 2 + 8 * n as u32 }
}

/// What a packet is, which also says its direction: data segments and SYNs travel the
/// flow's data path, ACKs, SYN-ACKs and the receiver's FIN its ACK path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// The sender's SYN opening the connection (`handshake = true`, docs/model.md). The
    /// sender's own FIN is not a packet of its own: it rides on the last data segment, as
    /// Linux's `tcp_send_fin` sets it on the tail of an unsent write queue.
    Syn,
    /// The receiver's SYN-ACK.
    SynAck,
    /// The receiver's FIN, which also acknowledges the sender's FIN (every byte): its
    /// application closes as soon as it reads the end of the stream.
    Fin,
}

impl PacketKind {
    /// Travels the flow's data path (sender to receiver).
    #[inline(always)]
    pub fn is_forward(self) -> bool {
        matches!(self, PacketKind::Data | PacketKind::Syn)
    }
}

/// Window scale shift of the advertised window (RFC 7323 §2): Linux picks the smallest that
/// lets the 16-bit field reach `tcp_rmem[2]` (6 MB: 2^22 bytes → shift 22 − 15 = 7,
/// `tcp_select_initial_window`).
pub const WINDOW_SCALE: u32 = 7;

/// The ECN field of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    /// Not ECN-capable: a congested queue can only drop it.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0): the classic codepoint (RFC 3168).
    Ect,
    /// ECT(1), the L4S identifier (RFC 9331 §4): a scalable sender (DCTCP, Prague) asking
    /// for immediate, frequent marking; an L4S-aware queue (DualPI2) classifies it into its
    /// low-latency queue.
    Ect1,
    /// Congestion experienced: marked by a queue.
    Ce,
}

impl Ecn {
    /// ECT(0) or ECT(1): a queue may mark the packet CE instead of dropping it.
    #[inline(always)]
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect | Ecn::Ect1)
    }
}

/// XCP's congestion header (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.1), on the data
/// segments of a flow whose controller speaks XCP: the sender's window and RTT, and the
/// feedback every XCP router on the path may lower. On an ACK, `feedback` echoes the sum of
/// the feedback of the segments it acknowledges. All zero when absent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpHeader {
    /// H_cwnd, bytes.
    pub cwnd_bytes: u32,
    /// H_rtt, microseconds; 0 while the sender has no estimate (routers then give it no
    /// share of the feedback).
    pub rtt_us: u32,
    /// H_feedback, bytes of window change asked for (set by the sender, lowered by routers).
    pub feedback_bytes: f32,
}

impl XcpHeader {
    /// The packet carries a header (its sender speaks XCP).
    #[inline(always)]
    pub fn is_present(&self) -> bool {
        self.cwnd_bytes > 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: u32,
    /// Index of the link on the flow's path that carries the packet now.
    pub hop: u8,
    pub kind: PacketKind,
    /// A data segment sent again.
    pub retransmission: bool,
    pub sack_count: u8,
    pub ecn: Ecn,
    /// Bytes on the wire: payload + headers (+ SACK option for ACKs).
    pub wire_bytes: u32,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// Data: the first byte carried. ACK: the cumulative acknowledgment (next byte expected).
    pub seq: u64,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// ACK: payload bytes the receiver got CE-marked so far (an accurate-ECN byte counter,
    /// as RFC 9768's AccECN option carries); 0 on TCP data packets. A UDP packet's send time
    /// in nanoseconds, for its sink's one-way delay.
    pub ce_bytes: u64,
    /// XCP's congestion header (data) or its echo (ACK); absent for other controllers.
    pub xcp: XcpHeader,
    /// VCP's load factor (data: the highest any router wrote; ACK: the echo); `None` for
    /// other controllers. One byte, in what was padding.
    pub vcp: Option<LoadFactor>,
    /// ACK of a receiver that tunes its window (`receive_window = "auto"`): the advertised
    /// window in units of 2^[`WINDOW_SCALE`] bytes, as TCP's 16-bit field carries it; 0 when
    /// the receiver advertises none (the sender keeps its configured cap). Two bytes, in
    /// what was padding: the packet stays 96 bytes.
    pub window: u16,
    /// RFC 7323 timestamp, in microsecond ticks of the sender's clock (wrapping): a data
    /// segment's TSval, an ACK's TSecr (the receiver's TS.Recent, §4.3); 0 when absent.
    /// Only senders with `undo` stamp their segments (Eifel detection, RFC 3522); the data
    /// sender's TSecr and the ACK's own TSval are not modelled, nothing reads them.
    pub ts: u32,
}

impl Packet {
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_count as usize]
    }
}

#[cfg(test)]
impl Packet {
    /// A data segment of flow 0 for unit tests: `wire_bytes` on the wire (52 of them the
    /// default headers), starting at byte `seq`, not ECN-capable.
    pub(crate) fn test_data(wire_bytes: u32, seq: u64) -> Packet {
        Packet {
            flow: 0,
            hop: 0,
            kind: PacketKind::Data,
            retransmission: false,
            sack_count: 0,
            ecn: Ecn::NotEct,
            wire_bytes,
            payload: wire_bytes.saturating_sub(52),
            seq,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            ce_bytes: 0,
            xcp: XcpHeader::default(),
            vcp: None,
            window: 0,
            ts: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_stays_96_bytes() {
        // The hot path copies packets: the window field must fit in the padding.
        assert_eq!(std::mem::size_of::<Packet>(), 96);
    }
}
