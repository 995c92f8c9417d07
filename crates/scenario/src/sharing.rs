//! TCB sharing between connections (issue 12; docs/sharing.md): which group a flow belongs
//! to, how its group shares state, and the options of the coupled controller.
//!
//! Sources: RFC 9040 (TCP Control Block Interdependence: temporal and ensemble sharing),
//! RFC 8699 Algorithm 2 (the conservative flow-state exchange, carried over to windows as ctrlTCP
//! does), and "Start Me Up" (Islam and Welzl, ANRW 2016: the ACK-clocked hand-over of a
//! joining connection's first window). The choices the sources leave open are options here,
//! each with the default `../shared/reference/seed-spec.md` §3.4–3.5 names.

use cclab_cc::SimDuration;

/// `sharing`: how the flows of a group share state. `"none"` (the default) is no
/// [`Sharing`] at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharingMode {
    /// `"aggregate"`: ensemble sharing (RFC 9040) with the coupled controller of
    /// seed-spec §3.4: one aggregate cwnd and ssthresh, each member gets its priority share.
    Aggregate,
    /// `"temporal"`: temporal sharing (RFC 9040): a connection that opens after
    /// another of the group has closed starts from the closed one's cached RTT, RTTVAR,
    /// ssthresh and (decayed) cwnd.
    Temporal,
}

impl SharingMode {
    pub fn name(self) -> &'static str {
        match self {
            SharingMode::Aggregate => "aggregate",
            SharingMode::Temporal => "temporal",
        }
    }
}

/// `join`: how a member that joins a running group sends its first window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JoinMode {
    /// `"burst"`: its whole share at once.
    Burst,
    /// `"ack-clocked"` (the default, "Start Me Up"): one segment per segment the running
    /// members' ACKs free beyond their new shares, during its first RTT.
    #[default]
    AckClocked,
    /// `"paced"`: its share spread evenly over one RTT by a timer (the prior work the paper
    /// compares against).
    Paced,
}

impl JoinMode {
    pub fn name(self) -> &'static str {
        match self {
            JoinMode::Burst => "burst",
            JoinMode::AckClocked => "ack-clocked",
            JoinMode::Paced => "paced",
        }
    }
}

/// `join_window`: where a joining member's window comes from (seed-spec §3.4 step 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JoinWindow {
    /// `"share"` (option A, the default): the aggregate is unchanged; the joiner's share is
    /// carved out of it.
    #[default]
    Share,
    /// `"add-initial"` (option B, RFC 8699 Algorithm 1 style): the joiner's initial window
    /// is added to the aggregate first.
    AddInitial,
}

/// `leave`: what a finished member's share does (seed-spec §3.4 step 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeaveRule {
    /// `"keep"` (the default): the aggregate is unchanged; the others absorb the share.
    #[default]
    Keep,
    /// `"remove"`: the aggregate shrinks by the leaver's share.
    Remove,
}

/// `timeout`: how a member's retransmission timeout changes the aggregate (seed-spec §3.4
/// step 2, "*option*").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeoutRule {
    /// `"proportional"` (the default): a decrease to the member's loss window, applied to the
    /// aggregate proportionally, like any other decrease (so the whole group collapses).
    #[default]
    Proportional,
    /// `"member"`: the aggregate loses only the timed-out member's share above its loss
    /// window; the others keep theirs.
    Member,
}

/// How many segments an ACK of a running member may release for a joiner in its
/// ACK-clocked first RTT (`join_packets_per_ack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PacketsPerAck {
    /// `"freed"` (the default, seed-spec §3.5): as many as the ACK freed beyond the running
    /// member's new share, `min(freed, flight − share)`.
    #[default]
    Freed,
    /// At most this many per ACK (the "one packet per ACK" is 1).
    AtMost(u32),
}

/// A flow group's sharing settings (`group`, `sharing`, `join`, `priority` and the options).
#[derive(Clone, Debug, PartialEq)]
pub struct Sharing {
    /// `group`: flows with the same name share state (default: one group per `[[flows]]`
    /// table, named `flows.N`).
    pub group: String,
    pub mode: SharingMode,
    pub join: JoinMode,
    /// `priority` (default 1): shares are proportional to priorities (RFC 8699's FSE priorities; the
    /// WebRTC levels very-low … high map to 1, 2, 4, 8).
    pub priority: u32,
    /// `scale_growth` (default false): the aggregate grows by Δ·P(c)/S_P instead of Δ, so
    /// that N coupled flows grow like one.
    pub scale_growth: bool,
    pub join_window: JoinWindow,
    pub leave: LeaveRule,
    pub timeout: TimeoutRule,
    pub packets_per_ack: PacketsPerAck,
    /// `join_first_segment` (default true, seed-spec §3.5 "our default"): an ACK-clocked
    /// joiner may send one segment at once, before any ACK frees a slot.
    pub join_first_segment: bool,
    /// `temporal_lifetime` (default 1 hour, Linux's `TCP_METRICS_TIMEOUT`): how long a closed
    /// connection's cached state stays fresh enough to initialise a new one.
    pub temporal_lifetime: SimDuration,
}

impl Sharing {
    /// The settings of `group` with every option at its default.
    pub fn new(group: String, mode: SharingMode) -> Self {
        Sharing {
            group,
            mode,
            join: JoinMode::default(),
            priority: 1,
            scale_growth: false,
            join_window: JoinWindow::default(),
            leave: LeaveRule::default(),
            timeout: TimeoutRule::default(),
            packets_per_ack: PacketsPerAck::default(),
            join_first_segment: true,
            temporal_lifetime: SimDuration::from_secs(3600),
        }
    }
}

/// The names of the scenario's groups in order of first appearance (the simulator numbers
/// them so); empty when no flow shares state.
pub fn group_names(scenario: &crate::Scenario) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for sharing in scenario.flows.iter().filter_map(|g| g.sharing.as_ref()) {
        if !names.contains(&sharing.group) {
            names.push(sharing.group.clone());
        }
    }
    names
}
