//! `getsockopt(TCP_INFO)`: the kernel's view of a connection (include/uapi/linux/tcp.h,
//! `struct tcp_info`; filled by `tcp_get_info`, net/ipv4/tcp.c). Read as bytes at the
//! struct's offsets, so a kernel that returns fewer bytes (an older `struct tcp_info`) leaves
//! the newer fields at zero instead of being misread.

use std::os::fd::RawFd;

use crate::error::EmuError;

/// The fields cclab samples, in the kernel's units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_ca_state`: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss (enum tcp_ca_state).
    pub ca_state: u8,
    pub snd_mss: u32,
    /// Segments (`tcpi_unacked`, `tcpi_sacked`, `tcpi_lost`, `tcpi_retrans`).
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    /// Smoothed RTT, microseconds.
    pub rtt_us: u32,
    /// Segments; `TCP_INFINITE_SSTHRESH` (0x7fffffff) while unset.
    pub snd_ssthresh: u32,
    /// Segments.
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    /// Bytes per second.
    pub pacing_rate: u64,
    pub bytes_acked: u64,
    pub data_segs_out: u32,
    /// Microseconds.
    pub min_rtt_us: u32,
    /// Bytes per second.
    pub delivery_rate: u64,
    pub bytes_sent: u64,
}

/// The kernel's "no threshold yet" (include/net/tcp.h).
pub const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// enum tcp_ca_state: the retransmission timer fired.
pub const TCP_CA_LOSS: u8 = 4;

// Byte offsets in struct tcp_info: 8 one-byte fields, then u32s from 8, u64s from 104.
const CA_STATE: usize = 1;
const SND_MSS: usize = 16;
const UNACKED: usize = 24;
const SACKED: usize = 28;
const LOST: usize = 32;
const RETRANS: usize = 36;
const RTT: usize = 68;
const SND_SSTHRESH: usize = 76;
const SND_CWND: usize = 80;
const TOTAL_RETRANS: usize = 100;
const PACING_RATE: usize = 104;
const BYTES_ACKED: usize = 120;
const MIN_RTT: usize = 148;
const DATA_SEGS_OUT: usize = 156;
const DELIVERY_RATE: usize = 160;
const BYTES_SENT: usize = 200;
const SIZE: usize = 256;

impl TcpInfo {
    /// Packets in flight as Linux counts them: unacked − sacked − lost + retransmitted
    /// (`tcp_packets_in_flight`, include/net/tcp.h).
    pub fn in_flight_segments(&self) -> u32 {
        (self.unacked + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    pub fn read(socket: RawFd) -> Result<TcpInfo, EmuError> {
        let mut buf = [0u8; SIZE];
        let mut len = SIZE as libc::socklen_t;
        // SAFETY: `buf` is valid for `len` bytes; the kernel writes at most `len` and
        // returns the length written.
        let rc = unsafe {
            libc::getsockopt(
                socket,
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                buf.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if rc != 0 {
            return Err(EmuError::last_os("getsockopt(TCP_INFO)"));
        }
        Ok(TcpInfo::from_bytes(&buf[..len as usize]))
    }

    /// Parse the first `bytes.len()` bytes the kernel returned (native byte order).
    pub fn from_bytes(bytes: &[u8]) -> TcpInfo {
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        };
        let u64_at = |at: usize| {
            bytes.get(at..at + 8).map_or(0, |b| {
                u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            })
        };
        TcpInfo {
            ca_state: bytes.get(CA_STATE).copied().unwrap_or(0),
            snd_mss: u32_at(SND_MSS),
            unacked: u32_at(UNACKED),
            sacked: u32_at(SACKED),
            lost: u32_at(LOST),
            retrans: u32_at(RETRANS),
            rtt_us: u32_at(RTT),
            snd_ssthresh: u32_at(SND_SSTHRESH),
            snd_cwnd: u32_at(SND_CWND),
            total_retrans: u32_at(TOTAL_RETRANS),
            pacing_rate: u64_at(PACING_RATE),
            bytes_acked: u64_at(BYTES_ACKED),
            data_segs_out: u32_at(DATA_SEGS_OUT),
            min_rtt_us: u32_at(MIN_RTT),
            delivery_rate: u64_at(DELIVERY_RATE),
            bytes_sent: u64_at(BYTES_SENT),
        }
    }

    /// One line of text, the fields in declaration order (the endpoint's output).
    pub fn to_fields(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.ca_state,
            self.snd_mss,
            self.unacked,
            self.sacked,
            self.lost,
            self.retrans,
            self.rtt_us,
            self.snd_ssthresh,
            self.snd_cwnd,
            self.total_retrans,
            self.pacing_rate,
            self.bytes_acked,
            self.data_segs_out,
            self.min_rtt_us,
            self.delivery_rate,
            self.bytes_sent
        )
    }

    /// The inverse of [`TcpInfo::to_fields`].
    pub fn from_fields(fields: &[&str]) -> Option<TcpInfo> {
        if fields.len() != 16 {
            return None;
        }
        let n = |i: usize| fields[i].parse::<u64>().ok();
        Some(TcpInfo {
            ca_state: n(0)? as u8,
            snd_mss: n(1)? as u32,
            unacked: n(2)? as u32,
            sacked: n(3)? as u32,
            lost: n(4)? as u32,
            retrans: n(5)? as u32,
            rtt_us: n(6)? as u32,
            snd_ssthresh: n(7)? as u32,
            snd_cwnd: n(8)? as u32,
            total_retrans: n(9)? as u32,
            pacing_rate: n(10)?,
            bytes_acked: n(11)?,
            data_segs_out: n(12)? as u32,
            min_rtt_us: n(13)? as u32,
            delivery_rate: n(14)?,
            bytes_sent: n(15)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offsets follow from struct tcp_info's layout (include/uapi/linux/tcp.h): eight
    /// u8 fields (two of them bitfield bytes) end at 8; tcpi_rto is the 1st u32 (8),
    /// tcpi_snd_mss the 3rd (16), tcpi_unacked the 5th (24), tcpi_rtt the 16th (68),
    /// tcpi_snd_ssthresh the 18th (76), tcpi_snd_cwnd the 19th (80), tcpi_total_retrans
    /// the 24th (100); then u64 tcpi_pacing_rate (104), tcpi_max_pacing_rate (112),
    /// tcpi_bytes_acked (120), tcpi_bytes_received (128); u32 tcpi_segs_out (136),
    /// tcpi_segs_in (140), tcpi_notsent_bytes (144), tcpi_min_rtt (148),
    /// tcpi_data_segs_in (152), tcpi_data_segs_out (156); u64 tcpi_delivery_rate (160),
    /// tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited (168–191); u32
    /// tcpi_delivered, tcpi_delivered_ce (192–199); u64 tcpi_bytes_sent (200).
    #[test]
    fn fields_are_read_at_the_uapi_offsets() {
        let mut bytes = [0u8; SIZE];
        let put32 =
            |b: &mut [u8; SIZE], at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        let put64 =
            |b: &mut [u8; SIZE], at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        bytes[1] = TCP_CA_LOSS;
        put32(&mut bytes, 8 + 2 * 4, 1448);
        put32(&mut bytes, 8 + 15 * 4, 40_000);
        put32(&mut bytes, 8 + 18 * 4, 10);
        put32(&mut bytes, 8 + 23 * 4, 3);
        put64(&mut bytes, 104 + 2 * 8, 123_456);
        put64(&mut bytes, 160, 2_500_000);
        put64(&mut bytes, 200, 999);
        let info = TcpInfo::from_bytes(&bytes);
        assert_eq!(info.ca_state, TCP_CA_LOSS);
        assert_eq!(info.snd_mss, 1448);
        assert_eq!(info.rtt_us, 40_000);
        assert_eq!(info.snd_cwnd, 10);
        assert_eq!(info.total_retrans, 3);
        assert_eq!(info.bytes_acked, 123_456);
        assert_eq!(info.delivery_rate, 2_500_000);
        assert_eq!(info.bytes_sent, 999);
    }

    #[test]
    fn a_short_struct_leaves_newer_fields_zero() {
        // A kernel before 4.19 returns no tcpi_bytes_sent: 200 bytes at most.
        let mut bytes = [0u8; SIZE];
        bytes[200..208].copy_from_slice(&7u64.to_ne_bytes());
        assert_eq!(TcpInfo::from_bytes(&bytes[..200]).bytes_sent, 0);
    }

    #[test]
    fn in_flight_is_linux_packets_in_flight() {
        // tcp_packets_in_flight: packets_out − (sacked_out + lost_out) + retrans_out.
        let info = TcpInfo {
            unacked: 20,
            sacked: 5,
            lost: 3,
            retrans: 2,
            ..TcpInfo::default()
        };
        assert_eq!(info.in_flight_segments(), 14);
    }

    #[test]
    fn the_text_form_round_trips() {
        let info = TcpInfo {
            ca_state: 3,
            snd_cwnd: 42,
            bytes_acked: 1 << 40,
            ..TcpInfo::default()
        };
        let line = info.to_fields();
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(TcpInfo::from_fields(&fields), Some(info));
    }
}
