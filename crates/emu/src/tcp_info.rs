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
    /// `tcpi_delivery_rate_app_limited`: the latest delivery-rate sample (`delivery_rate`)
    /// was taken while the flight was application-limited (`tp->rate_app_limited`,
    /// `tcp_rate_gen`), so it may understate the path.
    pub delivery_rate_app_limited: bool,
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
/// The byte of `tcpi_delivery_rate_app_limited:1, tcpi_fastopen_client_fail:2`; the first
/// bit-field takes the lowest bit (the x86-64 and arm64 ABIs, little-endian).
const APP_LIMITED_BYTE: usize = 7;
const SND_MSS: usize = 16;
const RCV_SSTHRESH: usize = 64;
const UNACKED: usize = 24;
const SACKED: usize = 28;
const LOST: usize = 32;
const RETRANS: usize = 36;
const RTT: usize = 68;
const SND_SSTHRESH: usize = 76;
const SND_CWND: usize = 80;
const RCV_SPACE: usize = 96;
const TOTAL_RETRANS: usize = 100;
const PACING_RATE: usize = 104;
const BYTES_ACKED: usize = 120;
const MIN_RTT: usize = 148;
const DATA_SEGS_OUT: usize = 156;
const DELIVERY_RATE: usize = 160;
const BYTES_SENT: usize = 200;
/// `tcpi_rcv_wnd`, after `tcpi_snd_wnd` (228): Linux 6.2 and later.
const RCV_WND: usize = 232;
const SIZE: usize = 256;

impl TcpInfo {
    /// Packets in flight as Linux counts them: unacked − sacked − lost + retransmitted
    /// (`tcp_packets_in_flight`, include/net/tcp.h).
    pub fn in_flight_segments(&self) -> u32 {
        (self.unacked + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    pub fn read(socket: RawFd) -> Result<TcpInfo, EmuError> {
        let mut buf = [0u8; SIZE];
        let len = read_tcp_info(socket, &mut buf)?;
        Ok(TcpInfo::from_bytes(&buf[..len]))
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
            delivery_rate_app_limited: bytes.get(APP_LIMITED_BYTE).is_some_and(|b| b & 1 == 1),
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
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.ca_state,
            u8::from(self.delivery_rate_app_limited),
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
        if fields.len() != 17 {
            return None;
        }
        let n = |i: usize| fields[i].parse::<u64>().ok();
        Some(TcpInfo {
            ca_state: n(0)? as u8,
            delivery_rate_app_limited: n(1)? == 1,
            snd_mss: n(2)? as u32,
            unacked: n(3)? as u32,
            sacked: n(4)? as u32,
            lost: n(5)? as u32,
            retrans: n(6)? as u32,
            rtt_us: n(7)? as u32,
            snd_ssthresh: n(8)? as u32,
            snd_cwnd: n(9)? as u32,
            total_retrans: n(10)? as u32,
            pacing_rate: n(11)?,
            bytes_acked: n(12)?,
            data_segs_out: n(13)? as u32,
            min_rtt_us: n(14)? as u32,
            delivery_rate: n(15)?,
            bytes_sent: n(16)?,
        })
    }
}

/// `getsockopt(TCP_INFO)` into `buf`: the number of bytes the kernel wrote.
fn read_tcp_info(socket: RawFd, buf: &mut [u8; SIZE]) -> Result<usize, EmuError> {
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
    Ok(len as usize)
}

/// An `int` socket option (`SO_RCVBUF`, `TCP_WINDOW_CLAMP`).
fn int_option(socket: RawFd, level: libc::c_int, name: libc::c_int) -> Result<u32, EmuError> {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` is valid for `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            socket,
            level,
            name,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(EmuError::last_os(format!("getsockopt({level}, {name})")));
    }
    Ok(value.max(0) as u32)
}

/// The receiving side's window, in bytes: what it advertised, and what bounds it. Since
/// Linux 6.6 the window a receive buffer allows is `scaling_ratio / 256` of it
/// (`tcp_win_from_space`), the ratio measured from the payload and `truesize` of the
/// packets received; `window_clamp` follows `tcp_win_from_space(rcvbuf)` each time
/// auto-tuning grows the buffer (`tcp_rcvbuf_grow`), so `256 · window_clamp / rcvbuf` is
/// the ratio at the latest growth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverInfo {
    /// `tcpi_rcv_wnd`: the receive window last advertised, after scaling (0 before 6.2).
    pub rcv_wnd: u32,
    /// `tcpi_rcv_ssthresh`: the window's growth bound (`tp->rcv_ssthresh`).
    pub rcv_ssthresh: u32,
    /// `tcpi_rcv_space`: the data the application read in the latest RTT, auto-tuning's
    /// measure (`tp->rcvq_space.space`).
    pub rcv_space: u32,
    /// `SO_RCVBUF`: the receive buffer (`sk_rcvbuf`) as auto-tuning left it.
    pub rcvbuf: u32,
    /// `TCP_WINDOW_CLAMP`: the largest window the buffer allows (`tp->window_clamp`).
    pub window_clamp: u32,
}

impl ReceiverInfo {
    pub fn read(socket: RawFd) -> Result<ReceiverInfo, EmuError> {
        let mut buf = [0u8; SIZE];
        let len = read_tcp_info(socket, &mut buf)?;
        let mut info = ReceiverInfo::from_tcp_info(&buf[..len]);
        info.rcvbuf = int_option(socket, libc::SOL_SOCKET, libc::SO_RCVBUF)?;
        info.window_clamp = int_option(socket, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP)?;
        Ok(info)
    }

    /// The `struct tcp_info` fields (native byte order); a shorter struct leaves zeros.
    pub fn from_tcp_info(bytes: &[u8]) -> ReceiverInfo {
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        };
        ReceiverInfo {
            rcv_wnd: u32_at(RCV_WND),
            rcv_ssthresh: u32_at(RCV_SSTHRESH),
            rcv_space: u32_at(RCV_SPACE),
            ..ReceiverInfo::default()
        }
    }

    /// One line of text, the fields in declaration order (the receiver's output).
    pub fn to_fields(&self) -> String {
        format!(
            "{},{},{},{},{}",
            self.rcv_wnd, self.rcv_ssthresh, self.rcv_space, self.rcvbuf, self.window_clamp
        )
    }

    /// The inverse of [`ReceiverInfo::to_fields`].
    pub fn from_fields(fields: &[&str]) -> Option<ReceiverInfo> {
        let [w, s, p, b, c] = fields else {
            return None;
        };
        Some(ReceiverInfo {
            rcv_wnd: w.parse().ok()?,
            rcv_ssthresh: s.parse().ok()?,
            rcv_space: p.parse().ok()?,
            rcvbuf: b.parse().ok()?,
            window_clamp: c.parse().ok()?,
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

    /// `tcpi_delivery_rate_app_limited` is the lowest bit of byte 7 (the first bit-field of
    /// `__u8 tcpi_delivery_rate_app_limited:1, tcpi_fastopen_client_fail:2`); the receiver's
    /// fields: tcpi_rcv_ssthresh the 15th u32 (64), tcpi_rcv_space the 23rd (96), and
    /// tcpi_rcv_wnd after tcpi_rcv_ooopack (224) and tcpi_snd_wnd (228), at 232 (Linux 6.18's
    /// BTF, `bpftrace -lv 'struct tcp_info'`, has the same order).
    #[test]
    fn the_app_limited_bit_and_the_receive_window_are_read_at_the_uapi_offsets() {
        let mut bytes = [0u8; SIZE];
        // fastopen_client_fail = 2 in the next two bits must not read as app-limited.
        bytes[7] = 0b100;
        assert!(!TcpInfo::from_bytes(&bytes).delivery_rate_app_limited);
        bytes[7] = 0b101;
        assert!(TcpInfo::from_bytes(&bytes).delivery_rate_app_limited);
        bytes[64..68].copy_from_slice(&2_000_000u32.to_ne_bytes());
        bytes[96..100].copy_from_slice(&1_500_000u32.to_ne_bytes());
        bytes[228..232].copy_from_slice(&7u32.to_ne_bytes());
        bytes[232..236].copy_from_slice(&2_900_000u32.to_ne_bytes());
        let receiver = ReceiverInfo::from_tcp_info(&bytes);
        assert_eq!(receiver.rcv_ssthresh, 2_000_000);
        assert_eq!(receiver.rcv_space, 1_500_000);
        assert_eq!(receiver.rcv_wnd, 2_900_000);
        // A kernel before 6.2 returns no tcpi_rcv_wnd.
        assert_eq!(ReceiverInfo::from_tcp_info(&bytes[..232]).rcv_wnd, 0);
    }

    #[test]
    fn the_receivers_text_form_round_trips() {
        let info = ReceiverInfo {
            rcv_wnd: 2_900_000,
            rcv_ssthresh: 3,
            rcv_space: 4,
            rcvbuf: 5_663_736,
            window_clamp: 2_831_868,
        };
        let line = info.to_fields();
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(ReceiverInfo::from_fields(&fields), Some(info));
        assert_eq!(ReceiverInfo::from_fields(&fields[..4]), None);
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
            delivery_rate_app_limited: true,
            snd_cwnd: 42,
            bytes_acked: 1 << 40,
            ..TcpInfo::default()
        };
        let line = info.to_fields();
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(TcpInfo::from_fields(&fields), Some(info));
    }
}
