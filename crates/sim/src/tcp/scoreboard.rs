//! The sender's scoreboard: one entry per outstanding segment, from `snd_una` up.
//!
//! Per-ACK work must not grow with the window. Every segment changes state a bounded number
//! of times (sent, SACKed, marked lost, retransmitted, acknowledged) and each change is made
//! by code that visits only the segments it changes:
//! - SACK blocks are merged into a [`RangeSet`], which reports only newly covered bytes;
//! - loss marking (RFC 6675 `IsLost`) advances a pointer that never moves back;
//! - the next retransmission is the lowest segment at or above a pointer in an ordered set of
//!   the segments waiting to be retransmitted (marked lost, not retransmitted, not SACKed),
//!   so finding it costs a logarithm of the holes, not a walk over the segments between;
//! - a lost retransmission is found from a FIFO of the retransmissions in flight;
//! - the bytes in flight are kept as counters (Linux's `packets_out`, `sacked_out`,
//!   `lost_out`, `retrans_out`), not recounted.
//!
//! Only a retransmission timeout walks the whole window, once.

use std::collections::{BTreeSet, VecDeque};

use cclab_cc::{SimDuration, SimTime};

use crate::net::fifo::Fifo;
use crate::range_set::RangeSet;
use crate::tcp::delivery_rate::SendState;
use crate::tcp::rack::sent_after;

/// FACK's horizon (Mathis & Mahdavi 1996): `scoreboard/fack.rs`.
mod fack;

const SACKED: u8 = 1;
/// Presumed lost (RFC 6675 IsLost, or all outstanding data after a timeout).
const LOST: u8 = 2;
/// A retransmission of this segment is in flight.
const RETRANSMITTED: u8 = 4;
/// Ever retransmitted: Karn's algorithm takes no RTT sample from it.
const EVER_RETRANSMITTED: u8 = 8;

/// Segments [`Scoreboard::next_retransmission`] looks at before it searches the ordered set.
const PROBED_SEGMENTS: usize = 4;

#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub len: u32,
    flags: u8,
    /// Time of the latest (re)transmission.
    pub sent_time: SimTime,
    pub send_state: SendState,
}

impl Segment {
    pub fn ever_retransmitted(&self) -> bool {
        self.flags & EVER_RETRANSMITTED != 0
    }
}

#[derive(Debug)]
pub struct Scoreboard {
    mss: u64,
    /// Sequence number of `segments[0]` (= snd_una).
    base: u64,
    /// Sequence number after the last segment (= snd_nxt).
    end: u64,
    /// In a power-of-two ring rather than a `VecDeque`: a push per segment sent and a pop per
    /// segment acknowledged wrap their index with a mask (`net/fifo.rs`).
    segments: Fifo<Segment>,
    sacked: RangeSet,
    sacked_bytes: u64,
    lost_bytes: u64,
    retransmitted_bytes: u64,
    /// Every un-SACKed segment below this is marked lost (or, under RACK, retransmitted).
    lost_up_to: u64,
    /// RACK only: the end of the highest segment marked lost above `lost_up_to` (a tail loss
    /// probe's retransmission RACK found lost), so that it is retransmitted too.
    lost_beyond: u64,
    /// RFC 6675 NextSeg() rule 1 looks from here up: a segment waiting below it is not
    /// retransmitted until something (a lost retransmission, a partial ACK, F-RTO's release)
    /// moves it back down.
    retransmit_from: u64,
    /// The start of every segment waiting to be retransmitted: marked lost, no retransmission
    /// in flight, not SACKed (Linux walks its retransmit queue from `retransmit_skb_hint`
    /// for these; a lost retransmission moves the hint back and the walk crosses every
    /// segment retransmitted since, which made recovery from a slow-start overshoot of
    /// thousands of holes quadratic here). Kept exactly in step with the flags.
    waiting: BTreeSet<u64>,
    /// Retransmissions in flight, oldest first: (seq, snd_nxt when it was sent, the sender's
    /// loss-episode number then).
    retransmissions: VecDeque<(u64, u64, u32)>,
}

impl Scoreboard {
    /// Give back the memory of empty buffers (a finished flow's: everything is acknowledged,
    /// so the segments, SACKed ranges and retransmissions are empty). Capacity only.
    pub fn release_idle_buffers(&mut self) {
        if self.segments.is_empty() {
            self.segments = Fifo::new();
        }
        if self.retransmissions.is_empty() {
            self.retransmissions = VecDeque::new();
        }
        self.sacked.release_if_empty();
    }

    pub fn new(mss: u64) -> Self {
        Scoreboard {
            mss,
            base: 0,
            end: 0,
            segments: Fifo::new(),
            sacked: RangeSet::default(),
            sacked_bytes: 0,
            lost_bytes: 0,
            retransmitted_bytes: 0,
            lost_up_to: 0,
            lost_beyond: 0,
            retransmit_from: 0,
            waiting: BTreeSet::new(),
            retransmissions: VecDeque::new(),
        }
    }

    pub fn snd_una(&self) -> u64 {
        self.base
    }

    pub fn snd_nxt(&self) -> u64 {
        self.end
    }

    /// When the segment at snd_una was last (re)transmitted; `None` with nothing outstanding.
    pub fn head_sent_time(&self) -> Option<SimTime> {
        self.segments.front().map(|segment| segment.sent_time)
    }

    /// FlightSize of RFC 5681: sent and not cumulatively acknowledged.
    pub fn outstanding(&self) -> u64 {
        self.end - self.base
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// No segment is SACKed, marked lost or being retransmitted (the counters say so, kept
    /// in step with the flags): the scoreboard of a flow between losses.
    #[inline(always)]
    pub fn is_clean(&self) -> bool {
        self.sacked_bytes | self.lost_bytes | self.retransmitted_bytes == 0
    }

    /// RFC 6675 `pipe` (Linux `tcp_packets_in_flight`): outstanding, minus what was SACKed or
    /// is presumed lost, plus retransmissions in flight.
    pub fn pipe(&self) -> u64 {
        self.outstanding() - self.sacked_bytes - self.lost_bytes + self.retransmitted_bytes
    }

    /// Segments are MSS-aligned from sequence 0 (only a flow's last one may be shorter).
    fn index(&self, seq: u64) -> usize {
        debug_assert!(
            seq >= self.base && seq < self.end,
            "{seq} outside the window"
        );
        ((seq - self.base) / self.mss) as usize
    }

    fn start_of(&self, index: usize) -> u64 {
        self.base + index as u64 * self.mss
    }

    /// A new segment `[snd_nxt, snd_nxt + len)` was sent.
    pub fn push(&mut self, len: u32, now: SimTime, send_state: SendState) {
        debug_assert!(
            self.segments
                .back()
                .is_none_or(|s| s.len as u64 == self.mss)
        );
        self.segments.push_back(Segment {
            len,
            flags: 0,
            sent_time: now,
            send_state,
        });
        self.end += len as u64;
    }

    /// Remove a segment's contribution to the counters, as it becomes SACKed. Inlined test,
    /// out-of-line work: nearly none of the segments SACKed was marked.
    #[inline]
    fn clear_loss_state(&mut self, index: usize) {
        if self.segments[index].flags & (LOST | RETRANSMITTED) != 0 {
            let mut segment = self.segments[index];
            self.clear_marks(self.start_of(index), &mut segment);
            self.segments[index].flags = segment.flags;
        }
    }

    /// Remove the marks of `segment`, at `seq`, and their contribution to the counters.
    #[cold]
    #[inline(never)]
    fn clear_marks(&mut self, seq: u64, segment: &mut Segment) {
        let len = segment.len as u64;
        if segment.flags & LOST != 0 {
            self.lost_bytes -= len;
            if segment.flags & (RETRANSMITTED | SACKED) == 0 {
                self.waiting.remove(&seq);
            }
        }
        if segment.flags & RETRANSMITTED != 0 {
            self.retransmitted_bytes -= len;
        }
        segment.flags &= !(LOST | RETRANSMITTED);
    }

    /// The cumulative ACK moved to `ack`. Calls `delivered` with the sequence number of each
    /// segment that was not SACKed before (so is delivered by this ACK).
    #[inline]
    pub fn acknowledge(&mut self, ack: u64, mut delivered: impl FnMut(u64, &Segment)) {
        debug_assert!(ack <= self.end, "ACK {ack} beyond snd_nxt {}", self.end);
        while self.base < ack {
            // Taken off the ring first and its marks cleared on the copy (nearly never
            // needed): one look at the front per segment instead of two.
            let mut segment = self
                .segments
                .pop_front()
                .expect("base < ack <= end implies an outstanding segment");
            if segment.flags & (LOST | RETRANSMITTED) != 0 {
                self.clear_marks(self.base, &mut segment);
            }
            debug_assert!(
                self.base + segment.len as u64 <= ack,
                "ACK inside a segment"
            );
            if segment.flags & SACKED != 0 {
                self.sacked_bytes -= segment.len as u64;
            } else {
                delivered(self.base, &segment);
            }
            self.base += segment.len as u64;
        }
        self.sacked.remove_below(self.base);
        self.lost_up_to = self.lost_up_to.max(self.base);
        self.retransmit_from = self.retransmit_from.max(self.base);
    }

    /// A SACK block `[start, end)` arrived. Calls `delivered` with the sequence number of each
    /// newly SACKed segment.
    #[inline]
    pub fn sack(&mut self, start: u64, end: u64, mut delivered: impl FnMut(u64, &Segment)) {
        let start = start.max(self.base);
        let end = end.min(self.end);
        if start >= end {
            return; // stale (below snd_una) or bogus (beyond snd_nxt) block
        }
        let mut newly: [(u64, u64); 4] = [(0, 0); 4];
        let mut count = 0;
        let mut overflow = Vec::new();
        self.sacked.insert(start, end, |a, b| {
            if count < newly.len() {
                newly[count] = (a, b);
                count += 1;
            } else {
                overflow.push((a, b)); // rare: a block bridging more than four old ranges
            }
        });
        for &(a, b) in newly[..count].iter().chain(overflow.iter()) {
            let mut index = self.index(a);
            while self.start_of(index) < b {
                self.clear_loss_state(index);
                let seq = self.start_of(index);
                let segment = &mut self.segments[index];
                segment.flags |= SACKED;
                self.sacked_bytes += segment.len as u64;
                delivered(seq, segment);
                index += 1;
            }
        }
    }

    /// RFC 6675 §4 IsLost: a segment is lost when more than (DupThresh − 1)·SMSS bytes above
    /// it are SACKed. Marks every such segment not marked yet; returns the bytes newly marked.
    pub fn mark_losses(&mut self, dup_thresh: u64) -> u64 {
        let needed = dup_thresh * self.mss;
        // Walk SACKed ranges from the top until `needed` bytes are counted: every un-SACKed
        // byte below that point has at least `needed` SACKed bytes above it.
        let mut counted = 0;
        let mut boundary = None;
        for (start, end) in self.sacked.iter().rev() {
            if counted + (end - start) >= needed {
                boundary = Some(end - (needed - counted));
                break;
            }
            counted += end - start;
        }
        let Some(boundary) = boundary else {
            return 0;
        };
        self.mark_lost_below(boundary)
    }

    /// Mark every un-SACKed segment wholly below `boundary` lost, walking on from
    /// `lost_up_to` (which never moves back); returns the bytes newly marked.
    fn mark_lost_below(&mut self, boundary: u64) -> u64 {
        let mut newly_lost = 0;
        while self.lost_up_to < boundary && self.lost_up_to < self.end {
            let index = self.index(self.lost_up_to);
            let segment = &mut self.segments[index];
            if self.lost_up_to + segment.len as u64 > boundary {
                break; // not wholly below the boundary
            }
            if segment.flags & (SACKED | LOST | RETRANSMITTED) == 0 {
                segment.flags |= LOST;
                self.lost_bytes += segment.len as u64;
                newly_lost += segment.len as u64;
                self.waiting.insert(self.lost_up_to);
            }
            self.lost_up_to += segment.len as u64;
        }
        newly_lost
    }

    /// Mark the segment at `snd_una` lost (Reno/NewReno fast retransmit and partial ACKs).
    pub fn mark_first_lost(&mut self) {
        if let Some(segment) = self.segments.front_mut() {
            if segment.flags & (SACKED | LOST | RETRANSMITTED) == 0 {
                segment.flags |= LOST;
                self.lost_bytes += segment.len as u64;
                self.waiting.insert(self.base);
            }
            self.lost_up_to = self.lost_up_to.max(self.base + segment.len as u64);
            self.retransmit_from = self.retransmit_from.min(self.base);
        }
    }

    /// Whether the segment at `snd_una` is marked lost.
    pub fn first_is_lost(&self) -> bool {
        self.segments.front().is_some_and(|s| s.flags & LOST != 0)
    }

    /// The first segment marked lost and not yet retransmitted at or above
    /// `retransmit_from`: (seq, len). The pointer stops there, or at the end of what is
    /// marked when there is none, as a walk over the segments would.
    #[inline]
    pub fn next_retransmission(&mut self) -> Option<(u64, u32)> {
        let limit = self.lost_up_to.max(self.lost_beyond);
        if self.retransmit_from >= limit {
            return None; // the common case, nothing marked: once per segment sent
        }
        self.search_retransmission(limit)
    }

    #[cold]
    #[inline(never)]
    fn search_retransmission(&mut self, limit: u64) -> Option<(u64, u32)> {
        // Holes are retransmitted in order (go-back-N after a timeout marks the whole window,
        // SACK recovery the run below the highest SACK): the next one is nearly always the
        // segment at the pointer or the one after (the pointer stays on the segment just
        // retransmitted). A segment's flags say whether it is in `waiting` (kept in step), so
        // looking at a few segments first finds the same one as the ordered set, without
        // its search, which costs as much as the rest of sending a segment.
        let mut seq = self.retransmit_from;
        for _ in 0..PROBED_SEGMENTS {
            if seq >= limit {
                self.retransmit_from = limit;
                return None;
            }
            if seq >= self.end {
                break;
            }
            let Segment { flags, len, .. } = self.segments[self.index(seq)];
            if flags & (LOST | RETRANSMITTED | SACKED) == LOST {
                self.retransmit_from = seq;
                return Some((seq, len));
            }
            seq += len as u64;
        }
        match self.waiting.range(seq..limit).next() {
            Some(&seq) => {
                self.retransmit_from = seq;
                Some((seq, self.segments[self.index(seq)].len))
            }
            None => {
                // Marks end on segment boundaries (lost_up_to, lost_beyond and snd_una are
                // segment ends), so a walk would have stopped exactly here.
                self.retransmit_from = limit;
                None
            }
        }
    }

    /// The segment at `seq` was retransmitted now, during loss episode `episode`.
    pub fn on_retransmit(&mut self, seq: u64, now: SimTime, send_state: SendState, episode: u32) {
        let index = self.index(seq);
        let segment = &mut self.segments[index];
        debug_assert!(segment.flags & RETRANSMITTED == 0);
        if segment.flags & (LOST | SACKED) == LOST {
            self.waiting.remove(&seq);
        }
        segment.flags |= RETRANSMITTED | EVER_RETRANSMITTED;
        segment.sent_time = now;
        segment.send_state = send_state;
        self.retransmitted_bytes += segment.len as u64;
        self.retransmissions.push_back((seq, self.end, episode));
    }

    /// Lost retransmissions: a retransmission is lost when DupThresh segments sent after it
    /// (new data above the snd_nxt of its sending) are SACKed, by the same reasoning as
    /// RFC 6675 IsLost applied in sending order (Linux did this in `tcp_mark_lost_retrans`
    /// before RACK, RFC 8985). The segment becomes due for retransmission again. Returns
    /// the bytes newly marked lost and the latest episode in which one of them was sent.
    pub fn mark_lost_retransmissions(&mut self, dup_thresh: u64) -> (u64, Option<u32>) {
        let Some(highest_sacked) = self.sacked.highest_end() else {
            return (0, None);
        };
        let mut newly_lost = 0;
        let mut latest_episode = None;
        while let Some(&(seq, sent_snd_nxt, episode)) = self.retransmissions.front() {
            if highest_sacked < sent_snd_nxt + dup_thresh * self.mss {
                break; // later ones were sent later still: none is known lost yet
            }
            self.retransmissions.pop_front();
            if seq < self.base {
                continue; // cumulatively acknowledged since
            }
            let index = self.index(seq);
            let segment = &mut self.segments[index];
            if segment.flags & (RETRANSMITTED | SACKED) == RETRANSMITTED {
                segment.flags &= !RETRANSMITTED;
                if segment.flags & LOST != 0 {
                    self.waiting.insert(seq);
                }
                self.retransmitted_bytes -= segment.len as u64;
                newly_lost += segment.len as u64;
                self.retransmit_from = self.retransmit_from.min(seq);
                latest_episode = latest_episode.max(Some(episode));
            }
        }
        (newly_lost, latest_episode)
    }

    /// RFC 8985 §6.2 step 5 `RACK_detect_loss`: every segment sent before RACK's segment
    /// (`rack_sent`, `rack_end`) and not delivered is lost once `now` is at least its
    /// transmission time plus `wait` (RACK.rtt + RACK.reo_wnd). Returns the bytes newly marked lost, the latest
    /// episode in which a retransmission among them was sent, and the earliest time at which
    /// a segment sent before RACK's will have waited long enough (for the reordering timer).
    ///
    /// Per-ACK work stays bounded as RFC 6675 marking's does: first transmissions that were
    /// never marked lost went out in sequence order, so the walk from `lost_up_to` stops at
    /// the first one sent after RACK's segment or not yet due; retransmissions are visited
    /// in the order they were sent (the `retransmissions` FIFO), which is Linux's
    /// `tsorted_sent_queue` for them.
    pub fn rack_mark_losses(
        &mut self,
        rack_sent: SimTime,
        rack_end: u64,
        wait: SimDuration,
        now: SimTime,
    ) -> (u64, Option<u32>, Option<SimTime>) {
        let mut newly_lost = 0;
        let mut latest_episode = None;
        let mut next_due: Option<SimTime> = None;
        while let Some(&(seq, _, episode)) = self.retransmissions.front() {
            if seq < self.base {
                self.retransmissions.pop_front(); // cumulatively acknowledged since
                continue;
            }
            let index = self.index(seq);
            let segment = &mut self.segments[index];
            let len = segment.len as u64;
            if segment.flags & (RETRANSMITTED | SACKED) != RETRANSMITTED {
                self.retransmissions.pop_front(); // SACKed since
                continue;
            }
            if sent_after(segment.sent_time, seq + len, rack_sent, rack_end) {
                break; // and every later retransmission
            }
            let due = segment.sent_time + wait;
            if due > now {
                next_due = Some(due);
                break;
            }
            self.retransmissions.pop_front();
            segment.flags &= !RETRANSMITTED;
            self.retransmitted_bytes -= len;
            if segment.flags & LOST == 0 {
                // A tail loss probe's retransmission of a segment never marked lost.
                segment.flags |= LOST;
                self.lost_bytes += len;
                self.lost_beyond = self.lost_beyond.max(seq + len);
            }
            self.waiting.insert(seq);
            newly_lost += len;
            self.retransmit_from = self.retransmit_from.min(seq);
            latest_episode = latest_episode.max(Some(episode));
        }
        while self.lost_up_to < self.end {
            let seq = self.lost_up_to;
            let index = self.index(seq);
            let segment = &mut self.segments[index];
            let len = segment.len as u64;
            if segment.flags & (SACKED | LOST | RETRANSMITTED) == 0 {
                if sent_after(segment.sent_time, seq + len, rack_sent, rack_end) {
                    break;
                }
                let due = segment.sent_time + wait;
                if due > now {
                    next_due = Some(next_due.map_or(due, |d| d.min(due)));
                    break;
                }
                segment.flags |= LOST;
                self.lost_bytes += len;
                newly_lost += len;
                self.waiting.insert(seq);
                self.retransmit_from = self.retransmit_from.min(seq);
            }
            self.lost_up_to += len;
        }
        (newly_lost, latest_episode, next_due)
    }

    /// The highest segment sent, for a tail loss probe to resend (RFC 8985 §7.3): (seq, len),
    /// unless it is SACKed or a retransmission of it is already in flight.
    pub fn last_resendable(&self) -> Option<(u64, u32)> {
        let segment = self.segments.back()?;
        (segment.flags & (SACKED | RETRANSMITTED) == 0)
            .then(|| (self.end - segment.len as u64, segment.len))
    }

    /// RFC 6298 §5 / RFC 5681 §3.1 after a timeout: every un-SACKed segment is presumed lost
    /// and earlier retransmissions are forgotten, so all will be sent again (as Linux's
    /// `tcp_enter_loss` does).
    pub fn on_timeout(&mut self) {
        let mut seq = self.base;
        let mut waiting = Vec::with_capacity(self.segments.len());
        for segment in self.segments.iter_mut() {
            if segment.flags & SACKED == 0 {
                segment.flags |= LOST;
                waiting.push(seq);
            }
            segment.flags &= !RETRANSMITTED;
            seq += segment.len as u64;
        }
        // In increasing order: the set is built in one pass, not by repeated insertion.
        self.waiting = BTreeSet::from_iter(waiting);
        self.lost_bytes = self.outstanding() - self.sacked_bytes;
        self.retransmitted_bytes = 0;
        self.retransmissions.clear();
        self.lost_up_to = self.end;
        self.lost_beyond = 0;
        self.retransmit_from = self.base;
    }

    /// Bytes of retransmissions in flight (Linux `retrans_out`).
    pub fn retransmitted_bytes(&self) -> u64 {
        self.retransmitted_bytes
    }

    /// F-RTO (RFC 5682 §3.1 step 2.b): send new data instead of the segments the timeout
    /// marked lost, until [`Scoreboard::release_retransmissions`]. The marks stay (they
    /// keep those segments out of the pipe); only the retransmission pointer moves past them.
    pub fn hold_retransmissions(&mut self) {
        self.retransmit_from = self.end;
    }

    /// Conventional recovery again: retransmit from `snd_una` what is marked lost.
    pub fn release_retransmissions(&mut self) {
        self.retransmit_from = self.base;
    }

    /// Linux `tcp_undo_cwnd_reduction` with `unmark_loss`: the losses were not real, so no
    /// segment stays marked lost (those not yet resent count in the pipe again), and loss
    /// marking starts over from `snd_una`.
    pub fn unmark_losses(&mut self) {
        for segment in self.segments.iter_mut() {
            segment.flags &= !LOST;
        }
        self.waiting.clear();
        self.lost_bytes = 0;
        self.lost_up_to = self.base;
        self.lost_beyond = 0;
        self.retransmit_from = self.base;
    }

    /// Debug check: the counters agree with the per-segment flags.
    pub fn check_counters(&self) {
        let sum = |flag: u8| -> u64 {
            self.segments
                .iter()
                .filter(|s| s.flags & flag != 0)
                .map(|s| s.len as u64)
                .sum()
        };
        assert_eq!(self.sacked_bytes, sum(SACKED), "sacked counter");
        assert_eq!(self.lost_bytes, sum(LOST), "lost counter");
        assert_eq!(
            self.retransmitted_bytes,
            sum(RETRANSMITTED),
            "retransmitted counter"
        );
        assert_eq!(
            self.sacked_bytes,
            self.sacked.covered_bytes(),
            "SACK ranges"
        );
        let total: u64 = self.segments.iter().map(|s| s.len as u64).sum();
        assert_eq!(total, self.outstanding(), "segments cover snd_una..snd_nxt");
        let waiting: Vec<u64> = (0..self.segments.len())
            .filter(|&i| self.segments[i].flags & (LOST | RETRANSMITTED | SACKED) == LOST)
            .map(|i| self.start_of(i))
            .collect();
        assert_eq!(
            self.waiting.iter().copied().collect::<Vec<_>>(),
            waiting,
            "segments waiting to be retransmitted"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn board_with(segments: u64) -> Scoreboard {
        let mut b = Scoreboard::new(MSS);
        for _ in 0..segments {
            b.push(MSS as u32, SimTime::ZERO, SendState::default());
        }
        b
    }

    #[test]
    fn cumulative_ack_delivers_in_order() {
        let mut b = board_with(5);
        let mut delivered = 0;
        b.acknowledge(3000, |_, s| delivered += s.len as u64);
        assert_eq!(delivered, 3000);
        assert_eq!((b.snd_una(), b.outstanding(), b.pipe()), (3000, 2000, 2000));
        b.check_counters();
    }

    #[test]
    fn sack_then_loss_marking_by_dupthresh() {
        // Segment 0 lost; 1, 2, 3 SACKed one by one. Only when 3 segments above it are
        // SACKed is segment 0 lost (RFC 6675 IsLost with DupThresh = 3).
        let mut b = board_with(6);
        let mut delivered = 0;
        b.sack(1000, 2000, |_, s| delivered += s.len as u64);
        b.sack(1000, 3000, |_, s| delivered += s.len as u64);
        assert_eq!(b.mark_losses(3), 0);
        assert!(!b.first_is_lost());
        b.sack(1000, 4000, |_, s| delivered += s.len as u64);
        assert_eq!(delivered, 3000, "each SACKed segment is delivered once");
        assert_eq!(b.mark_losses(3), 1000);
        assert!(b.first_is_lost());
        // pipe = 6000 outstanding - 3000 SACKed - 1000 lost = 2000 (segments 4 and 5).
        assert_eq!(b.pipe(), 2000);
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 0);
        assert_eq!(b.pipe(), 3000);
        assert_eq!(b.next_retransmission(), None);
        b.check_counters();
        // The retransmission arrives: cumulative ACK to 4000 delivers only segment 0.
        let mut newly = 0;
        b.acknowledge(4000, |_, s| newly += s.len as u64);
        assert_eq!(newly, 1000);
        assert_eq!((b.pipe(), b.sacked_bytes(), b.lost_bytes()), (2000, 0, 0));
        b.check_counters();
    }

    #[test]
    fn two_holes_are_both_marked() {
        // Holes at 0 and 2; SACKed: 1, 3, 4, 5.
        let mut b = board_with(7);
        b.sack(1000, 2000, |_, _| {});
        b.sack(3000, 6000, |_, _| {});
        // Boundary: 3 SACKed segments above -> everything below 3000 un-SACKed is lost.
        assert_eq!(b.mark_losses(3), 2000);
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 0);
        assert_eq!(b.next_retransmission(), Some((2000, 1000)));
        b.check_counters();
    }

    #[test]
    fn a_lost_retransmission_is_detected_by_later_sacks() {
        // Segment 0 lost, 1-3 SACKed: retransmit 0 while snd_nxt = 4000, then send 4-7.
        let mut b = board_with(4);
        b.sack(1000, 4000, |_, _| {});
        b.mark_losses(3);
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 0);
        for _ in 0..4 {
            b.push(MSS as u32, SimTime::ZERO, SendState::default());
        }
        // Two segments sent after the retransmission are SACKed: not yet conclusive.
        b.sack(4000, 6000, |_, _| {});
        assert_eq!(b.mark_lost_retransmissions(3), (0, None));
        // A third: the retransmission must have been lost too.
        b.sack(6000, 7000, |_, _| {});
        assert_eq!(b.mark_lost_retransmissions(3), (1000, Some(0)));
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        // pipe = 8000 - 6000 SACKed - 1000 lost + 0 retransmitted = 1000 (segment 7).
        assert_eq!(b.pipe(), 1000);
        b.check_counters();
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost() {
        let mut b = board_with(4);
        b.sack(2000, 3000, |_, _| {});
        b.mark_losses(3);
        b.on_timeout();
        assert_eq!((b.lost_bytes(), b.pipe()), (3000, 0));
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 0);
        assert_eq!(b.next_retransmission(), Some((1000, 1000)));
        b.on_retransmit(1000, SimTime::ZERO, SendState::default(), 0);
        assert_eq!(
            b.next_retransmission(),
            Some((3000, 1000)),
            "SACKed 2000 is skipped"
        );
        b.check_counters();
    }

    #[test]
    fn reno_marks_the_first_segment_for_fast_retransmit() {
        let mut b = board_with(3);
        b.mark_first_lost();
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 0);
        b.acknowledge(1000, |_, _| {});
        // NewReno partial ACK: retransmit the next one.
        b.mark_first_lost();
        assert_eq!(b.next_retransmission(), Some((1000, 1000)));
        b.check_counters();
    }

    /// RFC 6675 §4 NextSeg() rule 1 as a walk over the segments from `retransmit_from`
    /// (the scoreboard's search before the ordered set): the first segment marked lost, not
    /// retransmitted and not SACKed, below the end of what is marked; and where the pointer
    /// stops (there, or at that end).
    fn next_seg_by_walking(b: &Scoreboard) -> (Option<(u64, u32)>, u64) {
        let limit = b.lost_up_to.max(b.lost_beyond);
        let mut seq = b.retransmit_from;
        while seq < limit {
            let segment = &b.segments[b.index(seq)];
            if segment.flags & (LOST | RETRANSMITTED | SACKED) == LOST {
                return (Some((seq, segment.len)), seq);
            }
            seq += segment.len as u64;
        }
        (None, seq.max(b.retransmit_from))
    }

    fn next_retransmission_checked(b: &mut Scoreboard) -> Option<(u64, u32)> {
        let (expected, pointer) = next_seg_by_walking(b);
        let found = b.next_retransmission();
        assert_eq!(found, expected, "NextSeg rule 1");
        assert_eq!(b.retransmit_from, pointer, "where the search stops");
        found
    }

    /// A slow-start overshoot: every other segment of 2000 lost, all marked, retransmitted in
    /// order; then the retransmissions are lost one after another (each detected by three
    /// segments SACKed above the snd_nxt of its sending). Every hole is retransmitted again in
    /// sequence order, lowest first, as NextSeg() rule 1 picks them (RFC 6675 §4), and the
    /// segments retransmitted in between are skipped.
    #[test]
    fn lost_retransmissions_are_resent_lowest_first() {
        let mut b = board_with(2000);
        for k in 0..1000 {
            b.sack((2 * k + 1) * MSS, (2 * k + 2) * MSS, |_, _| {});
        }
        // The two highest holes (1996, 1998) have fewer than three SACKed segments above them:
        // not lost yet (IsLost, DupThresh = 3).
        assert_eq!(b.mark_losses(3), 998 * MSS);
        for k in 0..998 {
            assert_eq!(
                next_retransmission_checked(&mut b),
                Some((2 * k * MSS, MSS as u32))
            );
            b.on_retransmit(2 * k * MSS, SimTime::ZERO, SendState::default(), 1);
        }
        assert_eq!(next_retransmission_checked(&mut b), None);
        b.check_counters();
        // New data above snd_nxt, SACKed three at a time: the retransmissions, all sent at
        // snd_nxt = 2_000_000, are lost together.
        for _ in 0..3 {
            b.push(MSS as u32, SimTime::ZERO, SendState::default());
        }
        b.sack(2000 * MSS, 2003 * MSS, |_, _| {});
        assert_eq!(b.mark_lost_retransmissions(3), (998 * MSS, Some(1)));
        for k in 0..998 {
            assert_eq!(
                next_retransmission_checked(&mut b),
                Some((2 * k * MSS, MSS as u32))
            );
            b.on_retransmit(2 * k * MSS, SimTime::ZERO, SendState::default(), 2);
        }
        b.check_counters();
    }

    #[derive(Clone, Debug)]
    enum Op {
        Push(u8),
        Acknowledge(u8),
        Sack(u8, u8),
        MarkLosses,
        MarkLossesBelowFack,
        MarkFirstLost,
        Retransmit,
        ProbeLast,
        LostRetransmissions,
        Rack(u8, u8),
        Timeout,
        Hold,
        Release,
        Unmark,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u8..8).prop_map(Op::Push),
            (0u8..6).prop_map(Op::Acknowledge),
            (0u8..40, 1u8..5).prop_map(|(a, n)| Op::Sack(a, n)),
            Just(Op::MarkLosses),
            Just(Op::MarkLossesBelowFack),
            Just(Op::MarkFirstLost),
            Just(Op::Retransmit),
            Just(Op::Retransmit),
            Just(Op::ProbeLast),
            Just(Op::LostRetransmissions),
            (0u8..40, 0u8..10).prop_map(|(s, w)| Op::Rack(s, w)),
            Just(Op::Timeout),
            Just(Op::Hold),
            Just(Op::Release),
            Just(Op::Unmark),
        ]
    }

    use proptest::prelude::*;

    proptest! {
        /// Whatever the order of marks, SACKs, retransmissions, timeouts and F-RTO's hold and
        /// release, the next retransmission is the one the walk over the segments finds, and
        /// the set of waiting segments agrees with the flags (`check_counters`).
        #[test]
        fn next_retransmission_matches_the_walk(ops in prop::collection::vec(op(), 1..120)) {
            let mut b = board_with(10);
            let mut now = 0u64;
            for op in ops {
                now += 1;
                let t = SimTime::from_nanos(now);
                match op {
                    Op::Push(n) => {
                        for _ in 0..n {
                            b.push(MSS as u32, t, SendState::default());
                        }
                    }
                    Op::Acknowledge(n) => {
                        let ack = (b.snd_una() + n as u64 * MSS).min(b.snd_nxt());
                        b.acknowledge(ack, |_, _| {});
                    }
                    Op::Sack(a, n) => {
                        let start = b.snd_una() + a as u64 * MSS;
                        b.sack(start, start + n as u64 * MSS, |_, _| {});
                    }
                    Op::MarkLosses => {
                        b.mark_losses(3);
                    }
                    Op::MarkLossesBelowFack => {
                        b.mark_losses_below_fack(3);
                    }
                    Op::MarkFirstLost => b.mark_first_lost(),
                    Op::Retransmit => {
                        if let Some((seq, _)) = next_retransmission_checked(&mut b) {
                            b.on_retransmit(seq, t, SendState::default(), now as u32);
                        }
                    }
                    Op::ProbeLast => {
                        if let Some((seq, _)) = b.last_resendable() {
                            b.on_retransmit(seq, t, SendState::default(), now as u32);
                        }
                    }
                    Op::LostRetransmissions => {
                        b.mark_lost_retransmissions(3);
                    }
                    Op::Rack(s, w) => {
                        // RACK's segment: one sent `s` ops ago, ending at a segment boundary.
                        let sent = SimTime::from_nanos(now.saturating_sub(s as u64));
                        let end = b.snd_una() + (s as u64 + 1) * MSS;
                        b.rack_mark_losses(sent, end, SimDuration::from_nanos(w as u64), t);
                    }
                    Op::Timeout => b.on_timeout(),
                    Op::Hold => b.hold_retransmissions(),
                    Op::Release => b.release_retransmissions(),
                    Op::Unmark => b.unmark_losses(),
                }
                b.check_counters();
                next_retransmission_checked(&mut b);
            }
        }
    }

    #[test]
    fn stale_and_bogus_blocks_are_ignored() {
        let mut b = board_with(3);
        b.acknowledge(1000, |_, _| {});
        let mut calls = 0;
        b.sack(0, 1000, |_, _| calls += 1);
        b.sack(5000, 6000, |_, _| calls += 1);
        assert_eq!(calls, 0);
        b.check_counters();
    }
}
