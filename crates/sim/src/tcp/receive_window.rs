//! Receive-window auto-tuning (`receive_window = "auto"`): Linux's dynamic right-sizing
//! (Fisk & Feng, "Dynamic right-sizing in TCP", 2001), as `tcp_rcv_space_adjust` in
//! net/ipv4/tcp_input.c runs it in Linux 6.6–6.15 (before 6.16 moved the growth into
//! `tcp_rcvbuf_grow`, with the same formula).
//!
//! The application reads every byte as soon as it is in order, so the window is never
//! closed by unread data: what limits it is the receive buffer, which DRS grows.
//! - **Buffer and window.** The buffer starts at `tcp_rmem[1]` and never exceeds
//!   `tcp_rmem[2]` (the flow's `tcp_rmem`; by default Linux's long-standing 131 072 and
//!   6 291 456 bytes). Since 6.6 the window a buffer
//!   allows is `tcp_win_from_space` = space × `scaling_ratio` / 256. The kernel starts at
//!   `TCP_DEFAULT_SCALING_RATIO` = 128 (one half, what `tcp_adv_win_scale` = 1 gave before
//!   6.6) and measures the ratio as payload/truesize of the first segment longer than its
//!   first MSS guess (`tcp_measure_rcv_mss`); the model has no skbs, so the receiving host's
//!   ratio is the flow's `scaling_ratio` (default 128), taken at that same segment. The
//!   window clamp is the window of the buffer.
//! - **Window scale.** As `tcp_select_initial_window` picks it: the smallest shift that lets
//!   the 16-bit field reach the largest buffer, ilog2(max(`tcp_rmem[2]`, `rmem_max`, the
//!   initial window)) − 15, between 0 and 14 (RFC 7323 §2.3); 7 for 6 MB, 10 for 32 MB. The
//!   clamp never passes 65 535 << shift.
//! - **Advertised window.** It starts at 64 KB rounded down to whole segments (the SYN-ACK's
//!   unscaled window, `tcp_select_initial_window`), below the clamp, and grows by two
//!   segments per in-order segment up to the clamp (`tcp_grow_window` raising
//!   `rcv_ssthresh`).
//! - **RTT.** Without timestamps (the model carries none) the receiver measures the time
//!   for one window of data to arrive and keeps the smallest measurement
//!   (`tcp_rcv_rtt_measure`, `tcp_rcv_rtt_update` with `win_dep`).
//! - **Adjustment.** At most once per measured RTT: with `copied` the bytes read since the
//!   last adjustment and `space` the largest such count so far (starting at ten segments,
//!   `tcp_init_buffer_space`), if `copied > space`: rcvwin = 2·copied + 16·MSS, plus twice
//!   rcvwin·(copied − space)/space for a sender still growing (slow start); the buffer
//!   becomes `tcp_space_from_win(rcvwin)` (at most `tcp_rmem[2]`) if that is larger, and
//!   the clamp its window.
//!
//! - **Out-of-order data** grows the window as in-order data does (`tcp_data_queue_ofo`
//!   calls `tcp_grow_window`) and, as since Linux 6.16, the buffer to hold the data queued
//!   beyond the hole ([`ReceiveWindow::on_out_of_order`]).
//!
//! Left out: memory pressure, the window shrinking under out-of-order data held in the
//! buffer (the buffer is twice the window, which covers a window of it), and zero windows.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{ScalingRatio, TcpRmem};

/// `TCP_DEFAULT_SCALING_RATIO`: the ratio until the first segment is measured.
const DEFAULT_RATIO: u8 = ScalingRatio::LINUX_DEFAULT.0;

/// Linux `net.core.rmem_max` default (`SK_RMEM_MAX` on 64-bit): `tcp_select_initial_window`
/// sizes the window scale for the larger of it and `tcp_rmem[2]`.
const RMEM_MAX: u64 = 212_992;

/// Linux `TCP_MAX_WSCALE`, RFC 7323 §2.3's limit.
const MAX_WINDOW_SCALE: u32 = 14;

/// The SYN-ACK's window field is not scaled (RFC 7323 §2.2).
const SYN_WINDOW: u64 = 65_535;

/// Linux `TCP_INIT_CWND`: the first `space` estimate is ten segments.
const INITIAL_SPACE_SEGMENTS: u64 = 10;

/// Linux `TCP_MSS_DEFAULT`: the receiver's first guess of the sender's MSS is at most this
/// (`tcp_initialize_rcv_mss`).
const MSS_DEFAULT: u64 = 536;

/// Linux `TCP_MIN_MSS`: the guess is at least this.
const MIN_MSS: u64 = 88;

/// Window a buffer of `space` bytes allows at `ratio` 256ths (`__tcp_win_from_space`:
/// space × ratio >> `TCP_RMEM_TO_WIN_SCALE`).
fn win_from_space(space: u64, ratio: u8) -> u64 {
    (space * u64::from(ratio)) >> 8
}

/// The largest window the 16-bit field carries at window scale `scale` (Linux sets
/// `window_clamp` no higher, `tcp_select_initial_window`).
fn largest_window(scale: u32) -> u64 {
    (u16::MAX as u64) << scale
}

/// Buffer a window of `window` bytes needs at `ratio` 256ths (`tcp_space_from_win`:
/// (window << `TCP_RMEM_TO_WIN_SCALE`) / ratio).
fn space_from_win(window: u64, ratio: u8) -> u64 {
    (window << 8) / u64::from(ratio)
}

/// The window scale a receiver with the buffer sizes `rmem` announces
/// (`tcp_select_initial_window`): ilog2 of the largest window it may need, the larger of
/// `tcp_rmem[2]`, `rmem_max` and the initial buffer's window, minus 15 (so that the 16-bit
/// field shifted reaches it), within 0..=14.
pub fn window_scale(rmem: TcpRmem) -> u32 {
    // The SYN-ACK is sent before any data: the ratio is still the default one.
    let space = win_from_space(rmem.default, DEFAULT_RATIO)
        .max(rmem.max)
        .max(RMEM_MAX);
    space.ilog2().saturating_sub(15).min(MAX_WINDOW_SCALE)
}

#[derive(Clone, Debug)]
pub struct ReceiveWindow {
    /// The receiver's MSS (`advmss`).
    mss: u64,
    /// `tcp_rmem[2]`: the buffer's limit.
    max_buffer: u64,
    /// `rcv_wscale`.
    scale: u32,
    /// `sk_rcvbuf`.
    buffer: u64,
    /// `window_clamp`: the most the window may reach with this buffer.
    clamp: u64,
    /// `rcv_ssthresh`: the window advertised, growing towards the clamp.
    advertised: u64,
    /// `scaling_ratio` now, in 256ths, and the receiving host's, which it becomes at the
    /// first segment longer than `rcv_mss` (Linux's `u8`: they sit in the padding after
    /// `scale`).
    ratio: u8,
    host_ratio: u8,
    /// `icsk_ack.rcv_mss`: the receiver's estimate of the sender's MSS.
    rcv_mss: u64,
    /// `rcvq_space`: the largest per-RTT read so far, and where and when the current
    /// measurement started (`None` before the first segment).
    space: u64,
    space_seq: u64,
    space_time: Option<SimTime>,
    /// `rcv_rtt_est`: the smallest window-arrival time so far, and the current
    /// measurement's target sequence and start.
    rtt: Option<SimDuration>,
    rtt_seq: u64,
    rtt_time: Option<SimTime>,
}

impl ReceiveWindow {
    /// A receiver whose packets' payload is `host_ratio` 256ths of their memory.
    pub fn new(mss: u64, rmem: TcpRmem, host_ratio: ScalingRatio) -> Self {
        let scale = window_scale(rmem);
        let clamp = win_from_space(rmem.default, DEFAULT_RATIO).min(largest_window(scale));
        let advertised = (SYN_WINDOW.min(clamp) / mss * mss).max(mss);
        ReceiveWindow {
            mss,
            max_buffer: rmem.max,
            scale,
            buffer: rmem.default,
            clamp,
            advertised,
            ratio: DEFAULT_RATIO,
            host_ratio: host_ratio.0.max(1),
            // tcp_initialize_rcv_mss: min(advmss, rcv_wnd / 2, TCP_MSS_DEFAULT), at least
            // TCP_MIN_MSS.
            rcv_mss: mss.min(advertised / 2).clamp(MIN_MSS, MSS_DEFAULT),
            space: (INITIAL_SPACE_SEGMENTS * mss).min(advertised),
            space_seq: 0,
            space_time: None,
            rtt: None,
            rtt_seq: 0,
            rtt_time: None,
        }
    }

    /// The MSS it counts full segments in.
    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// The window advertised now, bytes.
    pub fn window(&self) -> u64 {
        self.advertised
    }

    /// The receive buffer now, bytes.
    pub fn buffer(&self) -> u64 {
        self.buffer
    }

    /// The window scale it announced (`rcv_wscale`).
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// The window in the ACK's 16-bit field, in units of 2^[`Self::scale`] (rounded down,
    /// at least one unit).
    pub fn scaled(&self) -> u16 {
        (self.advertised >> self.scale).clamp(1, u16::MAX as u64) as u16
    }

    /// In-order data arrived at `now` and was read: the application has every byte below
    /// `rcv_nxt`. `full_segment`: it carried a full MSS. Returns whether the window grew
    /// (`tcp_grow_window` raised `rcv_ssthresh`).
    pub fn on_in_order(&mut self, now: SimTime, rcv_nxt: u64, full_segment: bool) -> bool {
        let grew = full_segment && self.grow_window();
        self.measure_rtt(now, rcv_nxt);
        self.adjust_space(now, rcv_nxt);
        grew
    }

    /// `tcp_measure_rcv_mss`, for an in-order segment of `payload` bytes, before
    /// [`Self::on_in_order`] (`tcp_event_data_recv` calls it first). A segment of at least
    /// `rcv_mss` bytes sets `rcv_mss` to its length (at most the MSS), and one of another
    /// length than `rcv_mss` measures the ratio: here the host's, the same for every packet.
    /// (Linux also lowers `rcv_mss` after two equal shorter segments; a model flow's
    /// segments are full but for its last, so that is left out.)
    pub fn measure_rcv_mss(&mut self, payload: u64) {
        if payload < self.rcv_mss {
            return;
        }
        if payload != self.rcv_mss && self.ratio != self.host_ratio {
            self.set_ratio(self.host_ratio);
        }
        self.rcv_mss = payload.min(self.mss);
    }

    /// The ratio changed (`tcp_measure_rcv_mss` since Linux 6.14, "tcp: adjust
    /// rcvq_space after updating scaling ratio"): the clamp becomes the window of the
    /// buffer at the new ratio (`tcp_set_window_clamp`; a lower clamp lowers
    /// `rcv_ssthresh`, a higher one leaves it, since `rcv_wnd` is no larger), and
    /// `rcvq_space` stays within it.
    fn set_ratio(&mut self, ratio: u8) {
        self.ratio = ratio;
        self.set_clamp();
        // The model keeps at least a segment open (Linux's clamp floor is
        // SOCK_MIN_RCVBUF / 2, above one segment of the usual MSS).
        self.advertised = self.advertised.min(self.clamp).max(self.mss);
        self.space = self.space.min(self.clamp);
    }

    /// `tcp_grow_window`: two segments per full segment, up to the clamp. Returns whether
    /// the window grew.
    fn grow_window(&mut self) -> bool {
        let before = self.advertised;
        self.advertised = (self.advertised + 2 * self.mss).min(self.clamp);
        self.advertised > before
    }

    /// Out-of-order data arrived and was queued (Linux `tcp_data_queue_ofo`): `ooo_end` is
    /// the end of the highest data held beyond the hole at `rcv_nxt`. `full_segment`: it
    /// carried a full MSS. The window grows as for in-order data (`tcp_grow_window`, which
    /// `tcp_data_queue_ofo` calls too), and since Linux 6.16 the buffer grows to hold the
    /// data queued beyond the hole on top of twice the last RTT's reads: rcvwin = 2·space +
    /// (ooo_end − rcv_nxt) (`tcp_rcvbuf_grow`, commit 63ad7dfedfae "tcp: adjust rcvbuf in
    /// presence of reorders"). Without it a loss in slow start freezes the window's right
    /// edge at the hole while the sender's flight, counted from the hole, keeps growing.
    /// Returns whether the window grew.
    pub fn on_out_of_order(&mut self, rcv_nxt: u64, ooo_end: u64, full_segment: bool) -> bool {
        let grew = full_segment && self.grow_window();
        self.grow_buffer(2 * self.space + ooo_end.saturating_sub(rcv_nxt));
        grew
    }

    /// The end of `tcp_rcvbuf_grow`: the buffer a window of `rcvwin` needs, at most
    /// `tcp_rmem[2]`, if that is larger than the buffer now; the clamp follows.
    fn grow_buffer(&mut self, rcvwin: u64) {
        let buffer = space_from_win(rcvwin, self.ratio).min(self.max_buffer);
        if buffer > self.buffer {
            self.buffer = buffer;
            self.set_clamp();
        }
    }

    /// `window_clamp`: the window of the buffer at the ratio now, within what the window
    /// field carries.
    fn set_clamp(&mut self) {
        self.clamp = win_from_space(self.buffer, self.ratio).min(largest_window(self.scale));
    }

    /// `tcp_rcv_rtt_measure`: the time one advertised window takes to arrive; the smallest
    /// such time is the estimate.
    fn measure_rtt(&mut self, now: SimTime, rcv_nxt: u64) {
        if let Some(started) = self.rtt_time {
            if rcv_nxt < self.rtt_seq {
                return;
            }
            let sample = now
                .saturating_since(started)
                .max(SimDuration::from_micros(1));
            self.rtt = Some(self.rtt.map_or(sample, |rtt| rtt.min(sample)));
        }
        self.rtt_seq = rcv_nxt + self.advertised;
        self.rtt_time = Some(now);
    }

    /// `tcp_rcv_space_adjust`.
    fn adjust_space(&mut self, now: SimTime, rcv_nxt: u64) {
        let Some(started) = self.space_time else {
            self.space_time = Some(now);
            self.space_seq = 0;
            return;
        };
        match self.rtt {
            Some(rtt) if now.saturating_since(started) >= rtt => {}
            _ => return,
        }
        let copied = rcv_nxt - self.space_seq;
        if copied > self.space {
            let mut rcvwin = 2 * copied + 16 * self.mss;
            let grow = rcvwin * (copied - self.space) / self.space;
            rcvwin += 2 * grow;
            self.grow_buffer(rcvwin);
            self.space = copied;
        }
        self.space_seq = rcv_nxt;
        self.space_time = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn starts_at_the_syn_window_in_whole_segments() {
        let w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        // 65 535 rounded down to 1448-byte segments: 45 × 1448.
        assert_eq!(w.window(), 65_160);
        assert_eq!(w.buffer(), 131_072);
        // Scale 7 for the default 6 MB tcp_rmem[2].
        assert_eq!(w.scaled(), (65_160 >> 7) as u16);
    }

    #[test]
    fn grows_by_two_segments_per_segment_up_to_the_clamp() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        w.on_in_order(at(0), MSS, true);
        // The clamp, 131 072 / 2 = 65 536, stops it before two more segments.
        assert_eq!(w.window(), 65_536);
    }

    #[test]
    fn one_adjustment_per_rtt_follows_tcp_rcv_space_adjust() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        // Segment 1 at t = 0: the window grows to the clamp, 65 536, and the RTT
        // measurement waits for byte 1448 + 65 536 = 66 984; the space measurement starts.
        w.on_in_order(at(0), MSS, true);
        // Segments 2 to 46 at 50 ms: byte 46 × 1448 = 66 608 is not there yet.
        for n in 2..=46 {
            w.on_in_order(at(50), n * MSS, true);
        }
        assert_eq!(w.rtt, None);
        assert_eq!(w.buffer(), 131_072);
        // Segment 47 at 100 ms (byte 68 056): RTT sample 100 ms, and one RTT since the
        // space measurement began, so the buffer is adjusted with copied = 68 056 bytes
        // against space = 10 × 1448 = 14 480:
        //   rcvwin = 2 × 68 056 + 16 × 1448 = 159 280,
        //   grow = 159 280 × (68 056 − 14 480) / 14 480 = 589 336,
        //   rcvwin = 159 280 + 2 × 589 336 = 1 337 952,
        //   buffer = 2 × rcvwin = 2 675 904 (below tcp_rmem[2]), clamp = 1 337 952.
        w.on_in_order(at(100), 47 * MSS, true);
        assert_eq!(w.rtt, Some(SimDuration::from_millis(100)));
        assert_eq!(
            (w.buffer(), w.clamp, w.space),
            (2_675_904, 1_337_952, 68_056)
        );
        // The advertised window grew before the clamp moved; it now grows two segments
        // per segment again.
        assert_eq!(w.window(), 65_536);
        w.on_in_order(at(150), 48 * MSS, true);
        assert_eq!(w.window(), 65_536 + 2 * MSS);
        // 50 ms after the adjustment: less than an RTT, no new one.
        assert_eq!(w.buffer(), 2_675_904);
    }

    #[test]
    fn the_buffer_stops_at_tcp_rmem_max() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        let mut seq = 0;
        // 1 000 segments per 10 ms for a second: far more than 6 MB per RTT.
        for ms in 0..1000u64 {
            for _ in 0..100 {
                seq += MSS;
                w.on_in_order(at(ms), seq, true);
            }
        }
        // Linux's long-standing tcp_rmem[2], 6 291 456 bytes, and half of it as the window.
        assert_eq!(w.buffer(), 6_291_456);
        assert_eq!(w.window(), 3_145_728);
        // Scale 7: 3 145 728 / 128 = 24 576 units.
        assert_eq!(w.scaled(), 24_576);
    }

    /// 256 × 1448 / 2317: a TUN device charges 2317 bytes of memory per 1448-byte segment.
    const TUN: ScalingRatio = ScalingRatio(160);

    #[test]
    fn the_hosts_ratio_is_taken_at_the_first_segment_longer_than_the_first_mss_guess() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), TUN);
        // Before any data, the default ratio: clamp 131 072 × 128 / 256 = 65 536.
        assert_eq!((w.ratio, w.clamp), (128, 65_536));
        // tcp_initialize_rcv_mss: min(1448, 65 160 / 2, 536) = 536. A shorter segment, and
        // one of exactly 536 bytes, measure nothing.
        assert_eq!(w.rcv_mss, 536);
        w.measure_rcv_mss(500);
        w.measure_rcv_mss(536);
        assert_eq!((w.ratio, w.clamp), (128, 65_536));
        // A full segment: the ratio becomes the host's, the clamp the window of the same
        // 131 072-byte buffer at it: 131 072 × 160 / 256 = 81 920. The advertised window
        // (rcv_ssthresh) stays where it was, rcvq_space (10 × 1448) within the clamp.
        w.measure_rcv_mss(MSS);
        assert_eq!((w.ratio, w.clamp, w.rcv_mss), (160, 81_920, MSS));
        assert_eq!((w.window(), w.space), (65_160, 14_480));
        // Then it grows two segments per segment to the new clamp, not to 65 536.
        for n in 1..=20 {
            w.on_in_order(at(0), n * MSS, true);
        }
        assert_eq!(w.window(), 81_920);
    }

    #[test]
    fn the_default_ratio_measured_changes_nothing() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        w.measure_rcv_mss(MSS);
        assert_eq!((w.ratio, w.clamp, w.window()), (128, 65_536, 65_160));
    }

    #[test]
    fn a_lower_ratio_lowers_the_clamp_and_the_advertised_window() {
        // 64: a quarter of the memory is payload. Clamp 131 072 × 64 / 256 = 32 768, below
        // the 65 160 advertised, which tcp_set_window_clamp brings down to it.
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio(64));
        w.measure_rcv_mss(MSS);
        assert_eq!((w.clamp, w.window(), w.space), (32_768, 32_768, 14_480));
    }

    #[test]
    fn at_the_hosts_ratio_the_window_reaches_that_share_of_tcp_rmem_max() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), TUN);
        let mut seq = 0;
        for ms in 0..1000u64 {
            for _ in 0..100 {
                seq += MSS;
                w.measure_rcv_mss(MSS);
                w.on_in_order(at(ms), seq, true);
            }
        }
        // The buffer stops at tcp_rmem[2], 6 291 456 bytes; its window is
        // 6 291 456 × 160 / 256 = 3 932 160 where the default ratio gives 3 145 728.
        assert_eq!((w.buffer(), w.window()), (6_291_456, 3_932_160));
        // Below the cap the window is the same at any ratio: the buffer is
        // tcp_space_from_win(rcvwin) = rcvwin × 256 / 160, and its window rcvwin again.
        // The first segment measures the ratio and grows the window to 65 160 + 2 × 1448 =
        // 68 056, so the RTT measurement waits for byte 1448 + 68 056 = 69 504, segment 48.
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), TUN);
        w.measure_rcv_mss(MSS);
        w.on_in_order(at(0), MSS, true);
        for n in 2..=47 {
            w.on_in_order(at(50), n * MSS, true);
        }
        w.on_in_order(at(100), 48 * MSS, true);
        // copied = 69 504 against space = 14 480:
        //   rcvwin = 2 × 69 504 + 16 × 1448 = 162 176,
        //   grow = 162 176 × (69 504 − 14 480) / 14 480 = 616 268,
        //   rcvwin = 162 176 + 2 × 616 268 = 1 394 712,
        //   buffer = 1 394 712 × 256 / 160 = 2 231 539 (rounded down),
        //   clamp = 2 231 539 × 160 / 256 = 1 394 711 (rcvwin, less the rounding's byte).
        assert_eq!((w.buffer(), w.clamp), (2_231_539, 1_394_711));
    }

    /// Feeds `steps` steps of 10 ms, each with `per_step` full segments arriving at its start.
    fn fill(w: &mut ReceiveWindow, mss: u64, steps: u64, per_step: u64) {
        let mut seq = 0;
        for ms in 0..steps {
            for _ in 0..per_step {
                seq += mss;
                w.on_in_order(at(ms * 10), seq, true);
            }
        }
    }

    #[test]
    fn out_of_order_data_grows_the_window_and_the_buffer() {
        let mut w = ReceiveWindow::new(MSS, TcpRmem::default(), ScalingRatio::default());
        // Segment 1 in order at t = 0: the window reaches the clamp, 65 536 bytes.
        w.on_in_order(at(0), MSS, true);
        assert_eq!((w.window(), w.clamp), (65_536, 65_536));
        // Segment 3 arrives, segment 2 is missing: 2896..4344 is held beyond the hole at
        // 1448. tcp_rcvbuf_grow (Linux 6.16): rcvwin = 2 × space + (4344 − 1448) =
        // 2 × 14 480 + 2896 = 31 856, a buffer of 63 712: below the 131 072 it has, so
        // nothing grows, and the window stays at the clamp.
        w.on_out_of_order(MSS, 3 * MSS, true);
        assert_eq!((w.buffer(), w.window()), (131_072, 65_536));
        // 100 segments held beyond the hole (to byte 101 × 1448 = 146 248): rcvwin =
        // 28 960 + 144 800 = 173 760, buffer 347 520, clamp 173 760. tcp_data_queue_ofo
        // grows the window (tcp_grow_window) before the buffer, so this segment still met
        // the old clamp; the next one grows it by two segments, 2896 bytes.
        w.on_out_of_order(MSS, 101 * MSS, true);
        assert_eq!((w.buffer(), w.clamp), (347_520, 173_760));
        assert_eq!(w.window(), 65_536);
        w.on_out_of_order(MSS, 102 * MSS, true);
        assert_eq!(w.window(), 65_536 + 2 * MSS);
    }

    #[test]
    fn the_window_scale_follows_tcp_select_initial_window() {
        let rmem = |max| TcpRmem {
            min: 4096,
            default: 131_072,
            max,
        };
        // ilog2(6 291 456) = 22 (2^22 = 4 194 304 ≤ 6 291 456 < 2^23): 22 − 15 = 7.
        assert_eq!(window_scale(rmem(6_291_456)), 7);
        // This machine's 32 MB: ilog2(33 554 432) = 25: 10.
        assert_eq!(window_scale(rmem(33_554_432)), 10);
        // A small max: rmem_max = 212 992 is larger, ilog2 = 17: 2.
        assert_eq!(window_scale(rmem(131_072)), 2);
        // 2^31 − 1: ilog2 = 30, 15, held at RFC 7323's 14.
        assert_eq!(window_scale(rmem(i32::MAX as u64)), 14);
    }

    #[test]
    fn a_32_mb_tcp_rmem_lets_the_window_reach_16_mb() {
        let rmem = TcpRmem {
            min: 4096,
            default: 131_072,
            max: 33_554_432,
        };
        let mut w = ReceiveWindow::new(MSS, rmem, ScalingRatio::default());
        // The start does not depend on the maximum: 45 segments, in units of 2^10.
        assert_eq!(w.window(), 65_160);
        assert_eq!(w.scaled(), (65_160 >> 10) as u16);
        // 3 000 segments per 10 ms (4.3 MB, more than the whole 32 MB buffer's window per
        // few RTTs) for 1 s: the buffer stops at 33 554 432, the window at half of it,
        // 16 777 216 bytes = 16 384 units of 1024 bytes; with the old 6 MB it stopped at
        // 3 145 728.
        fill(&mut w, MSS, 100, 3000);
        assert_eq!(w.buffer(), 33_554_432);
        assert_eq!(w.window(), 16_777_216);
        assert_eq!(w.scaled(), 16_384);
    }

    #[test]
    fn the_clamp_stops_at_what_the_field_carries_at_scale_14() {
        let rmem = TcpRmem {
            min: 4096,
            default: 131_072,
            max: i32::MAX as u64,
        };
        const BIG_MSS: u64 = 60_000;
        let mut w = ReceiveWindow::new(BIG_MSS, rmem, ScalingRatio::default());
        assert_eq!(w.scale(), 14);
        // 2^31 − 1 bytes of buffer would allow a window of 1 073 741 823 bytes; the field
        // carries at most 65 535 << 14 = 1 073 725 440 (Linux caps window_clamp there).
        fill(&mut w, BIG_MSS, 100, 3000);
        assert_eq!(w.buffer(), i32::MAX as u64);
        assert_eq!(w.window(), 1_073_725_440);
        assert_eq!(w.scaled(), u16::MAX);
    }
}
