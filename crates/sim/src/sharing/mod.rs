//! TCB sharing between connections (issue 12, docs/sharing.md): the groups of a run.
//!
//! - `group.rs`: the coupled controller's bookkeeping (`sharing = "aggregate"`, seed-spec
//!   §3.4, RFC 8699 Algorithm 2 carried over to windows);
//! - `join.rs`: a joiner's first RTT, ACK-clocked ("Start Me Up"), paced or a burst;
//! - `temporal.rs`: RFC 9040 temporal sharing's cache (`sharing = "temporal"`).
//!
//! A group is shared by its members' senders (`tcp/sender/sharing.rs` holds the handle and
//! the hooks), and by the simulator, which wakes ACK-clocked joiners and samples the
//! aggregate. The simulation is single-threaded: a reference-counted cell is all it takes.

pub mod group;
pub mod join;
pub mod temporal;

use std::cell::RefCell;
use std::rc::Rc;

use cclab_scenario::Scenario;
use cclab_scenario::sharing::SharingMode;

pub use group::{Change, Group, Member};
pub use join::Handover;
pub use temporal::{CachedTcb, InitialTcb, TemporalCache};

/// A group as its members hold it.
pub type GroupHandle = Rc<RefCell<SharedGroup>>;

/// One group: the coupled controller (used with `aggregate`) and the temporal cache (used
/// with `temporal`).
#[derive(Debug)]
pub struct SharedGroup {
    pub group: Group,
    pub temporal: TemporalCache,
}

impl SharedGroup {
    pub fn mode(&self) -> SharingMode {
        self.group.options.mode
    }
}

/// Every group of a run, and each flow's membership.
#[derive(Debug, Default)]
pub struct Groups {
    pub groups: Vec<GroupHandle>,
    /// Per flow that exists from the start: its group and member index.
    pub membership: Vec<Option<(u32, usize)>>,
}

impl Groups {
    /// The groups of `scenario`, or `None` when no flow shares state (the common case costs
    /// nothing more).
    pub fn new(scenario: &Scenario) -> Option<Box<Groups>> {
        if scenario.flows.iter().all(|g| g.sharing.is_none()) {
            return None;
        }
        let mut groups = Groups::default();
        let mut names: Vec<String> = Vec::new();
        for table in &scenario.flows {
            for _ in 0..table.count {
                let flow = groups.membership.len() as u32;
                let Some(sharing) = &table.sharing else {
                    groups.membership.push(None);
                    continue;
                };
                let index = match names.iter().position(|n| *n == sharing.group) {
                    Some(i) => i,
                    None => {
                        names.push(sharing.group.clone());
                        groups.groups.push(Rc::new(RefCell::new(SharedGroup {
                            group: Group::new(sharing.group.clone(), sharing.clone(), table.mss),
                            temporal: TemporalCache::default(),
                        })));
                        names.len() - 1
                    }
                };
                let slot = groups.groups[index]
                    .borrow_mut()
                    .group
                    .add_member(flow, sharing.priority);
                groups.membership.push(Some((index as u32, slot)));
            }
        }
        Some(Box::new(groups))
    }

    /// The group names, in order (outputs).
    pub fn names(&self) -> Vec<String> {
        self.groups
            .iter()
            .map(|g| g.borrow().group.name.clone())
            .collect()
    }
}

impl crate::simulation::Simulation {
    /// Make every grouped flow's sender a member of its group.
    pub(crate) fn attach_groups(&mut self, scenario: &Scenario) {
        let Some(groups) = self.sharing.as_deref() else {
            return;
        };
        let mut id = 0usize;
        for table in &scenario.flows {
            for _ in 0..table.count {
                if let Some(Some((group, slot))) = groups.membership.get(id) {
                    let handle = Rc::clone(&groups.groups[*group as usize]);
                    self.flows[id].endpoints.get().sender.attach_group(
                        handle,
                        *slot,
                        table.initial_window,
                    );
                }
                id += 1;
            }
        }
    }

    /// After a member's ACK: let the joiners whose hand-over it released send.
    #[cold]
    #[inline(never)]
    pub(crate) fn wake_joiners(&mut self) {
        let Some(groups) = self.sharing.as_deref() else {
            return;
        };
        let mut woken = Vec::new();
        for group in &groups.groups {
            woken.append(&mut group.borrow_mut().group.wake);
        }
        woken.sort_unstable();
        woken.dedup();
        for id in woken {
            let flow = &mut self.flows[id as usize];
            if !flow.started {
                continue;
            }
            flow.endpoints
                .get()
                .sender
                .on_group_release(self.now, &mut self.outbox);
            self.after_sender(id);
        }
    }

    /// Every group's aggregate at a sampling tick (`groups.csv`).
    #[cold]
    #[inline(never)]
    pub(crate) fn sample_groups(&self, sink: &mut dyn crate::trace::TraceSink) {
        let Some(groups) = self.sharing.as_deref() else {
            return;
        };
        for (index, shared) in groups.groups.iter().enumerate() {
            let shared = shared.borrow();
            let group = &shared.group;
            if shared.mode() != SharingMode::Aggregate {
                continue;
            }
            sink.group_sample(&crate::trace::GroupSample {
                time: self.now,
                group: index as u32,
                members: group.active_members() as u32,
                priority_sum: group.priority_sum,
                aggregate_cwnd_bytes: group.aggregate_cwnd,
                aggregate_ssthresh_bytes: (group.aggregate_ssthresh != cclab_cc::UNLIMITED)
                    .then_some(group.aggregate_ssthresh),
                frozen: group.frozen_until.is_some_and(|until| self.now < until),
            });
        }
    }

    /// Flow `id`'s group and assigned window, for its time-series row.
    pub(crate) fn shared_sample(&self, id: usize) -> Option<crate::trace::SharedSample> {
        let groups = self.sharing.as_deref()?;
        let (group, _) = (*groups.membership.get(id)?)?;
        let (_, assigned) = self.flows[id].endpoints.get_ref().sender.shared_window()?;
        Some(crate::trace::SharedSample {
            group,
            assigned_cwnd_bytes: assigned,
        })
    }
}
