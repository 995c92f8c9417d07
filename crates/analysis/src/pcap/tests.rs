use super::*;
use cclab_cc::SimTime;
use cclab_sim::packet::{SackBlock, XcpHeader};

/// A packet of flow `flow` as the model makes it: `payload` bytes and 52 bytes of headers
/// (IPv4 20, TCP 20, timestamps 12) for data; an ACK's SACK option on top.
fn packet(kind: PacketKind, flow: u32, seq: u64, payload: u32, sack: &[(u64, u64)]) -> Packet {
    let blocks: Vec<SackBlock> = sack
        .iter()
        .map(|&(start, end)| SackBlock { start, end })
        .collect();
    let mut packet = Packet {
        flow,
        hop: 0,
        kind,
        retransmission: false,
        sack_count: 0,
        ecn: Ecn::Ect,
        wire_bytes: payload + 52 + sack_option_bytes(sack.len()),
        payload,
        seq,
        sack: Default::default(),
        ce_bytes: 0,
        xcp: XcpHeader::default(),
        vcp: None,
        window: 0,
        ts: 0,
    };
    packet.set_sack_blocks(&blocks);
    packet
}

fn encode(packet: Packet, payload: bool, udp: bool) -> Vec<u8> {
    let mut encoder = Encoder {
        payload,
        ce_seen: HashMap::new(),
        record: Vec::new(),
    };
    let captured = Captured {
        point: CapturePoint::Link(0),
        time: SimTime::from_nanos(1_500_000_123),
        stream: 0,
        packet,
    };
    encoder.encode(
        &captured,
        FlowFacts {
            window: 65_535,
            window_scale: 7,
            udp,
            fin_after: None,
        },
    );
    encoder.record
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u32_le(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The worked example of the IPv4 header checksum (the header of a UDP datagram from
/// 192.168.0.1 to 192.168.0.199, as RFC 1071's method computes it): 0xb861.
#[test]
fn ipv4_checksum_of_a_known_header() {
    let header = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(checksum(ones_complement_sum(0, &header)), 0xb861);
    // With the checksum in place the header sums to all ones (RFC 1071 §1).
    let mut checked = header;
    checked[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
    assert_eq!(ones_complement_sum(0, &checked), 0xffff);
}

#[test]
fn a_data_segment_has_its_addresses_sequence_timestamp_and_valid_checksums() {
    let record = encode(packet(PacketKind::Data, 3, 14_480, 1448, &[]), false, false);
    // Record header: 1.500000123 s, 52 bytes stored, 1500 on the wire.
    assert_eq!(u32_le(&record, 0), 1);
    assert_eq!(u32_le(&record, 4), 500_000_123);
    assert_eq!(u32_le(&record, 8), 52);
    assert_eq!(u32_le(&record, 12), 1500);
    let ip = &record[16..36];
    assert_eq!(ip[0], 0x45);
    assert_eq!(ip[1] & 3, 2, "ECT(0)");
    assert_eq!(u16_at(ip, 2), 1500);
    assert_eq!(ip[9], 6);
    // Flow 3: sender 10.0.0.7, receiver 10.0.0.8.
    assert_eq!(&ip[12..16], &[10, 0, 0, 7]);
    assert_eq!(&ip[16..20], &[10, 0, 0, 8]);
    assert_eq!(ones_complement_sum(0, ip), 0xffff, "IPv4 checksum");
    let tcp = &record[36..];
    assert_eq!(tcp.len(), 32);
    assert_eq!(u16_at(tcp, 0), 10_000);
    assert_eq!(u16_at(tcp, 2), 5201);
    assert_eq!(u32_at(tcp, 4), 14_481, "byte 14480 after a SYN at 0");
    assert_eq!(tcp[12] >> 4, 8, "header of 8 words");
    assert_eq!(tcp[13], FLAG_ACK);
    // Timestamps option after two NOPs: TSval = 1500 ms.
    assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
    assert_eq!(u32_at(tcp, 24), 1500);
    // The TCP checksum with the pseudo-header and a zero payload of 1448 bytes.
    let mut pseudo = vec![10, 0, 0, 7, 10, 0, 0, 8, 0, 6];
    pseudo.extend_from_slice(&(32u16 + 1448).to_be_bytes());
    let zeros = vec![0u8; 1448];
    let sum = ones_complement_sum(
        ones_complement_sum(ones_complement_sum(0, &pseudo), tcp),
        &zeros,
    );
    assert_eq!(sum, 0xffff, "TCP checksum");
}

#[test]
fn an_ack_carries_its_sack_blocks_and_ece_when_its_ce_count_grows() {
    let mut ack = packet(PacketKind::Ack, 0, 2000, 0, &[(3000, 4000), (5000, 6000)]);
    ack.ce_bytes = 1000;
    let record = encode(ack, false, false);
    let tcp = &record[36..];
    // 20 + timestamps 12 + NOP NOP SACK(2 + 16) = 52 bytes: 13 words.
    assert_eq!(tcp[12] >> 4, 13);
    assert_eq!(u16_at(tcp, 0), 5201);
    assert_eq!(u32_at(tcp, 8), 2001, "cumulative ACK");
    assert_eq!(tcp[13], FLAG_ACK | FLAG_ECE);
    assert_eq!(&tcp[32..36], &[1, 1, 5, 18]);
    assert_eq!(
        [
            u32_at(tcp, 36),
            u32_at(tcp, 40),
            u32_at(tcp, 44),
            u32_at(tcp, 48)
        ],
        [3001, 4001, 5001, 6001]
    );
    assert_eq!(u32_le(&record, 12), 20 + 52);
    // From the receiver (10.0.0.2) to the sender (10.0.0.1).
    assert_eq!(&record[16 + 12..16 + 20], &[10, 0, 0, 2, 10, 0, 0, 1]);
}

#[test]
fn ece_is_set_only_on_the_ack_whose_count_grew() {
    let mut encoder = Encoder {
        payload: false,
        ce_seen: HashMap::new(),
        record: Vec::new(),
    };
    let facts = FlowFacts {
        window: 65_535,
        window_scale: 7,
        udp: false,
        fin_after: None,
    };
    let mut flags = Vec::new();
    for ce in [0, 1448, 1448, 2896] {
        let mut ack = packet(PacketKind::Ack, 0, 100, 0, &[]);
        ack.ce_bytes = ce;
        let captured = Captured {
            point: CapturePoint::Flow(0),
            time: SimTime::ZERO,
            stream: 0,
            packet: ack,
        };
        encoder.encode(&captured, facts);
        flags.push(encoder.record[16 + 20 + 13] & FLAG_ECE != 0);
    }
    assert_eq!(flags, [false, true, false, true]);
}

#[test]
fn payload_is_stored_as_zeros_only_when_asked() {
    let with = encode(packet(PacketKind::Data, 0, 0, 100, &[]), true, false);
    assert_eq!(u32_le(&with, 8), 152);
    assert_eq!(with.len(), 16 + 152);
    assert!(with[16 + 52..].iter().all(|&b| b == 0));
}

#[test]
fn a_udp_datagram_has_a_udp_header_and_checksum() {
    let mut datagram = packet(PacketKind::Data, 1, 0, 1000, &[]);
    datagram.wire_bytes = 1028;
    let record = encode(datagram, false, true);
    assert_eq!(u32_le(&record, 12), 1028);
    let ip = &record[16..36];
    assert_eq!(ip[9], 17);
    let udp = &record[36..44];
    assert_eq!(u16_at(udp, 4), 1008);
    let mut pseudo = vec![10, 0, 0, 3, 10, 0, 0, 4, 0, 17];
    pseudo.extend_from_slice(&1008u16.to_be_bytes());
    assert_eq!(
        ones_complement_sum(ones_complement_sum(0, &pseudo), udp),
        0xffff
    );
}

#[test]
fn handshake_packets_carry_their_flags_and_sequence_numbers() {
    // Record header 16 bytes, IPv4 20: the TCP header starts at 36; sequence at +4,
    // acknowledgment at +8, flags at +13, source port at +0.
    let tcp = 36;
    let mut encoder = Encoder {
        payload: false,
        ce_seen: HashMap::new(),
        record: Vec::new(),
    };
    let facts = FlowFacts {
        window: 65_535,
        window_scale: 7,
        udp: false,
        fin_after: Some(2000),
    };
    let mut header = |packet: Packet| {
        let captured = Captured {
            point: CapturePoint::Flow(0),
            time: SimTime::ZERO,
            stream: 0,
            packet,
        };
        encoder.encode(&captured, facts);
        let r = &encoder.record;
        (
            u16_at(r, tcp),
            u32_at(r, tcp + 4),
            u32_at(r, tcp + 8),
            r[tcp + 13],
        )
    };
    let sender_port = sender_port(0);
    // RFC 9293 §3.5: SYN (ISN 0), SYN-ACK acknowledging it (ISN 0).
    assert_eq!(
        header(packet(PacketKind::Syn, 0, 0, 0, &[])),
        (sender_port, 0, 0, FLAG_SYN)
    );
    assert_eq!(
        header(packet(PacketKind::SynAck, 0, 0, 0, &[])),
        (RECEIVER_PORT, 0, 1, FLAG_SYN | FLAG_ACK)
    );
    // The last segment (bytes 1000..2000) carries the sender's FIN; an earlier one not.
    assert_eq!(
        header(packet(PacketKind::Data, 0, 1000, 1000, &[])),
        (sender_port, 1001, 1, FLAG_ACK | FLAG_FIN)
    );
    assert_eq!(
        header(packet(PacketKind::Data, 0, 0, 1000, &[])),
        (sender_port, 1, 1, FLAG_ACK)
    );
    // The receiver's FIN acknowledges the 2000 bytes and the sender's FIN: 1 + 2000 + 1.
    assert_eq!(
        header(packet(PacketKind::Fin, 0, 2000, 0, &[])),
        (RECEIVER_PORT, 1, 2002, FLAG_FIN | FLAG_ACK)
    );
}

/// A flow with `undo` stamps its segments (RFC 7323): the data segment's TSval and the ACK's
/// TSecr are the stamp; without one, TSval is the capture time in ms and TSecr 0.
#[test]
fn timestamps_are_the_packets_own_when_it_carries_one() {
    let mut data = packet(PacketKind::Data, 0, 0, 1448, &[]);
    data.ts = 123_456;
    let record = encode(data, false, false);
    let tcp = &record[36..];
    assert_eq!([u32_at(tcp, 24), u32_at(tcp, 28)], [123_456, 0]);
    let mut ack = packet(PacketKind::Ack, 0, 1448, 0, &[]);
    ack.ts = 123_456;
    let record = encode(ack, false, false);
    let tcp = &record[36..];
    assert_eq!([u32_at(tcp, 24), u32_at(tcp, 28)], [1500, 123_456]);
}
