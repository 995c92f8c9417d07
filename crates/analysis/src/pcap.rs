//! pcap files of simulated packets (`[output] pcap`), for Wireshark, tshark and tcptrace.
//!
//! Each packet becomes an IPv4 datagram with a real TCP (or UDP) header: addresses and ports
//! per flow, 32-bit sequence and acknowledgment numbers, the window, the timestamp and SACK
//! options, the ECN field and ECE flag, and correct checksums. The model carries no payload
//! bytes: the snapshot length is the headers (the record's original length is the whole
//! datagram), unless `pcap_payload` asks for the payload as zeros. The checksums are those
//! of the whole datagram with a zero payload (zeros add nothing to the Internet checksum),
//! so they verify either way.
//!
//! File format: the classic libpcap format with nanosecond timestamps (magic 0xa1b23c4d),
//! link type LINKTYPE_RAW (101: each record starts with the IPv4 header).
//!
//! Addresses and ports (documented in docs/outputs.md): flow `f`'s sender is
//! 10.0.0.0 + 2f + 1 and its receiver the next address; the sender's port is
//! 10000 + (stream mod 50000) (a workload slot's connections get successive ports), the
//! receiver's 5201. Sequence numbers are the model's byte offsets + 1 (an initial sequence
//! number of 0 whose SYN took one), so Wireshark's relative numbers are the model's.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use cclab_scenario::{PcapPoint, Scenario};
use cclab_sim::capture::{CapturePoint, Captured};
use cclab_sim::packet::{Ecn, Packet, PacketKind, sack_option_bytes};
use cclab_sim::tcp::receive_window::window_scale;
use cclab_sim::trace::{FlowSample, LinkSample, TraceSink};

use crate::output::TemporaryFile;

/// The folder of pcap files in a run folder.
pub const PCAP_DIR: &str = "pcap";

/// pcap with nanosecond timestamps.
const MAGIC_NANOSECONDS: u32 = 0xa1b2_3c4d;
const LINKTYPE_RAW: u32 = 101;
const SNAPLEN: u32 = 65_535;
const IPV4_HEADER: usize = 20;
const TCP_HEADER: usize = 20;
const UDP_HEADER: usize = 8;
const RECEIVER_PORT: u16 = 5201;
const TCP_OPTION_NOP: u8 = 1;
const TCP_OPTION_SACK: u8 = 5;
const TCP_OPTION_TIMESTAMP: u8 = 8;
const FLAG_FIN: u8 = 0x01;
const FLAG_SYN: u8 = 0x02;
const FLAG_ACK: u8 = 0x10;
const FLAG_ECE: u8 = 0x40;

/// RFC 1071: the 16-bit one's-complement sum of `bytes` (odd length padded with a zero),
/// folded, added to `sum`.
fn ones_complement_sum(mut sum: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for pair in &mut chunks {
        sum += u16::from_be_bytes([pair[0], pair[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum
}

fn checksum(sum: u32) -> u16 {
    !(sum as u16)
}

/// Flow `flow`'s two addresses (sender, receiver).
fn addresses(flow: u32) -> ([u8; 4], [u8; 4]) {
    let sender = 0x0a00_0000u32 | (2 * flow + 1).min(0x00ff_fffe);
    (sender.to_be_bytes(), (sender + 1).to_be_bytes())
}

fn sender_port(stream: u64) -> u16 {
    10_000 + (stream % 50_000) as u16
}

/// What a flow's packets need from the scenario.
#[derive(Clone, Copy, Debug)]
struct FlowFacts {
    /// The receiver's window for the header's window field (unscaled, at most 65 535).
    window: u16,
    /// The window scale of an auto-tuned receiver's ACKs (from its `tcp_rmem`).
    window_scale: u32,
    udp: bool,
    /// `handshake = true` with a finite size: the segment ending at this byte carries the
    /// sender's FIN (unknown, so not shown, for a workload's flows).
    fin_after: Option<u64>,
}

/// Encodes packets into pcap records; one per file, since the ECE flag depends on the CE
/// count the file last saw for the flow.
struct Encoder {
    payload: bool,
    /// Per flow: the CE byte count of the last ACK seen, for the ECE flag.
    ce_seen: HashMap<u32, u64>,
    record: Vec<u8>,
}

impl Encoder {
    /// The pcap record of `captured` (header and data) in `self.record`.
    fn encode(&mut self, captured: &Captured, facts: FlowFacts) {
        let packet = &captured.packet;
        let (sender, receiver) = addresses(packet.flow);
        let (source, destination, source_port, destination_port) = if packet.kind.is_forward() {
            (
                sender,
                receiver,
                sender_port(captured.stream),
                RECEIVER_PORT,
            )
        } else {
            (
                receiver,
                sender,
                RECEIVER_PORT,
                sender_port(captured.stream),
            )
        };
        let mut transport = Vec::with_capacity(TCP_HEADER + 40);
        let protocol = if facts.udp {
            self.udp_header(packet, source_port, destination_port, &mut transport);
            17
        } else {
            self.tcp_header(
                captured,
                facts,
                source_port,
                destination_port,
                &mut transport,
            );
            6
        };
        let payload = if packet.kind == PacketKind::Data {
            packet.payload as usize
        } else {
            0
        };
        let total = IPV4_HEADER + transport.len() + payload;
        // The transport checksum over the pseudo-header (RFC 793 §3.1, RFC 768), the header
        // and a zero payload.
        let mut pseudo = Vec::with_capacity(12);
        pseudo.extend_from_slice(&source);
        pseudo.extend_from_slice(&destination);
        pseudo.extend_from_slice(&[0, protocol]);
        pseudo.extend_from_slice(&((transport.len() + payload) as u16).to_be_bytes());
        let sum = ones_complement_sum(ones_complement_sum(0, &pseudo), &transport);
        let mut transport_checksum = checksum(sum);
        if facts.udp && transport_checksum == 0 {
            transport_checksum = 0xffff; // RFC 768: zero means "no checksum"
        }
        let at = if facts.udp { 6 } else { 16 };
        transport[at..at + 2].copy_from_slice(&transport_checksum.to_be_bytes());

        let tos = match packet.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect => 2,
            Ecn::Ce => 3,
        };
        let mut ip = [0u8; IPV4_HEADER];
        ip[0] = 0x45;
        ip[1] = tos;
        ip[2..4].copy_from_slice(&(total.min(0xffff) as u16).to_be_bytes());
        ip[6] = 0x40; // DF
        ip[8] = 64; // TTL
        ip[9] = protocol;
        ip[12..16].copy_from_slice(&source);
        ip[16..20].copy_from_slice(&destination);
        let ip_checksum = checksum(ones_complement_sum(0, &ip));
        ip[10..12].copy_from_slice(&ip_checksum.to_be_bytes());

        let stored = IPV4_HEADER + transport.len() + if self.payload { payload } else { 0 };
        let nanos = captured.time.as_nanos();
        self.record.clear();
        self.record
            .extend_from_slice(&((nanos / 1_000_000_000) as u32).to_le_bytes());
        self.record
            .extend_from_slice(&((nanos % 1_000_000_000) as u32).to_le_bytes());
        self.record
            .extend_from_slice(&(stored as u32).to_le_bytes());
        self.record.extend_from_slice(&(total as u32).to_le_bytes());
        self.record.extend_from_slice(&ip);
        self.record.extend_from_slice(&transport);
        if self.payload {
            self.record.resize(self.record.len() + payload, 0);
        }
    }

    fn udp_header(&self, packet: &Packet, source: u16, destination: u16, out: &mut Vec<u8>) {
        out.extend_from_slice(&source.to_be_bytes());
        out.extend_from_slice(&destination.to_be_bytes());
        let length = (UDP_HEADER + packet.payload as usize).min(0xffff) as u16;
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(&[0, 0]); // checksum, filled in by the caller
    }

    fn tcp_header(
        &mut self,
        captured: &Captured,
        facts: FlowFacts,
        source: u16,
        destination: u16,
        out: &mut Vec<u8>,
    ) {
        let packet = &captured.packet;
        // Header bytes the model put on the wire, less the SACK option an ACK carries: the
        // options there are room for (12 with the default 52-byte headers: the timestamp
        // option and two NOPs).
        let sack_blocks = packet.sack_blocks();
        let payload = if packet.kind == PacketKind::Data {
            packet.payload
        } else {
            0
        };
        let headers = packet
            .wire_bytes
            .saturating_sub(payload)
            .saturating_sub(sack_option_bytes(sack_blocks.len())) as usize;
        let base_options = headers.saturating_sub(IPV4_HEADER + TCP_HEADER).min(40) / 4 * 4;
        let mut options = Vec::with_capacity(40);
        if base_options >= 12 {
            // RFC 7323 §3. A flow with `undo` stamps its segments (`Packet::ts`, µs ticks of
            // the sender's clock): a data segment's TSval, and an ACK's TSecr echoing it.
            // Other flows' packets carry no clock: TSval is the capture time in milliseconds
            // and TSecr 0.
            let capture_ms = (captured.time.as_nanos() / 1_000_000) as u32;
            let (tsval, tsecr) = match (packet.ts, packet.kind.is_forward()) {
                (0, _) => (capture_ms, 0),
                (ts, true) => (ts, 0),
                (ts, false) => (capture_ms, ts),
            };
            options.extend_from_slice(&[TCP_OPTION_NOP, TCP_OPTION_NOP, TCP_OPTION_TIMESTAMP, 10]);
            options.extend_from_slice(&tsval.to_be_bytes());
            options.extend_from_slice(&tsecr.to_be_bytes());
        }
        options.resize(base_options, TCP_OPTION_NOP);
        if !sack_blocks.is_empty() {
            // RFC 2018 §3: kind 5, length 2 + 8n, each block's left and right edges; two
            // NOPs keep the header a whole number of words.
            let blocks = sack_blocks.len().min((40 - options.len() - 4) / 8);
            if blocks > 0 {
                options.extend_from_slice(&[
                    TCP_OPTION_NOP,
                    TCP_OPTION_NOP,
                    TCP_OPTION_SACK,
                    (2 + 8 * blocks) as u8,
                ]);
                for block in &sack_blocks[..blocks] {
                    options.extend_from_slice(&wire_sequence(block.start).to_be_bytes());
                    options.extend_from_slice(&wire_sequence(block.end).to_be_bytes());
                }
            }
        }
        let (sequence, acknowledgment, mut flags) = match packet.kind {
            PacketKind::Data => (wire_sequence(packet.seq), 1, FLAG_ACK),
            PacketKind::Ack => (1, wire_sequence(packet.seq), FLAG_ACK),
            // Both initial sequence numbers are 0; the SYN-ACK acknowledges the SYN's one.
            PacketKind::Syn => (0, 0, FLAG_SYN),
            PacketKind::SynAck => (0, 1, FLAG_SYN | FLAG_ACK),
            // The receiver's FIN acknowledges every byte and the sender's FIN after them.
            PacketKind::Fin => (1, wire_sequence(packet.seq) + 1, FLAG_FIN | FLAG_ACK),
        };
        if packet.kind == PacketKind::Data
            && facts.fin_after == Some(packet.seq + packet.payload as u64)
        {
            flags |= FLAG_FIN;
        }
        if packet.kind == PacketKind::Ack {
            // RFC 3168 §6.1.3: ECE echoes congestion experienced; the model's receiver
            // counts CE bytes, and an ACK whose count grew carries ECE.
            let seen = self.ce_seen.entry(packet.flow).or_insert(0);
            if packet.ce_bytes > *seen {
                flags |= FLAG_ECE;
                *seen = packet.ce_bytes;
            }
        }
        out.extend_from_slice(&source.to_be_bytes());
        out.extend_from_slice(&destination.to_be_bytes());
        out.extend_from_slice(&sequence.to_be_bytes());
        out.extend_from_slice(&acknowledgment.to_be_bytes());
        let words = (TCP_HEADER + options.len()) / 4;
        out.push((words as u8) << 4);
        out.push(flags);
        // An auto-tuned receiver's own window (in units of 2^window_scale bytes), at most
        // what the unscaled field holds: the file carries no window-scale option.
        let window = if packet.window != 0 {
            ((packet.window as u64) << facts.window_scale).min(u16::MAX as u64) as u16
        } else {
            facts.window
        };
        out.extend_from_slice(&window.to_be_bytes());
        out.extend_from_slice(&[0, 0]); // checksum, filled in by the caller
        out.extend_from_slice(&[0, 0]); // urgent pointer
        out.extend_from_slice(&options);
    }
}

/// The model's byte offset as a 32-bit sequence number (initial sequence number 0, the SYN
/// taking one).
fn wire_sequence(offset: u64) -> u32 {
    (offset.wrapping_add(1) & 0xffff_ffff) as u32
}

struct PcapFile {
    // Declared first so that the file is closed before its temporary name is removed.
    writer: BufWriter<File>,
    temporary: TemporaryFile,
    encoder: Encoder,
}

impl PcapFile {
    fn create(path: &Path, payload: bool) -> io::Result<PcapFile> {
        let (temporary, file) = TemporaryFile::create(path)?;
        let mut writer = BufWriter::with_capacity(64 * 1024, file);
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&MAGIC_NANOSECONDS.to_le_bytes());
        header.extend_from_slice(&2u16.to_le_bytes());
        header.extend_from_slice(&4u16.to_le_bytes());
        header.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        header.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        header.extend_from_slice(&SNAPLEN.to_le_bytes());
        header.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        writer.write_all(&header)?;
        Ok(PcapFile {
            writer,
            temporary,
            encoder: Encoder {
                payload,
                ce_seen: HashMap::new(),
                record: Vec::with_capacity(256),
            },
        })
    }

    fn write(&mut self, captured: &Captured, facts: FlowFacts) -> io::Result<()> {
        self.encoder.encode(captured, facts);
        self.writer.write_all(&self.encoder.record)
    }

    fn commit(self) -> io::Result<()> {
        let file = self.writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        self.temporary.rename_into_place()
    }
}

/// Streams captured packets into `DIR/pcap/*.pcap` under temporary names; [`PcapSink::commit`]
/// renames them into place. Write errors are kept and reported by commit.
pub struct PcapSink {
    dir: PathBuf,
    payload: bool,
    /// By `[output] pcap` index: a link's file (`None` for the `"flows"` entry).
    links: Vec<Option<PcapFile>>,
    /// `pcap = ["flows"]`: files by flow id, opened at the flow's first packet.
    flows: HashMap<u32, PcapFile>,
    /// By flow id (flows that exist from the start; workload slots use the default).
    facts: Vec<FlowFacts>,
    error: Option<io::Error>,
}

impl PcapSink {
    /// The sink for `scenario`'s captures, writing into `dir/pcap/`; `None` when it captures
    /// nothing.
    pub fn create(dir: &Path, scenario: &Scenario) -> io::Result<Option<PcapSink>> {
        let points = &scenario.output.pcap;
        if points.is_empty() {
            return Ok(None);
        }
        let dir = dir.join(PCAP_DIR);
        std::fs::create_dir_all(&dir)?;
        let payload = scenario.output.pcap_payload;
        let links = points
            .iter()
            .map(|point| match point {
                PcapPoint::Link(name) => {
                    PcapFile::create(&dir.join(format!("{name}.pcap")), payload).map(Some)
                }
                PcapPoint::Flows => Ok(None),
            })
            .collect::<io::Result<Vec<_>>>()?;
        let facts = scenario
            .flows
            .iter()
            .flat_map(|group| {
                let facts = FlowFacts {
                    window: group
                        .receive_window
                        .map_or(u16::MAX, |w| w.min(u16::MAX as u64) as u16),
                    window_scale: window_scale(group.connection.tcp_rmem),
                    udp: matches!(group.kind, cclab_scenario::FlowKind::Udp(_)),
                    fin_after: group.size.filter(|_| group.connection.handshake),
                };
                std::iter::repeat_n(facts, group.count as usize)
            })
            .collect();
        Ok(Some(PcapSink {
            dir,
            payload,
            links,
            flows: HashMap::new(),
            facts,
            error: None,
        }))
    }

    fn facts(&self, flow: u32) -> FlowFacts {
        self.facts.get(flow as usize).copied().unwrap_or(FlowFacts {
            window: u16::MAX,
            window_scale: window_scale(Default::default()),
            udp: false,
            fin_after: None,
        })
    }

    fn write(&mut self, captured: &Captured) -> io::Result<()> {
        let facts = self.facts(captured.packet.flow);
        let file = match captured.point {
            CapturePoint::Link(index) => match self.links.get_mut(index as usize) {
                Some(Some(file)) => file,
                _ => return Ok(()),
            },
            CapturePoint::Flow(flow) => {
                if !self.flows.contains_key(&flow) {
                    let path = self.dir.join(format!("flow{flow}.pcap"));
                    self.flows
                        .insert(flow, PcapFile::create(&path, self.payload)?);
                }
                self.flows
                    .get_mut(&flow)
                    .expect("inserted above if it was missing")
            }
        };
        file.write(captured, facts)
    }

    /// Finish every file and rename it into place; the first write error if there was one.
    pub fn commit(self) -> io::Result<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        for file in self.links.into_iter().flatten() {
            file.commit()?;
        }
        let mut flows: Vec<(u32, PcapFile)> = self.flows.into_iter().collect();
        flows.sort_by_key(|(id, _)| *id);
        for (_, file) in flows {
            file.commit()?;
        }
        Ok(())
    }
}

impl TraceSink for PcapSink {
    fn flow_sample(&mut self, _: &FlowSample) {}
    fn link_sample(&mut self, _: &LinkSample<'_>) {}
    fn capture(&mut self, captured: &Captured) {
        if self.error.is_none()
            && let Err(e) = self.write(captured)
        {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests;
