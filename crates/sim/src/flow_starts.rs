//! The flows' start events, one pending at a time. Every flow's `FlowStart` used to be
//! scheduled by `Simulation::new`, all at once: at 100 000 flows, 100 000 entries in the
//! event queue's heap and slots (about 11 MB, kept as the queue's room to the run's end, and
//! 12 000 more entries for every event's sift in busy runs: docs/performance.md, "Memory per
//! idle flow"). Now the flows are sorted by (start, id) once, only the next start is in the
//! queue, and each start, when it runs, schedules the one after it.
//!
//! The order of events is unchanged. Each start carries exactly the precedence and insertion
//! order it had when all were scheduled at the beginning in flow order (their insertion
//! numbers are reserved up front: [`EventQueue::reserve`]), and the queue's order is total
//! on those keys, so it matters only that each start is in the queue before it is due: a
//! start sorts after the one before it in the chain (a later time, or the same time and a
//! higher id, hence rank), so the next start is always scheduled before it can be the
//! earliest event.

use cclab_cc::SimTime;

use crate::event::{Event, EventQueue, Precedence};

/// The flows whose starts are not in the queue yet, in the order they run.
#[derive(Debug, Default)]
pub(crate) struct FlowStarts {
    /// Flow ids by (start, id); emptied (and its room given back) when the last is scheduled.
    order: Vec<u32>,
    /// How many of `order` have been scheduled.
    scheduled: usize,
    /// The insertion numbers reserved for the starts: flow `id`'s is the `id`th.
    reserved: Precedence,
}

impl FlowStarts {
    /// Reserve the starts of `count` flows, flow `id` starting at `start(id)`, in `queue`,
    /// as if each were scheduled now in flow order, and schedule the first to run.
    pub(crate) fn new(
        count: u32,
        start: impl Fn(u32) -> SimTime,
        queue: &mut EventQueue,
    ) -> FlowStarts {
        let reserved = queue.reserve(count.into());
        let mut order: Vec<u32> = (0..count).collect();
        // (start, id) is unique, so an unstable sort gives the one order.
        order.sort_unstable_by_key(|&id| (start(id), id));
        let mut flow_starts = FlowStarts {
            order,
            scheduled: 0,
            reserved,
        };
        flow_starts.schedule_next(start, queue);
        flow_starts
    }

    /// Flow `id`'s start runs: schedule the next start in the chain.
    pub(crate) fn started(
        &mut self,
        id: u32,
        start: impl Fn(u32) -> SimTime,
        queue: &mut EventQueue,
    ) {
        debug_assert!(
            self.scheduled == 0 || self.order.get(self.scheduled - 1).is_none_or(|&s| s == id),
            "flow {id}'s start ran out of the chain's order"
        );
        self.schedule_next(start, queue);
    }

    fn schedule_next(&mut self, start: impl Fn(u32) -> SimTime, queue: &mut EventQueue) {
        let Some(&id) = self.order.get(self.scheduled) else {
            return;
        };
        self.scheduled += 1;
        let event = Event::FlowStart(id);
        queue.schedule_reserved(start(id), &self.reserved, id.into(), event);
        if self.scheduled == self.order.len() {
            self.order = Vec::new();
            self.scheduled = 0;
        }
    }

    /// Schedule every start still to come at once, as `Simulation::new` once did: tests
    /// compare the runs.
    #[cfg(test)]
    pub(crate) fn schedule_all(&mut self, start: impl Fn(u32) -> SimTime, queue: &mut EventQueue) {
        while !self.order.is_empty() {
            self.schedule_next(&start, queue);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_cc::SimDuration;
    use proptest::prelude::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    /// Pop every event of `queue` up to `end`; each popped event whose number is below
    /// `spawning` schedules another one a little later (a flow's first packet, timers), and a
    /// start tells `starts` it ran. Returns the events in the order they ran.
    fn drain(
        queue: &mut EventQueue,
        mut flow_starts: Option<(&mut FlowStarts, &[SimTime])>,
        spawn_delays: &[u64],
    ) -> Vec<(SimTime, Event)> {
        let mut popped = Vec::new();
        let mut spawned = 0;
        while let Some((time, event)) = queue.pop() {
            popped.push((time, event));
            if let (Event::FlowStart(id), Some((chain, starts))) = (event, flow_starts.as_mut()) {
                chain.started(id, |id| starts[id as usize], queue);
            }
            if let Some(&delay) = spawn_delays.get(spawned) {
                spawned += 1;
                // Also at the same time as the event, to tie with later starts.
                queue.schedule(time + SimDuration::from_nanos(delay), Event::Sample);
                queue.schedule(time, Event::UdpSend(spawned as u32));
            }
        }
        popped
    }

    proptest! {
        #[test]
        fn chained_starts_run_exactly_as_starts_scheduled_at_once(
            starts in proptest::collection::vec(0u64..20, 1..60),
            others in proptest::collection::vec(0u64..20, 0..10),
            spawn_delays in proptest::collection::vec(0u64..5, 0..80),
        ) {
            // Few distinct times, so that starts tie with each other and with other events.
            let starts: Vec<SimTime> = starts.into_iter().map(t).collect();
            let mut at_once = EventQueue::default();
            for (id, &start) in starts.iter().enumerate() {
                at_once.schedule(start, Event::FlowStart(id as u32));
            }
            let mut chained = EventQueue::default();
            let count = starts.len() as u32;
            let mut chain = FlowStarts::new(count, |id| starts[id as usize], &mut chained);
            // Events scheduled after the starts, as the workloads' and the sampling ticks.
            for (i, &other) in others.iter().enumerate() {
                at_once.schedule(t(other), Event::WorkloadArrival(i as u32));
                chained.schedule(t(other), Event::WorkloadArrival(i as u32));
            }
            prop_assert!(chained.len() <= 1 + others.len());
            let expected = drain(&mut at_once, None, &spawn_delays);
            let got = drain(&mut chained, Some((&mut chain, &starts)), &spawn_delays);
            prop_assert_eq!(got, expected);
            prop_assert!(chain.order.is_empty(), "every start ran");
        }
    }

    /// Three groups whose flows start together (one of them twice over, at 300 ms, with
    /// the other group's), with start jitter, a UDP flow, an on/off flow and a workload whose
    /// arrivals are scheduled after the starts, on a lossy bottleneck; 1.5 s.
    const STARTS_THAT_TIE: &str = r#"
        duration = "1500ms"
        seed = 5
        [topology]
        bottleneck = { rate = "20Mbps", delay = "5ms", buffer = 30, loss = 0.01 }
        access = { rate = "1Gbps", delay = "1ms" }
        [[flows]]
        cc = "reno"
        count = 12
        size = "15KB"
        start = "300ms"
        [[flows]]
        cc = "cubic"
        count = 8
        size = "8KB"
        start = "300ms"
        direction = "reverse"
        [[flows]]
        cc = "newreno"
        count = 20
        size = "4KB"
        start_jitter = "1s"
        [[flows]]
        kind = "udp"
        rate = "1Mbps"
        start = "300ms"
        [[flows]]
        cc = "cubic"
        on_off = { on = "100ms", off = "200ms" }
        [[flows]]
        kind = "workload"
        cc = "cubic"
        load = 0.3
        sizes = { distribution = "exponential", mean = "10KB" }
        [output]
        interval = "50ms"
        trace_packets = [0]
    "#;

    #[test]
    fn a_run_with_chained_starts_is_the_run_with_every_start_pending_at_once() {
        // The reference schedules every start still to come as soon as the simulation is
        // built, with the keys reserved for them, which are the ones `Simulation::new` gave
        // them scheduling each at once (the queue's first insertion numbers, at time 0).
        let (at_once, at_once_sink) = crate::simulation::run_text(STARTS_THAT_TIE, |s| {
            assert_eq!(s.flow_starts.reserved, Precedence::default());
            let flows = &s.flows;
            s.flow_starts
                .schedule_all(|id| flows[id as usize].start, &mut s.queue);
        });
        let (chained, chained_sink) = crate::simulation::run_text(STARTS_THAT_TIE, |_| {});
        assert_eq!(chained, at_once);
        assert_eq!(chained_sink.flows, at_once_sink.flows);
        assert_eq!(chained_sink.links, at_once_sink.links);
        assert_eq!(chained_sink.events, at_once_sink.events);
        assert_eq!(chained_sink.packets, at_once_sink.packets);
        assert!(!at_once_sink.packets.is_empty(), "flow 0 is traced");
        assert!(at_once.workloads.iter().any(|w| w.finished > 0));
        assert!(
            at_once.flows.iter().all(|f| f.packets_sent > 0),
            "every flow ran"
        );
    }

    #[test]
    fn only_the_next_start_is_pending_and_the_order_is_let_go_after_the_last() {
        let starts = [t(5), t(1), t(5), t(1)];
        let mut queue = EventQueue::default();
        let mut chain = FlowStarts::new(4, |id| starts[id as usize], &mut queue);
        let mut ran = Vec::new();
        while let Some((time, Event::FlowStart(id))) = queue.pop() {
            assert_eq!(queue.len(), 0, "one start pending at a time");
            ran.push((time, id));
            chain.started(id, |id| starts[id as usize], &mut queue);
        }
        assert_eq!(ran, [(t(1), 1), (t(1), 3), (t(5), 0), (t(5), 2)]);
        assert_eq!(chain.order.capacity(), 0);
    }
}
