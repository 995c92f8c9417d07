//! `[output] pcap`: which packets are captured, and where. The simulator hands captured
//! packets to the trace sink ([`crate::trace::TraceSink::capture`]) at sampling ticks; the
//! sink writes the pcap files (crates/analysis `pcap.rs`).
//!
//! A link capture observes a duplex link at one place, the far end of the link it names (as
//! `tcpdump` on that router's interface): packets of the named direction when they leave it
//! (after queueing, transmission and propagation), packets of the opposite direction when the
//! router hands them to it (before its queue, which may still drop them). A flow capture
//! observes the sender: its data segments when they leave it, the ACKs when they reach it.

use cclab_cc::SimTime;
use cclab_scenario::{PcapPoint, Scenario};

use crate::packet::Packet;

/// Where a captured packet was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapturePoint {
    /// The `[output] pcap` entry with this index (a link).
    Link(u16),
    /// Flow `id`'s sender (`pcap = ["flows"]`).
    Flow(u32),
}

/// One captured packet.
#[derive(Clone, Copy, Debug)]
pub struct Captured {
    pub point: CapturePoint,
    pub time: SimTime,
    /// Which connection of a workload slot (its arrival number); 0 for other flows. Pcap
    /// writers give each its own port, so that reused slots are separate TCP streams.
    pub stream: u64,
    pub packet: Packet,
}

/// No capture on this link.
const NONE: u16 = u16::MAX;

pub(crate) struct Captures {
    /// Per link id: the capture whose named direction this link is (seen on leaving it).
    leaving: Vec<u16>,
    /// Per link id: the capture whose opposite direction this link is (seen on entering).
    entering: Vec<u16>,
    pub(crate) flows: bool,
    /// Captured since the last sampling tick, in order.
    pub(crate) log: Vec<Captured>,
}

impl Captures {
    /// `None` when the scenario captures nothing. `names`: every link's name by id.
    pub(crate) fn new<'a>(
        scenario: &Scenario,
        names: impl Iterator<Item = &'a str> + Clone,
    ) -> Option<Box<Captures>> {
        let points = &scenario.output.pcap;
        if points.is_empty() {
            return None;
        }
        let count = names.clone().count();
        let mut captures = Captures {
            leaving: vec![NONE; count],
            entering: vec![NONE; count],
            flows: false,
            log: Vec::new(),
        };
        let id_of = |wanted: &str| names.clone().position(|n| n == wanted);
        let link_names = scenario.topology.link_names();
        for (index, point) in points.iter().enumerate() {
            let name = match point {
                PcapPoint::Flows => {
                    captures.flows = true;
                    continue;
                }
                PcapPoint::Link(name) => name,
            };
            // `link_names` lists each duplex link's two directions side by side.
            let position = link_names
                .iter()
                .position(|n| n == name)
                .expect("the parser accepts only names of the topology's links");
            let opposite = &link_names[position ^ 1];
            let index = u16::try_from(index).expect("a handful of capture points");
            if let Some(id) = id_of(name) {
                captures.leaving[id] = index;
            }
            if let Some(id) = id_of(opposite) {
                captures.entering[id] = index;
            }
        }
        Some(Box::new(captures))
    }

    /// The capture that sees packets leaving link `link`, if any.
    #[inline]
    pub(crate) fn on_leaving(&self, link: u32) -> Option<u16> {
        Some(self.leaving[link as usize]).filter(|&c| c != NONE)
    }

    /// The capture that sees packets entering link `link`, if any.
    #[inline]
    pub(crate) fn on_entering(&self, link: u32) -> Option<u16> {
        Some(self.entering[link as usize]).filter(|&c| c != NONE)
    }
}
