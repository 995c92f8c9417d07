//! The TCP receiver: reassembly, cumulative ACKs with SACK blocks (RFC 2018) and, when asked
//! for, DSACK blocks (RFC 2883), delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2) with
//! Linux's quick-ACKs at connection start, the FIN that closes a connection with a
//! handshake (`handshake.rs`), and an advertised window tuned by dynamic right-sizing
//! (`receive_window.rs`).
//!
//! The application reads in order: `rcv_nxt` is exactly the number of bytes delivered to it,
//! and each byte is delivered once, when `rcv_nxt` passes it.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{ScalingRatio, TcpRmem};

use crate::packet::{
    Ecn, LoadFactor, MAX_SACK_BLOCKS, Packet, PacketKind, SackBlock, SackOffsets, XcpHeader,
    sack_option_bytes,
};
use crate::range_set::RangeSet;
use crate::tcp::receive_window::ReceiveWindow;

/// Linux `TCP_MAX_QUICKACKS` (include/net/tcp.h).
pub const MAX_QUICK_ACKS: u32 = 16;

/// The quick-ACKs Linux's receiver grants at its first data segment (`tcp_incr_quickack`
/// called from `tcp_event_data_recv`): rcv_wnd / (2 × rcv_mss), 2 if that is 0, at most
/// [`MAX_QUICK_ACKS`].
pub fn quick_acks(receive_window: u64, mss: u64) -> u32 {
    let quick = receive_window / (2 * mss);
    let quick = if quick == 0 { 2 } else { quick };
    quick.min(MAX_QUICK_ACKS as u64) as u32
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub flow: u32,
    pub header_bytes: u64,
    pub sack: bool,
    /// Report duplicate segments in a DSACK block (RFC 2883); only with `sack`.
    pub dsack: bool,
    /// `Some(timeout)`: ACK every second segment or when the timer expires.
    pub delayed_ack: Option<SimDuration>,
    /// Bytes the application expects; completion is recorded when all have arrived.
    pub size: Option<u64>,
    /// The last byte carries the sender's FIN (`handshake = true`): once it is in order the
    /// receiver closes too and ACKs at once with its own FIN.
    pub fin: bool,
    /// Segments to ACK at once before delayed ACKs start ([`quick_acks`]; 0: none).
    pub quick_acks: u32,
    /// `receive_window = "auto"`: advertise a window tuned by dynamic right-sizing for
    /// segments of this MSS; `None`: advertise none.
    pub auto_window_mss: Option<u64>,
    /// The auto-tuned window's buffer sizes (`tcp_rmem`).
    pub tcp_rmem: TcpRmem,
    /// The receiving host's payload per 256 bytes of packet memory (`scaling_ratio`).
    pub scaling_ratio: ScalingRatio,
}

pub struct Receiver {
    config: ReceiverConfig,
    rcv_nxt: u64,
    out_of_order: RangeSet,
    /// SACK blocks in the order RFC 2018 §4 wants them reported: the block holding the most
    /// recently received segment first, then the most recently reported others.
    recent_blocks: [SackBlock; MAX_SACK_BLOCKS],
    recent_count: usize,
    segments_unacked: u32,
    delayed_ack_deadline: Option<SimTime>,
    /// Bytes received again after having been received (spurious retransmissions).
    pub duplicate_bytes: u64,
    pub completed_at: Option<SimTime>,
    pub acks_sent: u64,
    /// Payload bytes that arrived CE-marked, echoed in every ACK.
    pub ce_bytes: u64,
    /// XCP (Katabi et al. 2002 §3.2): the feedback of the data segments since the last ACK,
    /// summed, for the next ACK to echo; `None` when none carried a header.
    xcp_feedback: Option<f32>,
    /// VCP (Xia et al. 2005 §3): the highest load factor of the data segments since the last
    /// ACK, for it to echo.
    vcp_load: Option<LoadFactor>,
    /// Quick-ACKs left: every ACK sent uses one (Linux `tcp_dec_quickack_mode`).
    quick_acks_left: u32,
    /// What an ACK is: `Fin` once the sender's FIN arrived (the receiver has closed).
    ack_kind: PacketKind,
    /// Dynamic right-sizing, with `receive_window = "auto"`.
    window: Option<Box<ReceiveWindow>>,
    /// RFC 7323 §4.3 TS.Recent, echoed as every ACK's TSecr (0 until a stamped segment
    /// came), and Last.ACK.sent, the cumulative ACK of the latest ACK sent.
    ts_recent: u32,
    last_ack_sent: u64,
}

impl Receiver {
    pub fn new(config: ReceiverConfig) -> Self {
        Receiver {
            rcv_nxt: 0,
            out_of_order: RangeSet::default(),
            recent_blocks: [SackBlock::default(); MAX_SACK_BLOCKS],
            recent_count: 0,
            segments_unacked: 0,
            delayed_ack_deadline: None,
            duplicate_bytes: 0,
            completed_at: None,
            acks_sent: 0,
            ce_bytes: 0,
            xcp_feedback: None,
            vcp_load: None,
            quick_acks_left: config.quick_acks,
            ack_kind: PacketKind::Ack,
            window: config.auto_window_mss.map(|mss| {
                Box::new(ReceiveWindow::new(
                    mss,
                    config.tcp_rmem,
                    config.scaling_ratio,
                ))
            }),
            config,
            ts_recent: 0,
            last_ack_sent: 0,
        }
    }

    /// Give back the out-of-order buffer's memory if it is empty (a finished flow's).
    pub fn release_idle_buffers(&mut self) {
        self.out_of_order.release_if_empty();
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn delayed_ack_deadline(&self) -> Option<SimTime> {
        self.delayed_ack_deadline
    }

    /// A data segment arrived; returns the ACK to send now, if any.
    ///
    /// Nearly every segment is the plain next one: in order, nothing out of order held, no
    /// CE mark, XCP or VCP header or timestamp, no tuned window, not the last byte of the
    /// flow. That one is taken here; every other goes to [`Receiver::on_any_data`], out of
    /// line, whose branches such a segment would pass by (so both give the same). Split so
    /// that the common segment does not pay for the registers and frame the rest needs.
    /// Inlined into the simulator's forwarding (`Simulation::forward`), which then builds
    /// the common segment's ACK in place: −0.4 to −1.0 % of the instructions per packet
    /// (docs/performance.md, the endpoints' fifth pass).
    #[inline]
    pub fn on_data(&mut self, now: SimTime, data: &Packet) -> Option<Packet> {
        debug_assert_eq!(data.kind, PacketKind::Data);
        let start = data.seq;
        let end = start + data.payload as u64;
        let plain = data.ecn != Ecn::Ce
            && !data.xcp.is_present()
            && data.vcp.is_none()
            && data.ts == 0
            && self.window.is_none();
        if !(plain
            && start == self.rcv_nxt
            && end > start
            && self.out_of_order.is_empty()
            && (self.completed_at.is_some() || self.config.size.is_none_or(|size| end < size)))
        {
            return self.on_any_data(now, data);
        }
        self.rcv_nxt = end;
        self.ack_or_delay(now, false)
    }

    #[inline(never)]
    fn on_any_data(&mut self, now: SimTime, data: &Packet) -> Option<Packet> {
        let start = data.seq;
        let end = start + data.payload as u64;
        if data.ecn == Ecn::Ce {
            // Accurate ECN counts every CE-marked byte received, duplicates included.
            self.ce_bytes += data.payload as u64;
        }
        if data.xcp.is_present() {
            // The receiver copies H_feedback into its ACK (§3.2); one ACK for two segments
            // carries both segments' feedback, so the sender's window moves by their sum.
            *self.xcp_feedback.get_or_insert(0.0) += data.xcp.feedback_bytes;
        }
        if data.vcp.is_some() {
            self.vcp_load = self.vcp_load.max(data.vcp);
        }
        if data.ts != 0 {
            self.update_ts_recent(data);
        }
        // Every out-of-order range starts above rcv_nxt (a range reaching it is popped), so
        // only a segment starting above rcv_nxt can lie inside one: in-order data skips the
        // search.
        if end <= self.rcv_nxt
            || (start > self.rcv_nxt
                && self
                    .out_of_order
                    .containing(start)
                    .is_some_and(|(_, e)| e >= end))
        {
            // Already have it: ACK at once so the sender learns (RFC 5681 §4.2).
            self.duplicate_bytes += data.payload as u64;
            if self.config.dsack {
                return Some(self.make_dsack_ack(SackBlock { start, end }));
            }
            return Some(self.make_ack());
        }
        if start > self.rcv_nxt {
            // Out of order: keep it and send an immediate duplicate ACK (RFC 5681 §4.2).
            let block = self.out_of_order.insert(start, end, |_, _| {});
            self.remember_block(SackBlock {
                start: block.0,
                end: block.1,
            });
            if let Some(window) = self.window.as_deref_mut() {
                let ooo_end = self.out_of_order.highest_end().unwrap_or(end);
                let full = data.payload as u64 >= window.mss();
                if window.on_out_of_order(self.rcv_nxt, ooo_end, full) {
                    self.quick_ack_on_window_growth();
                }
            }
            return Some(self.make_ack());
        }
        debug_assert_eq!(start, self.rcv_nxt, "segments are aligned");
        self.rcv_nxt = end;
        let filled_hole = !self.out_of_order.is_empty();
        while let Some((_, range_end)) = self.out_of_order.pop_if_starts_at(self.rcv_nxt) {
            self.rcv_nxt = self.rcv_nxt.max(range_end);
        }
        if let Some(window) = self.window.as_deref_mut() {
            window.measure_rcv_mss(data.payload as u64);
            if window.on_in_order(now, self.rcv_nxt, data.payload as u64 >= window.mss()) {
                self.quick_ack_on_window_growth();
            }
        }
        if self.completed_at.is_none() && self.config.size.is_some_and(|size| self.rcv_nxt >= size)
        {
            self.completed_at = Some(now);
            if self.config.fin {
                return Some(self.close());
            }
        }
        self.ack_or_delay(now, filled_hole)
    }

    /// An in-order segment was taken: ACK now, or arm the delayed-ACK timer.
    #[inline(always)]
    fn ack_or_delay(&mut self, now: SimTime, filled_hole: bool) -> Option<Packet> {
        self.segments_unacked += 1;
        match self.config.delayed_ack {
            // RFC 5681 §4.2: ACK at once when a segment fills a hole; otherwise at least
            // every second full-sized segment, or when the delayed-ACK timer expires. Linux
            // ACKs its first segments at once (quick-ACK mode, `__tcp_ack_snd_check`).
            Some(timeout)
                if !filled_hole && self.segments_unacked < 2 && self.quick_acks_left == 0 =>
            {
                if self.delayed_ack_deadline.is_none() {
                    self.delayed_ack_deadline = Some(now + timeout);
                }
                None
            }
            _ => Some(self.make_ack()),
        }
    }

    /// Linux `tcp_grow_window` ends with `inet_csk(sk)->icsk_ack.quick |= 1` whenever it
    /// raises `rcv_ssthresh`: the segment that opened the window further is ACKed at once
    /// (`__tcp_ack_snd_check`: `tcp_in_quickack_mode`), so while the auto-tuned window grows,
    /// as through slow start, every full segment is ACKed, not every second one. (An even
    /// count left from connection start becomes odd and the ACK takes it back, so those
    /// quick-ACKs wait until the window stops growing.) With `quick_ack` only: it is one of
    /// Linux's quick-ACK rules.
    fn quick_ack_on_window_growth(&mut self) {
        if self.config.quick_acks > 0 {
            self.quick_acks_left |= 1;
        }
    }

    /// The sender's FIN arrived in order: the application reads the end of the stream and
    /// closes, and the receiver's FIN carries the ACK of every byte at once (Linux enters
    /// pingpong mode on a FIN, `tcp_fin`, so that its ACK leaves with the FIN of the
    /// application's close).
    #[cold]
    #[inline(never)]
    fn close(&mut self) -> Packet {
        self.ack_kind = PacketKind::Fin;
        self.make_ack()
    }

    /// RFC 7323 §4.3 (2): "If SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent, then
    /// SEG.TSval is copied to TS.Recent": the echo is the timestamp of the segment that
    /// advanced (or would advance) the left edge, so an ACK of a hole filled by the
    /// delayed original echoes the original's time, not the retransmission's (RFC 3522).
    #[cold]
    fn update_ts_recent(&mut self, data: &Packet) {
        // Timestamps compare modulo 2^32 (RFC 7323 §5.2).
        let not_older = data.ts.wrapping_sub(self.ts_recent) as i32 >= 0 || self.ts_recent == 0;
        if not_older && data.seq <= self.last_ack_sent {
            self.ts_recent = data.ts;
        }
    }

    /// The delayed-ACK timer expired.
    pub fn on_delayed_ack_timer(&mut self) -> Option<Packet> {
        self.delayed_ack_deadline = None;
        (self.segments_unacked > 0).then(|| self.make_ack())
    }

    /// Put `block` first and keep earlier blocks that are still distinct and above rcv_nxt.
    fn remember_block(&mut self, block: SackBlock) {
        let mut blocks = [SackBlock::default(); MAX_SACK_BLOCKS];
        blocks[0] = block;
        let mut count = 1;
        for old in &self.recent_blocks[..self.recent_count] {
            if count == MAX_SACK_BLOCKS {
                break;
            }
            // The range holding the old block may have grown or merged into the new one.
            if let Some((s, e)) = self.out_of_order.containing(old.start) {
                let current = SackBlock { start: s, end: e };
                if !blocks[..count].contains(&current) {
                    blocks[count] = current;
                    count += 1;
                }
            }
        }
        self.recent_blocks = blocks;
        self.recent_count = count;
    }

    /// RFC 2883 §4: an ACK for a duplicate segment reports it in the first SACK block (below
    /// the cumulative ACK, or inside the second block when it lies above it), followed by
    /// the usual blocks as room allows.
    #[cold]
    fn make_dsack_ack(&mut self, duplicate: SackBlock) -> Packet {
        let mut ack = self.make_ack();
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        sack[0] = duplicate;
        let count = 1 + (ack.sack_count as usize).min(MAX_SACK_BLOCKS - 1);
        sack[1..count].copy_from_slice(&ack.sack_blocks()[..count - 1]);
        ack.set_sack_blocks(&sack[..count]);
        ack.wire_bytes = self.config.header_bytes as u32 + sack_option_bytes(count);
        ack
    }

    /// Inlined into its callers so that the ACK is built in place of their return value
    /// instead of in its own frame and copied out (96 bytes, once per ACK).
    #[inline(always)]
    fn make_ack(&mut self) -> Packet {
        self.last_ack_sent = self.rcv_nxt;
        self.segments_unacked = 0;
        self.delayed_ack_deadline = None;
        self.acks_sent += 1;
        self.quick_acks_left = self.quick_acks_left.saturating_sub(1);
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut count = 0;
        // Nothing to filter without blocks (in-order data, nearly every ACK): only the first
        // `recent_count` entries are ever read, so the stale rest need not be cleared.
        if self.config.sack && self.recent_count > 0 {
            for block in &self.recent_blocks[..self.recent_count] {
                if block.start >= self.rcv_nxt {
                    sack[count] = *block;
                    count += 1;
                }
            }
            self.recent_blocks = sack;
            self.recent_count = count;
        }
        let mut ack = Packet {
            flow: self.config.flow,
            hop: 0,
            kind: self.ack_kind,
            retransmission: false,
            sack_count: 0,
            wire_bytes: self.config.header_bytes as u32 + sack_option_bytes(count),
            payload: 0,
            seq: self.rcv_nxt,
            sack: [SackOffsets::default(); MAX_SACK_BLOCKS],
            // Pure ACKs are not ECN-capable (RFC 3168 §6.1.4).
            ecn: Ecn::NotEct,
            ce_bytes: self.ce_bytes,
            xcp: self
                .xcp_feedback
                .take()
                .map_or(XcpHeader::default(), |feedback_bytes| XcpHeader {
                    // Marks the echo as present; the sender reads only the feedback.
                    cwnd_bytes: 1,
                    rtt_us: 0,
                    feedback_bytes,
                }),
            vcp: self.vcp_load.take(),
            window: self.window.as_deref().map_or(0, ReceiveWindow::scaled),
            ts: self.ts_recent,
        };
        if count > 0 {
            ack.set_sack_blocks(&sack[..count]);
        }
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver(delayed: bool) -> Receiver {
        Receiver::new(ReceiverConfig {
            flow: 0,
            header_bytes: 52,
            sack: true,
            dsack: false,
            delayed_ack: delayed.then(|| SimDuration::from_millis(40)),
            size: Some(10_000),
            fin: false,
            quick_acks: 0,
            auto_window_mss: None,
            tcp_rmem: TcpRmem::default(),
            scaling_ratio: ScalingRatio::default(),
        })
    }

    fn data(seq: u64) -> Packet {
        Packet {
            flow: 0,
            hop: 0,
            kind: PacketKind::Data,
            retransmission: false,
            sack_count: 0,
            wire_bytes: 1052,
            payload: 1000,
            seq,
            sack: [SackOffsets::default(); 3],
            ecn: Ecn::NotEct,
            ce_bytes: 0,
            xcp: XcpHeader::default(),
            vcp: None,
            window: 0,
            ts: 0,
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// `on_data` takes the plain next segment itself and hands every other to
    /// `on_any_data`: fed the same segments (in order, reordered, duplicated, CE-marked,
    /// stamped, the flow's last), a receiver that takes every segment through `on_any_data`
    /// answers the same ACKs and ends in the same state, with and without delayed ACKs,
    /// quick-ACKs, a size and a FIN.
    #[test]
    fn the_plain_segments_path_answers_as_the_full_one() {
        let mut rng = crate::rng::Rng::for_component(3, "receiver-paths");
        for (delayed, quick_acks, size, fin) in [
            (true, 0, Some(60_000), false),
            (false, 0, None, false),
            (true, 4, Some(40_000), true),
            (true, 2, None, false),
        ] {
            let config = ReceiverConfig {
                delayed_ack: delayed.then(|| SimDuration::from_millis(40)),
                size,
                fin,
                quick_acks,
                ..receiver(delayed).config
            };
            let (mut plain, mut full) = (Receiver::new(config.clone()), Receiver::new(config));
            for i in 0..400u64 {
                // Mostly the next segment; sometimes one further on (a hole, filled later by
                // the next one), or one already received. None beyond the flow's size.
                let next = plain.delivered();
                let seq = match rng.below(10) {
                    0 => next + 1000 * (1 + rng.below(4)),
                    1 => next.saturating_sub(1000 * rng.below(3)),
                    _ => next,
                };
                let seq = size.map_or(seq, |size| seq.min(size - 1000));
                let mut segment = data(seq);
                if rng.below(20) == 0 {
                    segment.ecn = Ecn::Ce;
                }
                if rng.below(25) == 0 {
                    segment.ts = 1 + i as u32;
                }
                let now = at(i);
                assert_eq!(
                    plain.on_data(now, &segment),
                    full.on_any_data(now, &segment),
                    "segment {i} at {seq}"
                );
                if rng.below(15) == 0 {
                    assert_eq!(plain.on_delayed_ack_timer(), full.on_delayed_ack_timer());
                }
                assert_eq!(
                    (
                        plain.delivered(),
                        plain.delayed_ack_deadline(),
                        plain.completed_at
                    ),
                    (
                        full.delivered(),
                        full.delayed_ack_deadline(),
                        full.completed_at
                    )
                );
                assert_eq!(
                    (plain.acks_sent, plain.duplicate_bytes, plain.ce_bytes),
                    (full.acks_sent, full.duplicate_bytes, full.ce_bytes)
                );
            }
            assert_eq!(
                plain.delivered(),
                size.unwrap_or(plain.delivered().max(200_000)),
                "the test delivered the whole flow (or 200 segments of an endless one)"
            );
        }
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut r = receiver(true);
        assert!(r.on_data(at(0), &data(0)).is_none());
        assert_eq!(r.delayed_ack_deadline(), Some(at(40)));
        let ack = r
            .on_data(at(1), &data(1000))
            .expect("second segment is ACKed");
        assert_eq!((ack.seq, ack.wire_bytes), (2000, 52));
        assert!(r.on_data(at(2), &data(2000)).is_none());
        let ack = r
            .on_delayed_ack_timer()
            .expect("timer ACKs the pending segment");
        assert_eq!(ack.seq, 3000);
        assert!(r.on_delayed_ack_timer().is_none());
    }

    #[test]
    fn out_of_order_gets_immediate_ack_with_sack_blocks() {
        let mut r = receiver(true);
        r.on_data(at(0), &data(0));
        let ack = r.on_data(at(1), &data(2000)).unwrap();
        assert_eq!(ack.seq, 1000);
        assert_eq!(
            &ack.sack_blocks()[..],
            &[SackBlock {
                start: 2000,
                end: 3000
            }]
        );
        // 2 + 8 bytes of SACK option.
        assert_eq!(ack.wire_bytes, 62);
        let ack = r.on_data(at(2), &data(4000)).unwrap();
        assert_eq!(
            &ack.sack_blocks()[..],
            &[
                SackBlock {
                    start: 4000,
                    end: 5000
                },
                SackBlock {
                    start: 2000,
                    end: 3000
                }
            ]
        );
        let ack = r.on_data(at(3), &data(3000)).unwrap();
        assert_eq!(
            &ack.sack_blocks()[..],
            &[SackBlock {
                start: 2000,
                end: 5000
            }]
        );
        // Filling the hole is ACKed at once and clears the blocks.
        let ack = r.on_data(at(4), &data(1000)).unwrap();
        assert_eq!((ack.seq, ack.sack_count), (5000, 0));
        assert_eq!(r.delivered(), 5000);
    }

    #[test]
    fn duplicates_are_counted_and_acked() {
        let mut r = receiver(false);
        r.on_data(at(0), &data(0));
        let ack = r.on_data(at(1), &data(0)).unwrap();
        assert_eq!(ack.seq, 1000);
        assert_eq!(r.duplicate_bytes, 1000);
        assert_eq!(r.delivered(), 1000);
    }

    #[test]
    fn duplicates_are_reported_in_a_dsack_block_first() {
        let mut r = receiver(false);
        r.config.dsack = true;
        r.on_data(at(0), &data(0));
        // RFC 2883 §4.1 example: a duplicate below the cumulative ACK is reported alone.
        let ack = r.on_data(at(1), &data(0)).unwrap();
        assert_eq!(ack.seq, 1000);
        assert_eq!(
            &ack.sack_blocks()[..],
            &[SackBlock {
                start: 0,
                end: 1000
            }]
        );
        assert_eq!(ack.wire_bytes, 52 + 10, "2 + 8 bytes of SACK option");
        // A duplicate above it (§4.2): the DSACK block, then the block that holds it.
        r.on_data(at(2), &data(2000));
        let ack = r.on_data(at(3), &data(2000)).unwrap();
        assert_eq!(
            &ack.sack_blocks()[..],
            &[
                SackBlock {
                    start: 2000,
                    end: 3000
                },
                SackBlock {
                    start: 2000,
                    end: 3000
                }
            ]
        );
        // The next ACK carries no DSACK block.
        let ack = r.on_data(at(4), &data(4000)).unwrap();
        assert_eq!(
            ack.sack_blocks()[0],
            SackBlock {
                start: 4000,
                end: 5000
            }
        );
    }

    #[test]
    fn ce_marked_bytes_are_counted_and_echoed_in_every_ack() {
        let mut r = receiver(false);
        let mut marked = data(0);
        marked.ecn = Ecn::Ce;
        assert_eq!(r.on_data(at(0), &marked).unwrap().ce_bytes, 1000);
        assert_eq!(r.on_data(at(1), &data(1000)).unwrap().ce_bytes, 1000);
        marked.seq = 2000;
        let ack = r.on_data(at(2), &marked).unwrap();
        assert_eq!((ack.ce_bytes, ack.ecn), (2000, Ecn::NotEct));
    }

    #[test]
    fn quick_acks_then_every_second_segment() {
        // Linux: 65 160 / (2 × 1448) = 22, capped at TCP_MAX_QUICKACKS = 16; a window of
        // one segment still gets 2 (`tcp_incr_quickack`: 0 becomes 2).
        assert_eq!(quick_acks(65_160, 1448), 16);
        assert_eq!(quick_acks(10 * 1448, 1448), 5);
        assert_eq!(quick_acks(1448, 1448), 2);
        let mut r = receiver(true);
        r.config.size = None;
        r.quick_acks_left = 16;
        let acked: Vec<bool> = (0..24)
            .map(|i| r.on_data(at(i), &data(i * 1000)).is_some())
            .collect();
        // The first 16 segments one by one, then every second one.
        assert!(acked[..16].iter().all(|&a| a));
        let later: Vec<bool> = (0..8).map(|i| i % 2 == 1).collect();
        assert_eq!(acked[16..], later[..]);
        assert_eq!(r.acks_sent, 16 + 4);
    }

    /// An auto-tuned receiver whose window starts at 65 000 bytes (the SYN window in whole
    /// 1000-byte segments) below a clamp of 131 072 (a 262 144-byte buffer at the ratio of
    /// one half), with `quick_acks` quick-ACKs left from connection start.
    fn growing(quick_acks: u32) -> Receiver {
        let mut r = receiver(true);
        r.config.size = None;
        r.config.quick_acks = quick_acks;
        r.quick_acks_left = quick_acks;
        r.window = Some(Box::new(ReceiveWindow::new(
            1000,
            TcpRmem {
                min: 4096,
                default: 262_144,
                max: 262_144,
            },
            ScalingRatio::default(),
        )));
        r
    }

    #[test]
    fn every_segment_that_grows_the_window_is_acked_at_once_with_quick_ack() {
        // Linux tcp_grow_window: `rcv_ssthresh += min(room, incr); icsk_ack.quick |= 1`, and
        // __tcp_ack_snd_check ACKs at once in quick-ACK mode. The window grows by two
        // segments per segment: 65 000 + 2000·k reaches the clamp of 131 072 at the 34th
        // segment (k = 34, the last step short), so segments 0..=33 each grow it. With two
        // quick-ACKs left from the start, each of those ACKs turns quick = 2 into 3 and back
        // into 2; then the two are used (segments 34 and 35) and every second segment is
        // ACKed.
        let mut r = growing(2);
        let acked: Vec<bool> = (0..40)
            .map(|i| r.on_data(at(i), &data(i * 1000)).is_some())
            .collect();
        assert_eq!(
            r.window.as_deref().map(ReceiveWindow::window),
            Some(131_072)
        );
        assert!(acked[..36].iter().all(|&a| a), "{acked:?}");
        assert_eq!(acked[36..], [false, true, false, true]);
        // Without quick-ACKs (quick_ack = false) the same growth leaves every second segment.
        let mut r = growing(0);
        let acked: Vec<bool> = (0..40)
            .map(|i| r.on_data(at(i), &data(i * 1000)).is_some())
            .collect();
        assert!(
            acked.iter().enumerate().all(|(i, &a)| a == (i % 2 == 1)),
            "{acked:?}"
        );
    }

    #[test]
    fn the_fin_is_answered_at_once_and_again_for_a_duplicate() {
        let mut r = receiver(true);
        r.config.fin = true;
        for i in 0..9 {
            let ack = r.on_data(at(i), &data(i * 1000));
            assert!(ack.is_none_or(|a| a.kind == PacketKind::Ack));
        }
        // The tenth segment completes the 10 000 bytes and carries the FIN: not delayed.
        let fin = r
            .on_data(at(9), &data(9000))
            .expect("the FIN is ACKed at once");
        assert_eq!((fin.kind, fin.seq), (PacketKind::Fin, 10_000));
        // A retransmission of the last segment (the sender's FIN lost its answer) gets it
        // again.
        let again = r.on_data(at(10), &data(9000)).unwrap();
        assert_eq!(again.kind, PacketKind::Fin);
    }

    #[test]
    fn an_auto_tuned_receiver_advertises_its_window_scaled() {
        let mut r = receiver(false);
        r.window = Some(Box::new(ReceiveWindow::new(
            1000,
            TcpRmem::default(),
            ScalingRatio::default(),
        )));
        // 65 535 rounded down to 65 000 (whole 1000-byte segments), then two segments more
        // after this one, but at most the clamp, half the 131 072-byte buffer: 65 536
        // bytes, 512 units of 128 bytes (RFC 7323, shift 7).
        let ack = r.on_data(at(0), &data(0)).unwrap();
        assert_eq!(ack.window, 512);
        // Without auto-tuning no window is advertised.
        let ack = receiver(false).on_data(at(0), &data(0)).unwrap();
        assert_eq!(ack.window, 0);
    }

    #[test]
    fn completion_time_when_the_last_byte_arrives() {
        let mut r = receiver(false);
        for i in 0..10 {
            r.on_data(at(i), &data(i * 1000));
        }
        assert_eq!(r.completed_at, Some(at(9)));
    }
}
