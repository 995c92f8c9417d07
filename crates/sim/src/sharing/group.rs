//! The coupled controller's bookkeeping for one group, as plain data (seed-spec §3.4: the
//! conservative flow-state exchange of RFC 8699 Algorithm 2, carried over from rates
//! to windows as ctrlTCP does): the aggregate window S_CW and threshold S_SS, the priority
//! sum S_P, the 2-RTT freeze, and every member's share `P(i)·S_CW/S_P`.

use cclab_cc::{SimDuration, SimTime, UNLIMITED};
use cclab_scenario::sharing::{JoinWindow, LeaveRule, Sharing};

use super::join::Handover;

/// One connection of the group.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub flow: u32,
    /// P(c) > 0 (RFC 8699's FSE priorities).
    pub priority: u32,
    /// Between join and leave.
    pub active: bool,
    /// The share last computed for it, cwnd and ssthresh in bytes.
    pub assigned_cwnd: u64,
    pub assigned_ssthresh: u64,
    /// The joiner's first RTT ("Start Me Up"), if it joined a running group and does not
    /// burst.
    pub handover: Option<Handover>,
}

/// How a member's controller changed its window since its last assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Its controller proposes `cwnd` after an ACK or a loss response.
    Proposal { cwnd: u64 },
    /// `group_timeout = "member"`: a retransmission timeout took it to `cwnd`; only its own
    /// share leaves the aggregate.
    MemberTimeout { cwnd: u64 },
}

/// A coupled group.
#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub options: Sharing,
    pub mss: u64,
    /// S_CW, bytes.
    pub aggregate_cwnd: u64,
    /// S_SS, bytes; [`UNLIMITED`] until the first decrease ("infinite", seed-spec §3.4).
    pub aggregate_ssthresh: u64,
    /// S_P over the active members.
    pub priority_sum: u64,
    /// RFC 8699 Algorithm 2: after a decrease S_CW is frozen until then.
    pub frozen_until: Option<SimTime>,
    pub members: Vec<Member>,
    /// Bumped by every reassignment: a member whose controller saw an older one takes its
    /// new share before it acts.
    pub epoch: u64,
    /// Joiners whose hand-over released segments since the simulator last looked.
    pub wake: Vec<u32>,
    /// The latest smoothed RTT a member reported: a joiner's hand-over lasts one of them.
    pub srtt: Option<SimDuration>,
}

impl Group {
    pub fn new(name: String, options: Sharing, mss: u64) -> Self {
        Group {
            name,
            options,
            mss,
            aggregate_cwnd: 0,
            aggregate_ssthresh: UNLIMITED,
            priority_sum: 0,
            frozen_until: None,
            members: Vec::new(),
            epoch: 0,
            wake: Vec::new(),
            srtt: None,
        }
    }

    /// Add flow `flow` (not yet active); returns its member index.
    pub fn add_member(&mut self, flow: u32, priority: u32) -> usize {
        self.members.push(Member {
            flow,
            priority,
            active: false,
            assigned_cwnd: 0,
            assigned_ssthresh: UNLIMITED,
            handover: None,
        });
        self.members.len() - 1
    }

    pub fn active_members(&self) -> usize {
        self.members.iter().filter(|m| m.active).count()
    }

    /// The smallest aggregate that gives every active member a segment.
    fn floor(&self) -> u64 {
        self.active_members() as u64 * self.mss
    }

    /// Seed-spec §3.4 step 1: member `slot` joins with its controller's initial window and
    /// threshold. The first member sets the aggregate; a later one takes its share of it
    /// (option A) or adds its initial window first (option B). Returns whether others were
    /// running (a hand-over applies).
    pub fn join(&mut self, slot: usize, initial_cwnd: u64, initial_ssthresh: u64) -> bool {
        let running = self.active_members() > 0;
        if !running {
            self.aggregate_cwnd = initial_cwnd;
            self.aggregate_ssthresh = initial_ssthresh;
            self.frozen_until = None;
        } else if self.options.join_window == JoinWindow::AddInitial {
            self.aggregate_cwnd += initial_cwnd;
        }
        let member = &mut self.members[slot];
        member.active = true;
        self.priority_sum += member.priority as u64;
        self.aggregate_cwnd = self.aggregate_cwnd.max(self.floor());
        self.reassign();
        running
    }

    /// Seed-spec §3.4 step 2: member `slot`'s controller changed its window.
    pub fn update(&mut self, slot: usize, now: SimTime, change: Change, srtt: SimDuration) {
        let member = &self.members[slot];
        if !member.active {
            return;
        }
        self.srtt = Some(srtt);
        let assigned = member.assigned_cwnd.max(1);
        let frozen = self.frozen_until.is_some_and(|until| now < until);
        match change {
            Change::MemberTimeout { cwnd } => {
                self.aggregate_cwnd = self
                    .aggregate_cwnd
                    .saturating_sub(assigned.saturating_sub(cwnd));
            }
            Change::Proposal { cwnd } if cwnd >= assigned => {
                if !frozen {
                    let delta = cwnd - assigned;
                    // Option: grow like one flow, Δ·P(c)/S_P.
                    let delta = if self.options.scale_growth {
                        (delta as u128 * member.priority as u128 / self.priority_sum.max(1) as u128)
                            as u64
                    } else {
                        delta
                    };
                    self.aggregate_cwnd = self.aggregate_cwnd.saturating_add(delta);
                }
            }
            Change::Proposal { cwnd } => {
                // RFC 8699 Algorithm 2: a decrease scales the aggregate by the member's own ratio,
                // once; then the aggregate is frozen for 2 RTTs of that member.
                if !frozen {
                    self.aggregate_cwnd =
                        (self.aggregate_cwnd as u128 * cwnd as u128 / assigned as u128) as u64;
                    self.aggregate_cwnd = self.aggregate_cwnd.max(self.floor());
                    self.aggregate_ssthresh = self.aggregate_cwnd;
                    self.frozen_until = Some(now + srtt * 2);
                }
            }
        }
        self.aggregate_cwnd = self.aggregate_cwnd.max(self.floor());
        self.reassign();
    }

    /// Seed-spec §3.4 step 3: member `slot` finished.
    pub fn leave(&mut self, slot: usize) {
        let member = &mut self.members[slot];
        if !member.active {
            return;
        }
        member.active = false;
        member.handover = None;
        self.priority_sum -= member.priority as u64;
        if self.options.leave == LeaveRule::Remove {
            self.aggregate_cwnd = self.aggregate_cwnd.saturating_sub(member.assigned_cwnd);
        }
        self.aggregate_cwnd = self.aggregate_cwnd.max(self.floor());
        self.reassign();
    }

    /// Every active member's share: `P(i)·S_CW/S_P`, water-filled so that no member gets less
    /// than one segment (as RFC 8699 Algorithm 1 step (c) caps flows and redistributes the rest)
    /// and rounded so that the shares sum to S_CW exactly; ssthresh `P(i)·S_SS/S_P`, at
    /// least 2 segments (RFC 5681 eq. 4), or unlimited while S_SS is.
    fn reassign(&mut self) {
        self.epoch += 1;
        let mss = self.mss;
        let mut remaining = self.aggregate_cwnd;
        let mut priorities = self.priority_sum;
        let mut at_floor = vec![false; self.members.len()];
        // Members whose proportional share is below a segment get one; the rest share what
        // is left. Each pass fixes at least one member or stops.
        loop {
            let mut fixed_one = false;
            for (i, m) in self.members.iter().enumerate() {
                if !m.active || at_floor[i] || priorities == 0 {
                    continue;
                }
                let share = (remaining as u128 * m.priority as u128 / priorities as u128) as u64;
                if share < mss {
                    at_floor[i] = true;
                    remaining = remaining.saturating_sub(mss);
                    priorities -= m.priority as u64;
                    fixed_one = true;
                }
            }
            if !fixed_one {
                break;
            }
        }
        let mut handed = 0;
        for (i, m) in self.members.iter_mut().enumerate() {
            if !m.active {
                continue;
            }
            m.assigned_cwnd = if at_floor[i] {
                mss
            } else {
                let share = (remaining as u128 * m.priority as u128 / priorities as u128) as u64;
                handed += share;
                share
            };
            m.assigned_ssthresh = if self.aggregate_ssthresh == UNLIMITED {
                UNLIMITED
            } else {
                let share = (self.aggregate_ssthresh as u128 * m.priority as u128
                    / self.priority_sum.max(1) as u128) as u64;
                share.max(2 * mss)
            };
        }
        // The bytes floor division left over, one to each member in order.
        let mut left = remaining.saturating_sub(handed);
        for (i, m) in self.members.iter_mut().enumerate() {
            if left == 0 {
                break;
            }
            if m.active && !at_floor[i] {
                m.assigned_cwnd += 1;
                left -= 1;
            }
        }
    }

    /// The shares of the active members (tests and outputs).
    pub fn shares(&self) -> impl Iterator<Item = u64> + '_ {
        self.members
            .iter()
            .filter(|m| m.active)
            .map(|m| m.assigned_cwnd)
    }
}

#[cfg(test)]
#[path = "group_tests.rs"]
mod tests;
