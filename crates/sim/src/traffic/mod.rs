//! Traffic sources other than a TCP flow's own bulk or sized transfer: unresponsive UDP
//! sources, on/off applications driving a TCP sender, and workloads of short TCP flows
//! arriving at random. Each file owns one kind; the simulation dispatches their events.

pub mod on_off;
pub mod periods;
pub mod sizes;
pub mod udp;
pub mod workload;
