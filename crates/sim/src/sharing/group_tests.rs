//! The coupled controller's bookkeeping (seed-spec §3.4; RFC 8699 Algorithm 2 Algorithm 2 carried
//! over to windows) and the hand-over (§3.5), with every expectation worked out by hand in
//! the test from the rules. MSS 1000 bytes throughout, so windows read as segments × 1000.

use cclab_cc::{SimDuration, SimTime, UNLIMITED};
use cclab_scenario::sharing::{
    JoinMode, JoinWindow, LeaveRule, PacketsPerAck, Sharing, SharingMode,
};

use super::{Change, Group};
use crate::sharing::Handover;

const MSS: u64 = 1000;

fn group_with(options: impl FnOnce(&mut Sharing)) -> Group {
    let mut sharing = Sharing::new("g".into(), SharingMode::Aggregate);
    options(&mut sharing);
    Group::new("g".into(), sharing, MSS)
}

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

const SRTT: SimDuration = SimDuration::from_millis(100);

/// Members with `priorities`, all joined, the first with an initial window of `iw` bytes.
fn running(priorities: &[u32], iw: u64) -> Group {
    let mut group = group_with(|_| {});
    for (i, &p) in priorities.iter().enumerate() {
        let slot = group.add_member(i as u32, p);
        group.join(slot, iw, UNLIMITED);
    }
    group
}

fn shares(group: &Group) -> Vec<u64> {
    group.shares().collect()
}

#[test]
fn the_first_member_sets_the_aggregate_and_a_joiner_takes_its_share_of_it() {
    // §3.4 step 1: first member S_CW = IW = 10 segments; option A keeps S_CW, so two equal
    // members hold 5 segments each.
    let mut group = group_with(|_| {});
    let a = group.add_member(0, 1);
    let b = group.add_member(1, 1);
    assert!(!group.join(a, 10 * MSS, UNLIMITED), "nobody was running");
    assert_eq!(shares(&group), [10 * MSS]);
    assert!(
        group.join(b, 10 * MSS, UNLIMITED),
        "a joined group is running"
    );
    assert_eq!(group.aggregate_cwnd, 10 * MSS);
    assert_eq!(shares(&group), [5 * MSS, 5 * MSS]);
    // S_SS infinite: every member's ssthresh is unlimited (still in slow start).
    assert!(
        group
            .members
            .iter()
            .all(|m| m.assigned_ssthresh == UNLIMITED)
    );
}

#[test]
fn option_b_adds_the_joiners_initial_window() {
    // RFC 8699 Algorithm 1 style: S_CW = 10 + 10 segments, 10 each.
    let mut group = group_with(|s| s.join_window = JoinWindow::AddInitial);
    let a = group.add_member(0, 1);
    let b = group.add_member(1, 1);
    group.join(a, 10 * MSS, UNLIMITED);
    group.join(b, 10 * MSS, UNLIMITED);
    assert_eq!(shares(&group), [10 * MSS, 10 * MSS]);
}

#[test]
fn priorities_one_to_two_give_a_third_and_two_thirds() {
    // RFC 8699's FSE priorities: shares P(i)/S_P. S_CW = 30 segments: 10 and 20.
    let group = running(&[1, 2], 30 * MSS);
    assert_eq!(shares(&group), [10 * MSS, 20 * MSS]);
}

#[test]
fn shares_always_sum_to_the_aggregate() {
    // Priorities 1, 2, 4 (S_P = 7) over aggregates that 7 does not divide: floor division
    // leaves up to 2 bytes, handed out one per member, so the sum is S_CW exactly.
    for aggregate in [7 * MSS, 10_001, 12_345, 99_999, 1_000_003] {
        let mut group = running(&[1, 2, 4], aggregate);
        assert_eq!(shares(&group).iter().sum::<u64>(), group.aggregate_cwnd);
        // After a growth, a decrease and a leave too.
        group.update(
            0,
            at_ms(0),
            Change::Proposal {
                cwnd: group.members[0].assigned_cwnd + 777,
            },
            SRTT,
        );
        assert_eq!(shares(&group).iter().sum::<u64>(), group.aggregate_cwnd);
        group.update(
            1,
            at_ms(10),
            Change::Proposal {
                cwnd: group.members[1].assigned_cwnd / 2,
            },
            SRTT,
        );
        assert_eq!(shares(&group).iter().sum::<u64>(), group.aggregate_cwnd);
        group.leave(2);
        assert_eq!(shares(&group).iter().sum::<u64>(), group.aggregate_cwnd);
    }
}

#[test]
fn no_member_gets_less_than_a_segment_and_the_rest_shares_what_is_left() {
    // S_CW = 3 segments, priorities 1 and 8: 1/9 of 3000 = 333 bytes is below a segment, so
    // that member gets 1000 and the other the remaining 2000 (the water-filling of RFC 8699
    // Algorithm 1 step (c), turned into a floor). The sum stays 3000.
    let group = running(&[1, 8], 3 * MSS);
    assert_eq!(shares(&group), [MSS, 2 * MSS]);
}

#[test]
fn growth_adds_the_members_increase_or_its_priority_share_of_it() {
    // Two equal members of a 20-segment aggregate, 10 each. Member 0's controller proposes
    // 11 segments: Δ = 1 segment; S_CW = 21 segments, 10.5 each.
    let mut group = running(&[1, 1], 20 * MSS);
    group.update(0, at_ms(0), Change::Proposal { cwnd: 11 * MSS }, SRTT);
    assert_eq!(group.aggregate_cwnd, 21 * MSS);
    assert_eq!(shares(&group), [10_500, 10_500]);
    // scale_growth: Δ·P(c)/S_P = 1000 · 1/2 = 500 bytes.
    let mut group = group_with(|s| s.scale_growth = true);
    for i in 0..2 {
        let slot = group.add_member(i, 1);
        group.join(slot, 20 * MSS, UNLIMITED);
    }
    group.update(0, at_ms(0), Change::Proposal { cwnd: 11 * MSS }, SRTT);
    assert_eq!(group.aggregate_cwnd, 20_500);
}

#[test]
fn a_decrease_is_proportional_and_applied_at_most_once_per_two_rtts() {
    // RFC 8699 Algorithm 2: member 0 (10 of 20 segments) halves to 5 at t = 1 s, SRTT 100 ms:
    // S_CW = 20 · 5/10 = 10 segments, S_SS = S_CW = 10, shares 5 and 5, ssthresh 5 and 5;
    // frozen until 1 s + 2 · 100 ms = 1.2 s.
    let mut group = running(&[1, 1], 20 * MSS);
    group.update(0, at_ms(1000), Change::Proposal { cwnd: 5 * MSS }, SRTT);
    assert_eq!(group.aggregate_cwnd, 10 * MSS);
    assert_eq!(group.aggregate_ssthresh, 10 * MSS);
    assert_eq!(shares(&group), [5 * MSS, 5 * MSS]);
    assert!(group.members.iter().all(|m| m.assigned_ssthresh == 5 * MSS));
    assert_eq!(group.frozen_until, Some(at_ms(1200)));
    // Member 1's own halving at 1.1 s belongs to the same congestion event: ignored, as is a
    // growth at 1.15 s; its share is handed back unchanged.
    group.update(1, at_ms(1100), Change::Proposal { cwnd: 2500 }, SRTT);
    group.update(1, at_ms(1150), Change::Proposal { cwnd: 6 * MSS }, SRTT);
    assert_eq!(group.aggregate_cwnd, 10 * MSS);
    assert_eq!(shares(&group), [5 * MSS, 5 * MSS]);
    // At 1.2 s the freeze is over: halving again gives 10 · 2.5/5 = 5 segments.
    group.update(1, at_ms(1200), Change::Proposal { cwnd: 2500 }, SRTT);
    assert_eq!(group.aggregate_cwnd, 5 * MSS);
    assert_eq!(group.frozen_until, Some(at_ms(1400)));
}

#[test]
fn a_timeout_collapses_the_group_proportionally_or_only_the_member() {
    // Default (proportional): member 0 of three equal ones (10 of 30 segments) times out to
    // its 1-segment loss window: S_CW = 30 · 1/10 = 3 segments, one each.
    let mut group = running(&[1, 1, 1], 30 * MSS);
    group.update(0, at_ms(0), Change::Proposal { cwnd: MSS }, SRTT);
    assert_eq!(shares(&group), [MSS, MSS, MSS]);
    // group_timeout = "member": only its 9 segments above the loss window leave: 21 segments.
    let mut group = running(&[1, 1, 1], 30 * MSS);
    group.update(0, at_ms(0), Change::MemberTimeout { cwnd: MSS }, SRTT);
    assert_eq!(group.aggregate_cwnd, 21 * MSS);
    assert_eq!(shares(&group), [7 * MSS, 7 * MSS, 7 * MSS]);
}

#[test]
fn a_leavers_share_is_redistributed_or_removed() {
    // Three equal members of 30 segments. Default (keep): the two others absorb the leaver's
    // 10 segments, 15 each.
    let mut group = running(&[1, 1, 1], 30 * MSS);
    group.leave(1);
    assert_eq!(group.priority_sum, 2);
    assert_eq!(shares(&group), [15 * MSS, 15 * MSS]);
    // leave = "remove": the aggregate loses the 10 segments: 10 each.
    let mut group = group_with(|s| s.leave = LeaveRule::Remove);
    for i in 0..3 {
        let slot = group.add_member(i, 1);
        group.join(slot, 30 * MSS, UNLIMITED);
    }
    group.leave(1);
    assert_eq!(shares(&group), [10 * MSS, 10 * MSS]);
}

#[test]
fn a_joiner_is_released_what_the_others_acks_free_beyond_their_shares() {
    // §3.5: member 0 held 10 segments in flight when member 1 joined (shares 5 and 5), so
    // its excess is 5 segments. Its next ACK frees 1 segment: min(1, 5) = 1 goes to the
    // joiner, which had its first segment already: 2 released.
    let mut group = running(&[1], 10 * MSS);
    let b = group.add_member(1, 1);
    group.join(b, 10 * MSS, UNLIMITED);
    group.members[b].handover = Some(Handover::new(
        JoinMode::AckClocked,
        5 * MSS,
        at_ms(0),
        SRTT,
        true,
        MSS,
    ));
    group.release_for_joiners(0, MSS, 5 * MSS);
    assert_eq!(group.members[b].handover.map(|h| h.released), Some(2 * MSS));
    assert_eq!(group.wake, [1]);
    // An ACK that frees 3 segments while the excess is only 2: 2 more (4).
    group.release_for_joiners(0, 3 * MSS, 2 * MSS);
    assert_eq!(group.members[b].handover.map(|h| h.released), Some(4 * MSS));
    // Never beyond the budget of 5 segments.
    group.release_for_joiners(0, 4 * MSS, 4 * MSS);
    assert_eq!(group.members[b].handover.map(|h| h.released), Some(5 * MSS));
}

#[test]
fn packets_per_ack_caps_each_release_and_two_joiners_split_by_priority() {
    // join_packets_per_ack = 1: an ACK freeing 3 segments of excess releases 1.
    let mut group = group_with(|s| s.packets_per_ack = PacketsPerAck::AtMost(1));
    for (i, p) in [1, 1, 2].into_iter().enumerate() {
        let slot = group.add_member(i as u32, p);
        group.join(slot, 40 * MSS, UNLIMITED);
    }
    group.members[1].handover = Some(Handover::new(
        JoinMode::AckClocked,
        10 * MSS,
        at_ms(0),
        SRTT,
        false,
        MSS,
    ));
    group.release_for_joiners(0, 3 * MSS, 3 * MSS);
    assert_eq!(group.members[1].handover.map(|h| h.released), Some(MSS));
    // Two joiners with priorities 1 and 2 share 3 freed segments (no cap): 1 and 2.
    let mut group = running(&[1, 1, 2], 40 * MSS);
    for slot in [1, 2] {
        group.members[slot].handover = Some(Handover::new(
            JoinMode::AckClocked,
            10 * MSS,
            at_ms(0),
            SRTT,
            false,
            MSS,
        ));
    }
    group.release_for_joiners(0, 3 * MSS, 3 * MSS);
    assert_eq!(group.members[1].handover.map(|h| h.released), Some(MSS));
    assert_eq!(group.members[2].handover.map(|h| h.released), Some(2 * MSS));
}

#[test]
fn a_paced_hand_over_releases_one_segment_per_rtt_over_budget() {
    // Budget 10 segments over an RTT of 100 ms: one every 10 ms, the first at once.
    let mut handover = Handover::new(JoinMode::Paced, 10 * MSS, at_ms(0), SRTT, true, MSS);
    assert_eq!(handover.released, MSS);
    assert_eq!(handover.release_paced(at_ms(0), MSS), Some(at_ms(10)));
    // At 35 ms: 3 whole steps passed, 4 segments due; the next at 40 ms.
    assert_eq!(handover.release_paced(at_ms(35), MSS), Some(at_ms(40)));
    assert_eq!(handover.released, 4 * MSS);
    // At 95 ms all 10 are due; nothing more to release.
    assert_eq!(handover.release_paced(at_ms(95), MSS), None);
    assert_eq!(handover.released, 10 * MSS);
    assert!(!handover.expired(at_ms(99)) && handover.expired(at_ms(100)));
}
