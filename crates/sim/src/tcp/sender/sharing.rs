//! The sender's side of TCB sharing (docs/sharing.md): joining and leaving its group, taking
//! its share of the aggregate window before it acts, reporting its controller's change
//! after an ACK or a timeout, the joiner's hand-over window, and temporal sharing's cache.
//! Every hook is out of line and behind `Sender::sharing`, `None` for a flow that shares
//! nothing, so the common sender pays one branch per hook and nothing else.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::sharing::{JoinMode, SharingMode, TimeoutRule};

use crate::packet::Packet;
use crate::sharing::{CachedTcb, Change, GroupHandle, Handover};

use super::Sender;

/// A hand-over lasts one RTT of the group; before any member has a sample, RFC 6298 §2.1's
/// initial RTO of 1 s stands in for it.
const RTT_BEFORE_ANY_SAMPLE: SimDuration = SimDuration::from_secs(1);

/// A member's link to its group.
#[derive(Debug)]
pub(crate) struct SenderSharing {
    group: GroupHandle,
    slot: usize,
    /// The group's epoch when this controller last took its share.
    epoch: u64,
    /// The cwnd last assigned to this controller: its change is measured from it.
    assigned: u64,
    /// Fast recoveries plus ECN reductions when the ACK being processed arrived: a change
    /// at the end of the ACK is a loss response if they moved.
    reductions_at_ack: u64,
    initial_window: u64,
    joined: bool,
    left: bool,
}

impl Sender {
    /// Make this sender member `slot` of `group` (before it starts).
    pub fn attach_group(&mut self, group: GroupHandle, slot: usize, initial_window: u64) {
        self.sharing = Some(Box::new(SenderSharing {
            group,
            slot,
            epoch: 0,
            assigned: 0,
            reductions_at_ack: 0,
            initial_window,
            joined: false,
            left: false,
        }));
    }

    /// Its group and member index, and the window its group assigns it now (outputs).
    pub fn shared_window(&self) -> Option<(usize, u64)> {
        let sharing = self.sharing.as_deref()?;
        let group = sharing.group.borrow();
        let member = &group.group.members[sharing.slot];
        Some((sharing.slot, member.assigned_cwnd))
    }

    /// Take the group's current share if it changed since this controller last took one.
    fn take_share(&mut self) {
        let Some(sharing) = self.sharing.as_deref_mut() else {
            return;
        };
        let group = sharing.group.borrow();
        if group.mode() != SharingMode::Aggregate || group.group.epoch == sharing.epoch {
            return;
        }
        let member = &group.group.members[sharing.slot];
        if !member.active {
            return;
        }
        sharing.epoch = group.group.epoch;
        sharing.assigned = member.assigned_cwnd;
        let (cwnd, ssthresh) = (member.assigned_cwnd, member.assigned_ssthresh);
        drop(group);
        self.cc.assign_window(cwnd, ssthresh);
    }

    /// The flow starts: join the group (seed-spec §3.4 step 1; the hand-over of §3.5), or
    /// start from the temporal cache (RFC 9040, temporal sharing).
    #[cold]
    #[inline(never)]
    pub(super) fn share_on_start(&mut self, now: SimTime) {
        let Some(sharing) = self.sharing.as_deref_mut() else {
            return;
        };
        if sharing.joined {
            return;
        }
        sharing.joined = true;
        let mss = self.config.mss;
        let mut shared = sharing.group.borrow_mut();
        match shared.mode() {
            SharingMode::Temporal => {
                let lifetime = shared.group.options.temporal_lifetime;
                let init = shared.temporal.initial(
                    now,
                    lifetime,
                    sharing.initial_window,
                    self.config.min_rto,
                );
                drop(shared);
                if let Some(init) = init {
                    // A handshake's RTT sample (`on_established`, just before) is fresher
                    // than the cache: the cached estimate only replaces "no sample yet".
                    if self.rtt.srtt().is_none() {
                        self.rtt.seed(init.srtt, init.rttvar);
                    }
                    self.cc.assign_window(init.cwnd, init.ssthresh);
                }
            }
            SharingMode::Aggregate => {
                let slot = sharing.slot;
                let running = shared.group.join(slot, self.cc.cwnd(), self.cc.ssthresh());
                let options = &shared.group.options;
                let (mode, first_segment) = (options.join, options.join_first_segment);
                let rtt = shared.group.srtt.unwrap_or(RTT_BEFORE_ANY_SAMPLE);
                let member = &mut shared.group.members[slot];
                if running && mode != JoinMode::Burst {
                    member.handover = Some(Handover::new(
                        mode,
                        member.assigned_cwnd,
                        now,
                        rtt,
                        first_segment,
                        mss,
                    ));
                }
                drop(shared);
                self.take_share();
            }
        }
    }

    /// An ACK arrived: take the current share before the controller sees it.
    #[cold]
    #[inline(never)]
    pub(super) fn share_on_ack_start(&mut self) {
        let reductions = self.stats.fast_recoveries + self.stats.ecn_reductions;
        if let Some(sharing) = self.sharing.as_deref_mut() {
            sharing.reductions_at_ack = reductions;
        }
        self.take_share();
    }

    /// The ACK has been processed: report the controller's change to the group (§3.4 step
    /// 2), hand the slots this ACK freed beyond the share to the joiners (§3.5), end the own
    /// hand-over at the first ACK of the own data, leave when all is acknowledged (§3.4
    /// step 3), and take the new share.
    #[cold]
    #[inline(never)]
    pub(super) fn share_after_ack(&mut self, now: SimTime, prior_in_flight: u64, delivered: u64) {
        let finished = self.is_finished();
        let srtt = self.rtt.srtt().unwrap_or(RTT_BEFORE_ANY_SAMPLE);
        let reductions = self.stats.fast_recoveries + self.stats.ecn_reductions;
        let proposal = self.cc.cwnd();
        let Some(sharing) = self.sharing.as_deref_mut() else {
            return;
        };
        if sharing.left {
            return;
        }
        let mut shared = sharing.group.borrow_mut();
        if shared.mode() == SharingMode::Temporal {
            if finished {
                sharing.left = true;
                shared.temporal.on_close(CachedTcb {
                    srtt,
                    rttvar: self.rtt.rttvar(),
                    ssthresh: self.cc.ssthresh(),
                    cwnd: self.cc.cwnd(),
                    closed_at: now,
                });
            }
            return;
        }
        let assigned = sharing.assigned;
        // A loss response measured against a flight above the share (just after a join
        // shrank it) is the controller's ratio applied to the share: Reno halves FlightSize,
        // which here may be more than the share.
        let proposal = if reductions != sharing.reductions_at_ack && prior_in_flight > assigned {
            (proposal as u128 * assigned as u128 / prior_in_flight as u128) as u64
        } else {
            proposal
        };
        let group = &mut shared.group;
        if proposal != assigned {
            group.update(sharing.slot, now, Change::Proposal { cwnd: proposal }, srtt);
        }
        if delivered > 0 {
            group.release_for_joiners(
                sharing.slot,
                delivered,
                prior_in_flight.saturating_sub(assigned),
            );
            if group.members[sharing.slot].handover.take().is_some() {
                self.share_cap = u64::MAX;
            }
        }
        if finished {
            sharing.left = true;
            group.leave(sharing.slot);
            return;
        }
        drop(shared);
        self.take_share();
    }

    /// A retransmission timeout: the controller took its loss window; the group follows
    /// (§3.4 step 2, `group_timeout`).
    #[cold]
    #[inline(never)]
    pub(super) fn share_after_timeout(&mut self, now: SimTime) {
        let srtt = self.rtt.srtt().unwrap_or(RTT_BEFORE_ANY_SAMPLE);
        let cwnd = self.cc.cwnd();
        let Some(sharing) = self.sharing.as_deref_mut() else {
            return;
        };
        let mut shared = sharing.group.borrow_mut();
        if sharing.left || shared.mode() != SharingMode::Aggregate {
            return;
        }
        let change = match shared.group.options.timeout {
            TimeoutRule::Proportional => Change::Proposal { cwnd },
            TimeoutRule::Member => Change::MemberTimeout { cwnd },
        };
        if cwnd != sharing.assigned {
            shared.group.update(sharing.slot, now, change, srtt);
        }
        drop(shared);
        self.take_share();
    }

    /// Before sending: take the current share, and while the hand-over lasts cap the window
    /// at what it released (arming the send timer for the next paced segment or the end of
    /// the hand-over).
    #[cold]
    #[inline(never)]
    pub(super) fn share_before_transmit(&mut self, now: SimTime) {
        self.take_share();
        let mss = self.config.mss;
        let Some(sharing) = self.sharing.as_deref_mut() else {
            return;
        };
        let mut shared = sharing.group.borrow_mut();
        let Some(handover) = shared.group.members[sharing.slot].handover.as_mut() else {
            self.share_cap = u64::MAX;
            return;
        };
        if handover.expired(now) {
            shared.group.members[sharing.slot].handover = None;
            self.share_cap = u64::MAX;
            return;
        }
        let next = match handover.mode {
            JoinMode::Paced => handover.release_paced(now, mss).unwrap_or(handover.ends_at),
            _ => handover.ends_at,
        };
        self.share_cap = handover.released;
        self.send_deadline = Some(self.send_deadline.map_or(next, |d| d.min(next)));
    }

    /// The group released hand-over segments for this joiner (another member's ACK).
    #[cold]
    #[inline(never)]
    pub fn on_group_release(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.transmit(now, out);
    }
}
