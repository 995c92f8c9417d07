//! The network a run forwards packets over: its links, the links that outputs report, and
//! every flow's source routes, built once from the scenario by a topology builder
//! (`crate::topology`).
//!
//! Routes are stored back to back in one `Vec<u32>` of link ids; a flow holds two [`Path`]s
//! (its data path and its ACK path), each an offset and a length into that vector. A packet's
//! `hop` indexes its path, so forwarding a packet is one load from a shared vector, with no
//! per-flow heap allocation whatever the path length.

use crate::net::link::Link;
use crate::net::wifi::Medium;

/// Longest path a packet can take: `Packet::hop` is a `u8`.
pub const MAX_PATH_LINKS: usize = u8::MAX as usize + 1;

/// A flow's path in one direction: `len` link ids from `start` in [`Network::hops`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Path {
    pub start: u32,
    pub len: u32,
}

/// A flow's two paths: data from its sender to its receiver, ACKs back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    pub data: Path,
    pub ack: Path,
}

/// What `packets.csv` calls a link where a traced packet was dropped: a flow's own access
/// links by their role (every flow has its own, so their names would only repeat the flow
/// id), every other link by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkRole {
    /// A shared link, named in every output by [`Link::name`].
    Core,
    /// One of a flow's two links between its sender and the network.
    SenderAccess,
    /// One of a flow's two links between the network and its receiver.
    ReceiverAccess,
}

pub struct Network {
    pub links: Vec<Link>,
    /// Per link: its role, for the names of drop locations.
    pub roles: Vec<LinkRole>,
    /// The links outputs report (`summary.json` `links[]`, `queue.csv`, the queue figure),
    /// in the order they are reported: every link that can queue, no per-flow access link.
    pub reported: Vec<u32>,
    /// Every path, back to back.
    pub hops: Vec<u32>,
    /// Per flow, by flow id.
    pub routes: Vec<Routes>,
    /// The Wi-Fi medium, if a link is a Wi-Fi link (its two directions are links above).
    pub wifi: Option<Box<Medium>>,
}

impl Network {
    /// An empty network with room for `links` links, `flows` flows and `hops` path entries
    /// (with 100 000 flows, growing the vectors by doubling copied hundreds of megabytes).
    pub fn with_capacity(links: usize, flows: usize, hops: usize) -> Self {
        Network {
            links: Vec::with_capacity(links),
            roles: Vec::with_capacity(links),
            reported: Vec::new(),
            hops: Vec::with_capacity(hops),
            routes: Vec::with_capacity(flows),
            wifi: None,
        }
    }

    /// Add a link; its id is its index.
    pub fn add_link(&mut self, link: Link, role: LinkRole) -> u32 {
        self.links.push(link);
        self.roles.push(role);
        self.links.len() as u32 - 1
    }

    /// Report `link` in the outputs, after those reported so far.
    pub fn report(&mut self, link: u32) {
        self.reported.push(link);
    }

    fn add_path(&mut self, links: &[u32]) -> Path {
        debug_assert!(
            !links.is_empty() && links.len() <= MAX_PATH_LINKS,
            "a path has 1 to {MAX_PATH_LINKS} links (the topology builders ensure it)"
        );
        let start = self.hops.len() as u32;
        self.hops.extend_from_slice(links);
        Path {
            start,
            len: links.len() as u32,
        }
    }

    /// Add the next flow's routes (flow ids are given in order, from 0).
    pub fn add_flow(&mut self, data: &[u32], ack: &[u32]) -> Routes {
        let routes = Routes {
            data: self.add_path(data),
            ack: self.add_path(ack),
        };
        self.routes.push(routes);
        routes
    }

    /// The link ids of a path.
    pub fn path(&self, path: Path) -> &[u32] {
        &self.hops[path.start as usize..(path.start + path.len) as usize]
    }

    /// A link's id from its name (names are unique within a network).
    pub fn link_id(&self, name: &str) -> Option<u32> {
        self.links
            .iter()
            .position(|l| l.name() == name)
            .map(|i| i as u32)
    }
}

/// The name `packets.csv` gives a drop on `link`.
pub fn drop_location<'a>(links: &'a [Link], roles: &[LinkRole], link: u32) -> &'a str {
    match roles[link as usize] {
        LinkRole::Core => links[link as usize].name(),
        LinkRole::SenderAccess => "sender-access",
        LinkRole::ReceiverAccess => "receiver-access",
    }
}
