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

/// How a packet carries a SACK block: its start relative to the packet's cumulative ACK
/// (`seq`; negative for a DSACK below it, RFC 2883) and its length, 8 bytes instead of 16.
/// A block lies within the window around the cumulative ACK, far inside ±2 GiB. Read and
/// written through [`Packet::sack_blocks`] and [`Packet::set_sack_blocks`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackOffsets {
    start_from_ack: i32,
    len: u32,
}

/// The SACK blocks of a packet, decoded: a slice of [`SackBlock`] by `Deref`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [SackBlock; MAX_SACK_BLOCKS],
    count: u8,
}

impl std::ops::Deref for SackBlocks {
    type Target = [SackBlock];
    fn deref(&self) -> &[SackBlock] {
        &self.blocks[..self.count as usize]
    }
}

impl IntoIterator for SackBlocks {
    type Item = SackBlock;
    type IntoIter = std::iter::Take<std::array::IntoIter<SackBlock, MAX_SACK_BLOCKS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().take(self.count as usize)
    }
}

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
    /// `sack_count` SACK blocks, relative to `seq` (see [`SackOffsets`]).
    pub sack: [SackOffsets; MAX_SACK_BLOCKS],
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
    /// window in units of 2^(its window scale) bytes, as TCP's 16-bit field carries it (the
    /// scale, RFC 7323 §2, from its `tcp_rmem`: `tcp/receive_window.rs`); 0 when
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
    /// The SACK blocks (RFC 2018), in the order the receiver put them.
    #[inline]
    pub fn sack_blocks(&self) -> SackBlocks {
        let mut decoded = SackBlocks {
            count: self.sack_count,
            ..SackBlocks::default()
        };
        for (block, stored) in decoded
            .blocks
            .iter_mut()
            .zip(&self.sack[..self.sack_count as usize])
        {
            let start = self.seq.wrapping_add_signed(stored.start_from_ack as i64);
            *block = SackBlock {
                start,
                end: start + stored.len as u64,
            };
        }
        decoded
    }

    /// Store `blocks` (at most [`MAX_SACK_BLOCKS`]) relative to `seq`, which must be set
    /// first; sets `sack_count` (entries beyond it are left as they were: nothing reads them).
    #[inline]
    pub fn set_sack_blocks(&mut self, blocks: &[SackBlock]) {
        debug_assert!(blocks.len() <= MAX_SACK_BLOCKS);
        let count = blocks.len().min(MAX_SACK_BLOCKS);
        for (stored, block) in self.sack.iter_mut().zip(&blocks[..count]) {
            let from_ack = block.start as i64 - self.seq as i64;
            debug_assert!(
                i32::try_from(from_ack).is_ok() && block.end - block.start <= u32::MAX as u64,
                "SACK block {block:?} more than 2 GiB from the cumulative ACK {}",
                self.seq
            );
            *stored = SackOffsets {
                start_from_ack: from_ack.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
                len: (block.end - block.start).min(u32::MAX as u64) as u32,
            };
        }
        self.sack_count = count as u8;
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
            sack: [SackOffsets::default(); MAX_SACK_BLOCKS],
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

    /// Blocks come back as stored, above the cumulative ACK and (a DSACK, RFC 2883 §4)
    /// below it, in order.
    #[test]
    fn sack_blocks_round_trip_relative_to_the_cumulative_ack() {
        let mut ack = Packet {
            kind: PacketKind::Ack,
            seq: 10_000_000_000,
            ..Packet::test_data(52, 0)
        };
        let blocks = [
            SackBlock {
                start: 9_999_998_552,
                end: 10_000_000_000,
            },
            SackBlock {
                start: 10_000_002_896,
                end: 10_000_004_344,
            },
        ];
        ack.set_sack_blocks(&blocks);
        assert_eq!(ack.sack_count, 2);
        assert_eq!(&ack.sack_blocks()[..], &blocks);
        assert_eq!(ack.sack_blocks().into_iter().collect::<Vec<_>>(), blocks);
        ack.set_sack_blocks(&[]);
        assert!(ack.sack_blocks().is_empty());
    }

    /// The hot path copies packets: they stay within 96 bytes (docs/performance.md), which
    /// the relative SACK blocks (8 bytes each instead of 16) leave room for the timestamp in.
    #[test]
    fn a_packet_fits_in_96_bytes() {
        assert!(
            std::mem::size_of::<Packet>() <= 96,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
}
