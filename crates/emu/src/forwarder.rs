//! The loop between the two TUN devices: every packet the sender's kernel routes to its TUN
//! goes through the bottleneck's forward direction and is written to the receiver's TUN at
//! the time the link computes, and ACKs come back through the reverse direction.
//!
//! One thread does it all, sleeping in `ppoll` until a packet can be read or the next event
//! is due (a delivery, the end of a transmission, a queue sample). Its timer slack is set to
//! 1 ns (`PR_SET_TIMERSLACK`; the default 50 µs would add to every delay) and it asks for
//! real-time priority (`SCHED_FIFO`), which it may not get; how late it wrote each packet
//! is recorded, so the run reports its own fidelity.

use std::time::Instant;

use cclab_cc::{SimDuration, SimTime};
use cclab_sim::packet::{Ecn, PacketKind};

use crate::error::EmuError;
use crate::plan::BASE_PORT;
use crate::shaper::{Header, Shaper};
use crate::tun::Tun;

/// One row of queue.csv.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueSample {
    pub time: SimTime,
    pub packets: u64,
    pub bytes: u64,
    pub drops: u64,
    pub tx_bytes: u64,
}

/// What the forwarder measured about itself.
#[derive(Clone, Debug, Default)]
pub struct Fidelity {
    /// Per packet written, how long after its due time (ns), both directions.
    pub lateness_ns: Vec<u64>,
    /// The packets written more than [`LATE_NS`] after their due time: (due time, lateness
    /// in ns). After such a moment the emulator writes what it owes at once, a burst the
    /// link would not have sent (output.rs: `late_episodes`).
    pub late: Vec<(SimTime, u64)>,
    /// Forward direction: wire bytes written, and the first and last write (actual and due).
    pub forward_bytes: u64,
    pub first_write: Option<(SimTime, SimTime)>,
    pub last_write: Option<(SimTime, SimTime)>,
    /// Packets that were not IPv4 (e.g. IPv6 neighbour discovery), not forwarded.
    pub ignored: u64,
    pub write_errors: u64,
    /// Packets the kernels sent into the TUN devices that their rings had no room for, so
    /// the emulator never saw them: losses before the emulated links (`emulation.rs`).
    pub ingress_drops: u64,
    pub realtime: bool,
    /// The machine while forwarding: the share of CPU time taken by other virtual machines
    /// (steal, /proc/stat) and the 1-minute load average at the end (/proc/loadavg).
    pub steal_fraction: Option<f64>,
    pub load_average: Option<f64>,
}

impl Fidelity {
    /// A packet due at `due` was written at `at`.
    fn record_lateness(&mut self, due: SimTime, at: SimTime) {
        let late = at.saturating_since(due).as_nanos();
        self.lateness_ns.push(late);
        if late > LATE_NS {
            self.late.push((due, late));
        }
    }
}

/// A write this late (1 ms, the keep-up bound of the 99th percentile) is recorded with its
/// time in [`Fidelity::late`].
pub const LATE_NS: u64 = 1_000_000;

/// (steal, total) jiffies of all CPUs so far (proc(5): the `cpu` line of /proc/stat).
pub fn cpu_jiffies() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice, inside user/nice]
    let steal = *fields.get(7)?;
    Some((steal, fields.iter().take(8).sum()))
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

pub struct Forwarder {
    pub sender: Tun,
    pub receiver: Tun,
    pub forward: Shaper,
    pub reverse: Shaper,
    epoch: Instant,
    pub samples: Vec<QueueSample>,
    pub fidelity: Fidelity,
}

/// What a packet read from a TUN is, for the link (its discipline may look at the flow,
/// the kind and the ECN field).
fn classify(packet: &[u8], data_direction: bool) -> Option<Header> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    let ecn = match packet[1] & 0b11 {
        0b00 => Ecn::NotEct,
        0b10 => Ecn::Ect,
        0b01 => Ecn::Ect1,
        _ => Ecn::Ce,
    };
    let ip_header = (packet[0] & 0x0f) as usize * 4;
    let total = (u16::from_be_bytes([packet[2], packet[3]]) as usize).min(packet.len());
    // Not TCP (ICMP): one flow, an ACK-sized control packet.
    let mut header = Header {
        flow: 0,
        kind: PacketKind::Ack,
        payload: 0,
        ecn,
    };
    if packet[9] == libc::IPPROTO_TCP as u8 && total >= ip_header + 20 {
        let tcp = &packet[ip_header..total];
        let port = if data_direction {
            u16::from_be_bytes([tcp[2], tcp[3]])
        } else {
            u16::from_be_bytes([tcp[0], tcp[1]])
        };
        let tcp_header = (tcp[12] >> 4) as usize * 4;
        header.flow = port.saturating_sub(BASE_PORT) as u32;
        header.payload = tcp.len().saturating_sub(tcp_header) as u32;
        // The link draws a data packet's or a SYN's loss from the data loss process, the
        // others' from the ACK loss process (as the simulator's handshake does).
        let (syn, ack) = (tcp[13] & 0x02 != 0, tcp[13] & 0x10 != 0);
        header.kind = match (syn, ack) {
            (true, false) => PacketKind::Syn,
            (true, true) => PacketKind::SynAck,
            _ if header.payload > 0 => PacketKind::Data,
            _ => PacketKind::Ack,
        };
    }
    Some(header)
}

impl Forwarder {
    pub fn new(sender: Tun, receiver: Tun, forward: Shaper, reverse: Shaper) -> Self {
        Forwarder {
            sender,
            receiver,
            forward,
            reverse,
            epoch: Instant::now(),
            samples: Vec::new(),
            fidelity: Fidelity::default(),
        }
    }

    fn now(&self) -> SimTime {
        SimTime::from_nanos(self.epoch.elapsed().as_nanos() as u64)
    }

    /// Forward until `end`, sampling the bottleneck's queue every `interval`; time zero is
    /// now.
    pub fn run(&mut self, end: SimTime, interval: SimDuration) -> Result<(), EmuError> {
        // SAFETY: prctl and sched_setscheduler on the calling thread, arguments by value.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
            let param = libc::sched_param { sched_priority: 10 };
            self.fidelity.realtime = libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0;
        }
        self.epoch = Instant::now();
        let jiffies_before = cpu_jiffies();
        let mut next_sample = SimTime::ZERO + interval;
        let mut buf = vec![0u8; 65536];
        loop {
            let now = self.now();
            if now >= end {
                break;
            }
            self.run_due(now);
            while next_sample <= now {
                self.sample(next_sample, now);
                next_sample += interval;
            }
            let deadline = [
                self.forward.next_deadline(),
                self.reverse.next_deadline(),
                Some(next_sample),
                Some(end),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(end);
            let wait = deadline.saturating_since(self.now());
            let (sender_ready, receiver_ready) = self.poll(wait)?;
            if sender_ready {
                self.drain(true, &mut buf)?;
            }
            if receiver_ready {
                self.drain(false, &mut buf)?;
            }
        }
        // Close the queue statistics at the end.
        self.forward.link.finish(end.max(self.now()));
        if let (Some((steal0, total0)), Some((steal1, total1))) = (jiffies_before, cpu_jiffies())
            && total1 > total0
        {
            self.fidelity.steal_fraction =
                Some((steal1 - steal0) as f64 / (total1 - total0) as f64);
        }
        self.fidelity.load_average = load_average();
        Ok(())
    }

    fn poll(&self, wait: SimDuration) -> Result<(bool, bool), EmuError> {
        let mut fds = [
            libc::pollfd {
                fd: self.sender.raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.receiver.raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let nanos = wait.as_nanos();
        let timeout = libc::timespec {
            tv_sec: (nanos / 1_000_000_000) as libc::time_t,
            tv_nsec: (nanos % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: two valid pollfd entries, a valid timespec, no signal mask change.
        let rc = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &timeout, std::ptr::null()) };
        if rc < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == std::io::ErrorKind::Interrupted {
                return Ok((false, false));
            }
            return Err(EmuError::io("ppoll on the TUN devices", error));
        }
        Ok((fds[0].revents != 0, fds[1].revents != 0))
    }

    /// Read what a TUN holds (at most a batch, so deliveries are not held up) and offer each
    /// packet to its direction at the time it was read.
    fn drain(&mut self, from_sender: bool, buf: &mut [u8]) -> Result<(), EmuError> {
        for _ in 0..64 {
            let tun = if from_sender {
                &self.sender
            } else {
                &self.receiver
            };
            let n = match tun.read(buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => return Err(EmuError::io(format!("reading {}", tun.name), e)),
            };
            let now = self.now();
            self.run_due(now);
            let Some(header) = classify(&buf[..n], from_sender) else {
                self.fidelity.ignored += 1;
                continue;
            };
            let shaper = if from_sender {
                &mut self.forward
            } else {
                &mut self.reverse
            };
            shaper.offer(now, header, buf[..n].to_vec());
        }
        Ok(())
    }

    /// Write every packet due by `now` to its far end.
    fn run_due(&mut self, now: SimTime) {
        let fidelity = &mut self.fidelity;
        let receiver = &self.receiver;
        let epoch = self.epoch;
        let written_at = || SimTime::from_nanos(epoch.elapsed().as_nanos() as u64);
        self.forward.run_due(now, |bytes, due| {
            let at = written_at();
            if receiver.write(&bytes).is_err() {
                fidelity.write_errors += 1;
            }
            fidelity.record_lateness(due, at);
            fidelity.forward_bytes += bytes.len() as u64;
            fidelity.first_write.get_or_insert((at, due));
            fidelity.last_write = Some((at, due));
        });
        let sender = &self.sender;
        self.reverse.run_due(now, |bytes, due| {
            let at = written_at();
            if sender.write(&bytes).is_err() {
                fidelity.write_errors += 1;
            }
            fidelity.record_lateness(due, at);
        });
    }

    /// A queue.csv row for the tick `time`, read at `now` (a little later: the wakeup's
    /// latency; the link's state only moves forward).
    fn sample(&mut self, time: SimTime, now: SimTime) {
        let (packets, bytes) = self.forward.link.queue_at(now);
        let stats = self.forward.link.stats();
        self.samples.push(QueueSample {
            time,
            packets,
            bytes,
            drops: stats.drops(),
            tx_bytes: stats.bytes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/TCP packet: 20-byte IP header, 32-byte TCP header (timestamps), `payload`.
    fn tcp_packet(source_port: u16, destination_port: u16, payload: usize, tos: u8) -> Vec<u8> {
        let total = 20 + 32 + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[1] = tos;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[20..22].copy_from_slice(&source_port.to_be_bytes());
        p[22..24].copy_from_slice(&destination_port.to_be_bytes());
        p[20 + 12] = 8 << 4;
        p
    }

    #[test]
    fn data_and_acks_are_told_apart_and_mapped_to_their_flow() {
        let data = classify(&tcp_packet(40000, BASE_PORT + 2, 1448, 0b10), true).expect("IPv4");
        assert_eq!(data.flow, 2);
        assert_eq!(data.kind, PacketKind::Data);
        assert_eq!(data.payload, 1448);
        assert_eq!(data.ecn, Ecn::Ect);
        let ack = classify(&tcp_packet(BASE_PORT + 2, 40000, 0, 0), false).expect("IPv4");
        assert_eq!(ack.flow, 2);
        assert_eq!(ack.kind, PacketKind::Ack);
        let mut syn = tcp_packet(40000, BASE_PORT, 0, 0);
        syn[20 + 13] = 0x02;
        assert_eq!(classify(&syn, true).expect("IPv4").kind, PacketKind::Syn);
        syn[20 + 13] = 0x12;
        assert_eq!(
            classify(&syn, false).expect("IPv4").kind,
            PacketKind::SynAck
        );
        let mut ipv6 = tcp_packet(1, 2, 0, 0);
        ipv6[0] = 0x60;
        assert_eq!(classify(&ipv6, true), None);
    }
}
