//! A joiner's first RTT: how its first window leaves ("Start Me Up", Islam and Welzl, ANRW
//! 2016; seed-spec §3.5). When c joins, the running members' windows shrink to their new
//! shares, so they hold more in flight than their windows and send nothing on their next
//! ACKs; each slot such an ACK frees is handed to c instead (`ack-clocked`). The aggregate in
//! flight stays what it was, so the bottleneck sees no burst. `paced` spreads c's window
//! over one RTT by a timer instead; `burst` has no hand-over at all.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::sharing::{JoinMode, PacketsPerAck};

use super::group::Group;

/// The hand-over of one joiner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handover {
    pub mode: JoinMode,
    /// The joiner's share when it joined: what it may put in flight during the hand-over.
    pub budget: u64,
    /// Bytes released so far (the joiner's window while the hand-over lasts).
    pub released: u64,
    pub start: SimTime,
    /// One RTT of the group after the join: the hand-over ends then at the latest (or at the
    /// joiner's first ACK, whichever comes first).
    pub ends_at: SimTime,
}

impl Handover {
    /// `first_segment`: one segment may leave at once (seed-spec §3.5, "our default").
    pub fn new(
        mode: JoinMode,
        budget: u64,
        now: SimTime,
        rtt: SimDuration,
        first_segment: bool,
        mss: u64,
    ) -> Self {
        let mut handover = Handover {
            mode,
            budget,
            released: 0,
            start: now,
            ends_at: now + rtt,
        };
        if first_segment || mode == JoinMode::Paced {
            handover.release(mss);
        }
        handover
    }

    /// Release `bytes` more, never beyond the budget.
    pub fn release(&mut self, bytes: u64) {
        self.released = (self.released + bytes).min(self.budget);
    }

    /// `paced`: the budget leaves in equal steps of one segment over one RTT; release what is
    /// due at `now` and return when the next segment is due (`None` once all is released).
    pub fn release_paced(&mut self, now: SimTime, mss: u64) -> Option<SimTime> {
        let segments = self.budget.div_ceil(mss).max(1);
        let rtt = self.ends_at.saturating_since(self.start);
        let step = (rtt / segments).max(SimDuration::from_nanos(1));
        let elapsed = now.saturating_since(self.start);
        let due = (elapsed.as_nanos() / step.as_nanos() + 1).min(segments);
        self.released = self.released.max((due * mss).min(self.budget));
        (due < segments).then(|| self.start + step * due)
    }

    pub fn expired(&self, now: SimTime) -> bool {
        now >= self.ends_at
    }
}

impl Group {
    /// An ACK of member `from` freed `freed` bytes while it held `excess` bytes beyond its
    /// share (measured before the ACK removed them): hand `min(freed, excess)` — at most
    /// `join_packets_per_ack` segments — to the ACK-clocked joiners, split by priority.
    pub fn release_for_joiners(&mut self, from: usize, freed: u64, excess: u64) {
        let mut bytes = freed.min(excess);
        if let PacketsPerAck::AtMost(n) = self.options.packets_per_ack {
            bytes = bytes.min(n as u64 * self.mss);
        }
        if bytes == 0 {
            return;
        }
        let joiners = |m: &super::group::Member| {
            m.active
                && m.handover
                    .is_some_and(|h| h.mode == JoinMode::AckClocked && h.released < h.budget)
        };
        let priorities: u64 = self
            .members
            .iter()
            .enumerate()
            .filter(|(i, m)| *i != from && joiners(m))
            .map(|(_, m)| m.priority as u64)
            .sum();
        if priorities == 0 {
            return;
        }
        let mut left = bytes;
        for (i, m) in self.members.iter_mut().enumerate() {
            if i == from || !joiners(m) {
                continue;
            }
            // Whole segments in proportion to priority; what rounding leaves goes to the
            // first joiner with room (seed-spec §3.5: several joiners split by priority).
            let share = (bytes * m.priority as u64 / priorities).min(left);
            if let Some(h) = m.handover.as_mut() {
                h.release(share);
                left -= share;
            }
            self.wake.push(m.flow);
        }
        if left > 0
            && let Some(h) = self
                .members
                .iter_mut()
                .enumerate()
                .filter(|(i, _)| *i != from)
                .find_map(|(_, m)| {
                    m.handover
                        .as_mut()
                        .filter(|h| h.mode == JoinMode::AckClocked && h.released < h.budget)
                })
        {
            h.release(left);
        }
    }
}
