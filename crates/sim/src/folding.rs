//! Folding hops that cannot reorder (issue 18): a link fed by one upstream link only (a
//! flow's access link behind the bottleneck, or a bottleneck direction that one flow alone
//! uses) receives that link's packets in the order they were admitted there. If the upstream
//! link knows each packet's exit time at admission (the wired arrival family), the packet can
//! be admitted to the folded link at once, stamped with the time it will get there, and the
//! upstream link's delivery event is not needed: a data packet on the dumbbell costs one
//! event where it meets other flows (the bottleneck) and one at the receiver, where it cost
//! one per hop.
//!
//! What must not change, and why it does not:
//! - a folded link's own state is touched only by its packets, which come in time order
//!   from one upstream link; it has no loss process, no jitter and no trace, so nothing is
//!   drawn at the hop, and it is not reported (no sample reads its queue before its time);
//!   a capture sees packets at link deliveries, so a run with captures folds nothing. A
//!   workload adds flow slots (and their access links) as it runs, each on the same routes:
//!   two stand-in slots per workload take part in the choice when the topology is built, and
//!   every slot made later folds the links its stand-ins fold (`Simulation::fold_hops`). A
//!   slot's dropped packet may free the slot, so its drops count when they happen (its links
//!   fold only if they cannot overflow); its links are empty when it is reused (the
//!   workload's quarantine);
//! - a folded drop-tail queue with a limit may overflow: the packet is dropped when it would
//!   have arrived (the queue is the same), but counted now, ahead of that time. Counting
//!   ahead changes nothing a flow reports at the end; it would change what is logged when
//!   (`trace_packets`) and the flows' counters between events (UDP samples, the handshake),
//!   so a link crossed by a traced, UDP or handshake flow is folded only if it cannot
//!   overflow; and a data segment dropped ahead of the steady-state window's start that
//!   belongs after it is taken out of the window's snapshot
//!   ([`Simulation::count_drop_ahead`]);
//! - a link hands packets to folded links only if it hands all of them on (else a packet it
//!   keeps would find an emptier wire than before, and its delivery would be scheduled at
//!   another time);
//! - the order of simultaneous events: the delivery event at the end of a folded chain is
//!   scheduled ahead, but sorts as the unfolded chain's would have (`EventQueue::
//!   schedule_as_of`, `Precedence`): by when that chain would have scheduled it (when the
//!   packet entered the last link, or when the packet ahead of it was delivered, whichever is
//!   later), then by when the event that would have scheduled it was scheduled; deeper than
//!   that, the rank of the chain's first real event stands for the unfolded events' own
//!   order. That is exact unless two folded deliveries fall due at the same nanosecond with
//!   the same two times of scheduling and histories that differ further back. With data
//!   flowing one way through the shared links this has not been seen (every example, the
//!   unit tests below); with data both ways through a shared link (reverse flows, or a
//!   graph's flows crossing a link in both directions), the two directions, of equal rate
//!   and delay, produce such ties systematically (the property tests found them), so such
//!   runs fold nothing ([`data_both_ways`]).

use crate::event::Event;
use crate::net::link::{Admission, Link};
use crate::net::network::{Path, Routes};
use crate::packet::{Packet, PacketKind};
use crate::simulation::Simulation;
use cclab_cc::SimTime;

/// Where a link's packets come from, over every path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// On no path.
    Nothing,
    /// Always from this link.
    Link(u32),
    /// From an endpoint, or from several links.
    Other,
}

/// Does a reported (shared) link carry data segments of some flow and ACKs of another? Then
/// data flows both ways, and folded chains in the two directions can tie at every level of
/// their history: such a run folds nothing (see the module's notes).
pub(crate) fn data_both_ways(reported: &[u32], hops: &[u32], routes: &[Routes]) -> bool {
    let path = |p: Path| &hops[p.start as usize..][..p.len as usize];
    let mut data = vec![false; reported.len()];
    let mut acks = vec![false; reported.len()];
    for routes in routes {
        for (carries, p) in [(&mut data, routes.data), (&mut acks, routes.ack)] {
            for link in path(p) {
                if let Some(i) = reported.iter().position(|r| r == link) {
                    carries[i] = true;
                }
            }
        }
    }
    data.iter().zip(&acks).any(|(&d, &a)| d && a)
}

/// What keeps a link from folding besides its kind and where its packets come from.
pub(crate) struct Exclusions<'a> {
    /// The links outputs report: their queues are sampled.
    pub reported: &'a [u32],
    /// Links where a flow's `drop` list applies.
    pub forced_drops: &'a [u32],
    /// Per flow: a drop must be counted when it happens (a traced, UDP or handshake flow),
    /// so its links fold only if they cannot overflow.
    pub counts_drops_on_time: &'a [bool],
}

/// Mark the links that can be folded (`Link::folded`): fed by one upstream link only, which
/// hands on every packet it carries and knows when each leaves; foldable themselves
/// ([`Link::can_fold`]); not excluded (`exclusions`).
pub(crate) fn mark_folded_links(
    links: &mut [Link],
    exclusions: &Exclusions,
    hops: &[u32],
    routes: &[Routes],
) {
    let count = links.len();
    let paths = || {
        routes
            .iter()
            .flat_map(|r| [r.data, r.ack])
            .map(|p: Path| &hops[p.start as usize..][..p.len as usize])
    };
    let mut drops_on_time = vec![false; count];
    for (flow, routes) in routes.iter().enumerate() {
        if exclusions.counts_drops_on_time.get(flow) == Some(&true) {
            for path in [routes.data, routes.ack] {
                for &link in &hops[path.start as usize..][..path.len as usize] {
                    drops_on_time[link as usize] = true;
                }
            }
        }
    }
    let mut source = vec![Source::Nothing; count];
    for path in paths() {
        for (i, &link) in path.iter().enumerate() {
            let from = if i == 0 {
                Source::Other
            } else {
                Source::Link(path[i - 1])
            };
            let known = &mut source[link as usize];
            *known = match (*known, from) {
                (Source::Nothing, from) => from,
                (Source::Link(a), Source::Link(b)) if a == b => Source::Link(a),
                _ => Source::Other,
            };
        }
    }
    let mut folded: Vec<bool> = (0..count)
        .map(|link| {
            let Source::Link(upstream) = source[link] else {
                return false;
            };
            let id = link as u32;
            links[upstream as usize].can_pass()
                && links[link].can_fold()
                && !(drops_on_time[link] && links[link].may_overflow())
                && !exclusions.reported.contains(&id)
                && !exclusions.forced_drops.contains(&id)
        })
        .collect();
    // A link hands its packets to folded links only if it hands all of them on: drop the
    // folds whose upstream link also delivers some packets itself, until none is left.
    loop {
        let mut passes_all = vec![true; count];
        for path in paths() {
            for (i, &link) in path.iter().enumerate() {
                if !path.get(i + 1).is_some_and(|&next| folded[next as usize]) {
                    passes_all[link as usize] = false;
                }
            }
        }
        let mut changed = false;
        for link in 0..count {
            if let Source::Link(upstream) = source[link]
                && folded[link]
                && !passes_all[upstream as usize]
            {
                folded[link] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (link, folded) in links.iter_mut().zip(folded) {
        link.folded = folded;
    }
}

impl Simulation {
    /// Offer `packet` to `link` now, whose next link on `path` is folded: admit it, then to
    /// each folded link in turn at the time it leaves the one before, and put it on the wire
    /// of the last, whose delivery is the next event it costs.
    pub(crate) fn offer_passing(&mut self, link: u32, packet: &mut Packet, path: Path) {
        // `at`: when the packet leaves the link it is on; `exit`: the precedence that link's
        // delivery event for it would have had.
        let now = self.queue.precedence_now();
        let (mut at, mut exit) =
            match self.links[link as usize].enqueue_passing(self.now, now, packet) {
                Ok(exit) => exit,
                Err(_) => return self.count_drop(packet),
            };
        loop {
            let hop = packet.hop as u32 + 1;
            packet.hop = hop as u8;
            let link = self.hops[(path.start + hop) as usize];
            let next_folded = hop + 1 < path.len
                && self.links[self.hops[(path.start + hop + 1) as usize] as usize].folded;
            let folded = &mut self.links[link as usize];
            // What that delivery would have scheduled at `at`.
            let by = exit.child_at(at);
            if next_folded {
                match folded.enqueue_passing(at, by, packet) {
                    Ok(next) => (at, exit) = next,
                    Err(_) => return self.count_drop_ahead(packet, at),
                }
                continue;
            }
            match folded.enqueue_folded(at, by, packet) {
                // The wire was empty when the packet entered the link (any packet ahead of it
                // was delivered by now): its unfolded delivery event would have been
                // scheduled when it entered, by the delivery event of the link before.
                Admission::Admitted {
                    arrival,
                    first_in_flight: true,
                } => self
                    .queue
                    .schedule_as_of(arrival, &by, Event::FoldedDelivery(link)),
                Admission::Admitted { .. } => {}
                Admission::Dropped(_) | Admission::Scheduled => self.count_drop_ahead(packet, at),
            }
            return;
        }
    }

    /// A folded link's queue overflowed at `at`, ahead of now: count the drop now. A data
    /// segment's drop counts in the steady-state window if `at` is in it, and the window's
    /// snapshot is still to be taken: it must not count there.
    fn count_drop_ahead(&mut self, packet: &Packet, at: SimTime) {
        if packet.kind == PacketKind::Data
            && self.now < self.window_start
            && at >= self.window_start
        {
            self.data_drops_after_window_start.push(packet.flow);
        }
        self.count_drop(packet);
    }

    /// The packet at the head of folded `link`'s wire arrives now.
    pub(crate) fn on_folded_delivery(&mut self, link: u32) {
        let now = self.queue.precedence_now();
        let wire = &mut self.links[link as usize];
        let mut packet = wire.take_folded(self.now);
        if let Some((arrival, precedence)) = wire.next_folded_arrival(self.now, now) {
            self.queue
                .schedule_as_of(arrival, &precedence, Event::FoldedDelivery(link));
        }
        self.forward(&mut packet);
    }
}

#[cfg(test)]
mod tests {
    use crate::result::RunResult;
    use crate::simulation::{Simulation, run_text};
    use crate::trace::MemorySink;

    /// Run `text` with its hops folded as the simulation chooses, or with none folded and
    /// every queue kept in full (every hop an event, as before folding): the result and
    /// everything streamed to the sink.
    fn run(text: &str, fold: bool) -> (RunResult, MemorySink, Vec<bool>) {
        let mut folded = Vec::new();
        let (result, sink) = run_text(text, |simulation| {
            // Both with every link kept, so that traced packets name the same link ids
            // (pooled links change nothing else: `link_pool.rs`).
            simulation.pool_links = false;
            if !fold {
                for link in &mut simulation.links {
                    link.folded = false;
                    link.set_lean(false);
                }
                for workload in &mut simulation.workloads.groups {
                    workload.folded_access = [false; 4];
                }
            }
            folded = simulation.links.iter().map(|l| l.folded).collect();
        });
        (result, sink, folded)
    }

    /// Fail with the first element where `folded` and `unfolded` differ, if any.
    fn first_difference<T: PartialEq + std::fmt::Debug>(what: &str, folded: &[T], unfolded: &[T]) {
        if let Some(i) = (0..folded.len().min(unfolded.len())).find(|&i| folded[i] != unfolded[i]) {
            eprintln!(
                "{what} differ first at {i}: folded {:?}, unfolded {:?}",
                folded[i], unfolded[i]
            );
            for j in i.saturating_sub(3)..(i + 4).min(folded.len()).min(unfolded.len()) {
                eprintln!("{j}: {:?}\n   {:?}", folded[j], unfolded[j]);
            }
        }
        if folded.len() != unfolded.len() {
            eprintln!(
                "{what}: {} folded, {} unfolded",
                folded.len(),
                unfolded.len()
            );
        }
    }

    /// Folding must change nothing but the number of events: the unfolded run (one event per
    /// packet per hop, the simulator before issue 18) is the reference. Returns the events of
    /// both runs and which links were folded.
    fn assert_folding_changes_nothing(text: &str) -> (u64, u64, Vec<bool>) {
        let (unfolded, unfolded_sink, _) = run(text, false);
        let (folded, folded_sink, links) = run(text, true);
        first_difference(
            "packet events",
            &folded_sink.packets,
            &unfolded_sink.packets,
        );
        first_difference("flow samples", &folded_sink.flows, &unfolded_sink.flows);
        first_difference("link samples", &folded_sink.links, &unfolded_sink.links);
        assert_eq!(
            RunResult {
                events: 0,
                ..folded.clone()
            },
            RunResult {
                events: 0,
                ..unfolded.clone()
            }
        );
        assert_eq!(folded_sink.flows, unfolded_sink.flows);
        assert_eq!(folded_sink.links, unfolded_sink.links);
        assert_eq!(folded_sink.packets, unfolded_sink.packets);
        assert_eq!(folded_sink.events, unfolded_sink.events);
        assert_eq!(folded_sink.udp, unfolded_sink.udp);
        first_difference(
            "finished workload flows",
            &folded_sink.finished,
            &unfolded_sink.finished,
        );
        assert_eq!(folded_sink.finished, unfolded_sink.finished);
        assert!(!unfolded_sink.flows.is_empty(), "the flows must be sampled");
        (folded.events, unfolded.events, links)
    }

    #[test]
    fn one_flow_saves_exactly_the_deliveries_of_the_hops_folded() {
        // One flow, an ACK per segment, both bottleneck directions reported (so neither is
        // folded): the access links behind them are, each fed by one bottleneck direction
        // only. Unfolded, every packet costs one delivery event per hop; folded, the
        // bottleneck's delivery of each data segment and the reverse direction's of each ACK
        // go (the packet enters the receiver's or the sender's access link at once). The
        // transfer ends well before the run, so that every packet was delivered: the events
        // saved are exactly the packets the two directions carried.
        let text = r#"
            duration = "10s"
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 30,
                           reverse = { rate = "10Mbps", buffer = 30 } }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "newreno"
            size = "2MB"
            delayed_ack = false
            [output]
            interval = "5ms"
        "#;
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        // Links: bottleneck, its reverse, then sender up, sender down, receiver down,
        // receiver up (dumbbell.rs): the two access links fed by a bottleneck direction fold.
        assert_eq!(links, [false, false, false, true, true, false]);
        let (result, _, _) = run(text, true);
        assert!(result.flows[0].completed_at.is_some());
        assert!(result.links[0].stats.overflow_drops > 0, "a loss episode");
        let carried = result.links[0].stats.packets + result.links[1].stats.packets;
        assert_eq!(unfolded - folded, carried);
    }

    #[test]
    fn a_lossy_bottleneck_folds_the_access_links_behind_it() {
        // The bottleneck loses data segments and ACKs at random: the loss is drawn where the
        // packet is admitted (still an event), so the access links behind both directions
        // fold; the reverse direction itself has a loss process, so it does not. The flow is
        // traced: every send, receipt and drop is logged at its time.
        let text = r#"
            duration = "8s"
            seed = 7
            [topology]
            bottleneck = { rate = "20Mbps", delay = "15ms", buffer = "1bdp", loss = 0.002,
                           ack_loss = 0.01 }
            access = { rate = "200Mbps", delay = "2ms" }
            [[flows]]
            cc = "cubic"
            [output]
            interval = "10ms"
            trace_packets = [0]
        "#;
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        assert_eq!(links, [false, false, false, true, true, false]);
        let (result, _, _) = run(text, true);
        assert!(result.flows[0].drops > 0 && result.flows[0].ack_drops > 0);
        assert!(folded < unfolded);
    }

    #[test]
    fn the_reverse_direction_of_one_flow_folds() {
        // One flow, no loss, the reverse direction not reported: it carries this flow's ACKs
        // alone, so it folds (its drop-tail queue has the bottleneck's limit) with the
        // sender's access link behind it; the receiver's access link in front of it hands
        // every ACK on. Each ACK then costs one event, at the sender. The steady-state window
        // opens at 2 s.
        let text = r#"
            duration = "6s"
            [topology]
            bottleneck = { rate = "20Mbps", delay = "15ms", buffer = "1bdp" }
            access = { rate = "200Mbps", delay = "2ms" }
            [[flows]]
            cc = "newreno"
            [output]
            interval = "10ms"
            steady_from = "2s"
        "#;
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        assert_eq!(links, [false, true, false, true, true, false]);
        assert!(folded < unfolded);
    }

    #[test]
    fn two_way_traffic_folds_nothing() {
        // Flows in both directions share both bottleneck directions, identical flows start
        // together (simultaneous events everywhere), one is traced: data flows both ways, so
        // nothing folds, and the run is the unfolded one.
        let text = r#"
            duration = "6s"
            seed = 2
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 40, ecn_threshold = 10,
                           reverse = { rate = "5Mbps", buffer = 20 } }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "newreno"
            count = 3
            [[flows]]
            cc = "dctcp"
            ecn = true
            extra_rtt = "10ms"
            [[flows]]
            cc = "bbr"
            direction = "reverse"
            start = "1s"
            [[flows]]
            cc = "cubic"
            direction = "reverse"
            size = "300KB"
            start = "2s"
            [output]
            interval = "10ms"
            trace_packets = [1, 4]
        "#;
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        assert!(
            links.iter().all(|folded| !folded),
            "data both ways: no fold"
        );
        assert_eq!(folded, unfolded);
    }

    #[test]
    fn parking_lot_and_graph_routes() {
        let parking_lot = r#"
            duration = "4s"
            [topology]
            kind = "parking-lot"
            hops = 3
            link = { rate = "20Mbps", delay = "5ms", buffer = "1bdp" }
            hop2 = { rate = "10Mbps" }
            access = { rate = "1Gbps", delay = "1ms" }
            [[flows]]
            cc = "reno"
            [[flows]]
            cc = "cubic"
            route = { from = 1, to = 2 }
            [[flows]]
            cc = "reno"
            route = { from = 2, to = 3 }
            start = "500ms"
            [output]
            interval = "10ms"
        "#;
        let (folded, unfolded, _) = assert_folding_changes_nothing(parking_lot);
        assert!(folded < unfolded);
    }

    #[test]
    fn hops_behind_a_discipline_or_jitter_are_not_folded() {
        // CoDel decides at dequeue and the bottleneck's jitter at each packet: the access
        // links behind them are fed by events, so they do not fold.
        for bottleneck in [
            r#"{ rate = "10Mbps", delay = "10ms", buffer = 50, queue = "codel" }"#,
            r#"{ rate = "10Mbps", delay = "10ms", buffer = 50, jitter = { max = "2ms" } }"#,
        ] {
            let text = format!(
                r#"
                duration = "3s"
                [topology]
                bottleneck = {bottleneck}
                access = {{ rate = "100Mbps", delay = "1ms" }}
                [[flows]]
                cc = "newreno"
                count = 2
                drop = [30]
                [output]
                interval = "10ms"
            "#
            );
            // Links: the two bottleneck directions, then per flow sender up, sender down,
            // receiver down, receiver up. The receivers' access links are fed by the
            // bottleneck's events; the reverse direction keeps drop-tail (CoDel is the
            // forward direction's) but shares the jitter.
            let (_, _, links) = assert_folding_changes_nothing(&text);
            assert_eq!(links[0..2], [false, false]);
            assert!(!links[4] && !links[8], "{links:?}");
            let jitter = bottleneck.contains("jitter");
            assert_eq!((links[3], links[7]), (!jitter, !jitter), "{links:?}");
        }
    }

    #[test]
    fn handshakes_pacing_and_a_reverse_flow() {
        // Found by the property tests: two paced flows forward, one reverse flow, every
        // connection opened with a handshake, loss in both directions.
        let text = r#"
            duration = "643ms"
            seed = 0
            [topology]
            bottleneck = { rate = "10061kbps", delay = "29ms", buffer = "36KB",
                           loss = { model = "bernoulli", p = 0.0036295851979900244 },
                           ack_loss = 0.04917405492904109 }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "reno"
            direction = "reverse"
            delayed_ack = false
            handshake = true
            [[flows]]
            cc = "africa"
            slow_start = "hystart"
            count = 2
            initial_window = 11
            receive_window = 15
            pacing = true
            handshake = true
            [output]
            interval = "10ms"
            trace_packets = [0, 1, 2]
        "#;
        let (folded, unfolded, _) = assert_folding_changes_nothing(text);
        // A reverse flow: data both ways, nothing folds.
        assert_eq!(folded, unfolded);
    }

    #[test]
    fn shared_tcbs_and_reverse_transfers() {
        // Found by the property tests: a flow sharing its TCB, two reverse transfers that
        // share theirs temporally, loss in both directions, every flow traced.
        let text = r#"
            duration = "212ms"
            seed = 0
            [topology]
            bottleneck = { rate = "4790kbps", delay = "26ms", buffer = "0.25bdp",
                           loss = { model = "bernoulli", p = 0.04908800751353016 },
                           ack_loss = { model = "bernoulli", p = 0.028272793246775625 } }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "reno"
            delayed_ack = false
            sharing = "aggregate"
            join = "burst"
            [[flows]]
            cc = "compound"
            slow_start = "smooth-start"
            direction = "reverse"
            count = 2
            size = 89432
            recovery = "newreno"
            receive_window = "auto"
            sharing = "temporal"
            [output]
            interval = "10ms"
            steady_from = "85ms"
            trace_packets = [0, 1, 2]
            rate_interval = "150ms"
        "#;
        let (folded, unfolded, _) = assert_folding_changes_nothing(text);
        // A reverse flow: data both ways, nothing folds.
        assert_eq!(folded, unfolded);
    }

    /// The links a workload's slots fold: sender up, sender down, receiver down, receiver up.
    fn slot_folds(text: &str) -> Vec<[bool; 4]> {
        let scenario =
            cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
        let simulation = Simulation::new(&scenario);
        simulation
            .workloads
            .groups
            .iter()
            .map(|w| w.folded_access)
            .collect()
    }

    #[test]
    fn workload_slots_fold_the_access_links_behind_the_bottleneck() {
        // Short CUBIC flows at 90 % of a 20 Mbit/s bottleneck with a small buffer and random
        // loss both ways, beside a long flow and a short one: connections overlap (several
        // slots), slots are reused, flows lose segments at the bottleneck's overflow and at
        // random, and some are longer than a slot's first window. A slot's receiver-down link
        // (fed by the bottleneck only) and sender-down link (fed by the reverse direction
        // only) fold; the reverse direction, fed by every slot's receiver, does not.
        let text = r#"
            duration = "3s"
            seed = 5
            [topology]
            bottleneck = { rate = "20Mbps", delay = "5ms", buffer = "0.5bdp", loss = 0.002,
                           ack_loss = 0.002 }
            access = { rate = "1Gbps", delay = "1ms" }
            [[flows]]
            cc = "cubic"
            [[flows]]
            cc = "newreno"
            size = "200KB"
            start = "1s"
            [[flows]]
            kind = "workload"
            cc = "cubic"
            load = 0.9
            sizes = { distribution = "exponential", mean = "30KB" }
            [output]
            interval = "10ms"
            trace_packets = [1]
        "#;
        assert_eq!(slot_folds(text), [[false, true, true, false]]);
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        // Links: the two bottleneck directions, then per flow sender up, sender down, receiver
        // down, receiver up: the static flows' links behind the bottleneck fold as the slots'.
        assert_eq!(links[..6], [false, false, false, true, true, false]);
        assert_eq!(links[6..], [false, true, true, false]);
        let (result, sink, _) = run(text, true);
        let w = &result.workloads[0];
        assert!(w.slots > 3, "{} slots", w.slots);
        assert!(
            w.arrivals > 2 * w.slots as u64,
            "slots are reused: {} arrivals in {} slots",
            w.arrivals,
            w.slots
        );
        assert!(sink.finished.iter().any(|f| f.retransmissions > 0));
        assert!(sink.finished.iter().any(|f| f.size_bytes > 100_000));
        assert!(
            result.links[0].stats.overflow_drops > 0,
            "the buffer overflows"
        );
        assert!(folded < unfolded);
    }

    #[test]
    fn two_workloads_with_handshakes_fold_alike() {
        // Two workloads, one opening and closing its connections with handshakes, the other
        // with a longer RTT, and a short transfer late in the run: before the first arrival
        // nothing crosses the bottleneck, yet the slots made later fold as their stand-ins
        // did.
        let text = r#"
            duration = "2s"
            seed = 9
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 40, loss = 0.005 }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "cubic"
            size = "100KB"
            start = "1500ms"
            [[flows]]
            kind = "workload"
            cc = "newreno"
            load = 0.4
            sizes = { distribution = "exponential", mean = "20KB" }
            handshake = true
            [[flows]]
            kind = "workload"
            cc = "cubic"
            load = 0.4
            sizes = { distribution = "fixed", mean = "15000B" }
            extra_rtt = "6ms"
            start = "200ms"
            [output]
            interval = "10ms"
        "#;
        assert_eq!(slot_folds(text), [[false, true, true, false]; 2]);
        let (folded, unfolded, _) = assert_folding_changes_nothing(text);
        let (result, _, _) = run(text, true);
        assert!(result.workloads.iter().all(|w| w.finished > 10));
        assert!(folded < unfolded);
    }

    #[test]
    fn workload_slots_that_could_overflow_fold_nothing_behind_the_bottleneck() {
        // Access links slower than the bottleneck, with a small buffer: a slot's receiver-down
        // link overflows, and a slot's drop frees its slot when it is the last packet, so it
        // must be counted when it happens: the slots' links do not fold; the
        // bottleneck then does not hand every packet to folded links, so the plain flow's
        // receiver-down link does not fold either.
        let text = r#"
            duration = "2s"
            seed = 4
            [topology]
            bottleneck = { rate = "100Mbps", delay = "5ms", buffer = 60 }
            access = { rate = "40Mbps", delay = "1ms", buffer = 8 }
            [[flows]]
            cc = "cubic"
            [[flows]]
            kind = "workload"
            cc = "cubic"
            load = 0.6
            sizes = { distribution = "exponential", mean = "30KB" }
            [output]
            interval = "10ms"
        "#;
        let slots = slot_folds(text);
        assert!(!slots[0][2], "{slots:?}");
        let (_, _, links) = assert_folding_changes_nothing(text);
        assert!(!links[4], "{links:?}");
        let (result, sink, _) = run(text, false);
        assert!(result.workloads[0].finished > 10);
        assert!(
            sink.finished.iter().any(|f| f.retransmissions > 0),
            "slots lose segments"
        );
    }

    #[test]
    fn a_reverse_workload_beside_a_forward_flow_folds_nothing() {
        // The workload's data crosses the reverse direction, which carries the forward
        // flow's ACKs: data both ways, so neither the topology's links nor the slots' fold.
        let text = r#"
            duration = "2s"
            seed = 3
            [topology]
            bottleneck = { rate = "20Mbps", delay = "5ms", buffer = 60 }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "cubic"
            [[flows]]
            kind = "workload"
            cc = "cubic"
            direction = "reverse"
            load = 0.5
            sizes = { distribution = "exponential", mean = "30KB" }
            [output]
            interval = "10ms"
        "#;
        assert_eq!(slot_folds(text), [[false; 4]]);
        let (folded, unfolded, links) = assert_folding_changes_nothing(text);
        assert!(links.iter().all(|folded| !folded));
        assert_eq!(folded, unfolded);
    }
}
