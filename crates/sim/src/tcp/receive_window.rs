//! Receive-window auto-tuning (`receive_window = "auto"`): Linux's dynamic right-sizing
//! (Fisk & Feng, "Dynamic right-sizing in TCP", 2001), as `tcp_rcv_space_adjust` in
//! net/ipv4/tcp_input.c runs it in Linux 6.6–6.15 (before 6.16 moved the growth into
//! `tcp_rcvbuf_grow`, with the same formula).
//!
//! The application reads every byte as soon as it is in order, so the window is never
//! closed by unread data: what limits it is the receive buffer, which DRS grows.
//! - **Buffer and window.** The buffer starts at `tcp_rmem[1]` = 131 072 bytes and never
//!   exceeds `tcp_rmem[2]` = 6 291 456 (Linux's defaults). Since 6.6 the window a buffer
//!   allows is `tcp_win_from_space` = space × `scaling_ratio` / 256, the ratio being
//!   measured from the payload/truesize of received skbs; the model has no skbs and keeps
//!   the initial ratio, `TCP_DEFAULT_SCALING_RATIO` = 128 (one half, what
//!   `tcp_adv_win_scale` = 1 gave before 6.6). The window clamp is the window of the buffer.
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
//! Left out: memory pressure, the window shrinking under out-of-order data held in the
//! buffer (the buffer is twice the window, which covers a window of it), and zero windows.

use cclab_cc::{SimDuration, SimTime};

use crate::packet::WINDOW_SCALE;

/// Linux `net.ipv4.tcp_rmem` defaults: minimum, initial and maximum buffer, bytes.
pub const TCP_RMEM: [u64; 3] = [4096, 131_072, 6_291_456];

/// The SYN-ACK's window field is not scaled (RFC 7323 §2.2).
const SYN_WINDOW: u64 = 65_535;

/// Linux `TCP_INIT_CWND`: the first `space` estimate is ten segments.
const INITIAL_SPACE_SEGMENTS: u64 = 10;

/// Window a buffer of `space` bytes allows (`tcp_win_from_space` at the default ratio).
fn win_from_space(space: u64) -> u64 {
    space / 2
}

/// Buffer a window of `window` bytes needs (`tcp_space_from_win`).
fn space_from_win(window: u64) -> u64 {
    window * 2
}

#[derive(Clone, Debug)]
pub struct ReceiveWindow {
    /// The receiver's MSS (`advmss`).
    mss: u64,
    /// `sk_rcvbuf`.
    buffer: u64,
    /// `window_clamp`: the most the window may reach with this buffer.
    clamp: u64,
    /// `rcv_ssthresh`: the window advertised, growing towards the clamp.
    advertised: u64,
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
    pub fn new(mss: u64) -> Self {
        let clamp = win_from_space(TCP_RMEM[1]);
        let advertised = (SYN_WINDOW.min(clamp) / mss * mss).max(mss);
        ReceiveWindow {
            mss,
            buffer: TCP_RMEM[1],
            clamp,
            advertised,
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

    /// The window in the ACK's 16-bit field, in units of 2^[`WINDOW_SCALE`] (rounded down,
    /// at least one unit).
    pub fn scaled(&self) -> u16 {
        (self.advertised >> WINDOW_SCALE).clamp(1, u16::MAX as u64) as u16
    }

    /// In-order data arrived at `now` and was read: the application has every byte below
    /// `rcv_nxt`. `full_segment`: it carried a full MSS.
    pub fn on_in_order(&mut self, now: SimTime, rcv_nxt: u64, full_segment: bool) {
        if full_segment {
            // tcp_grow_window: two segments per full segment, up to the clamp.
            self.advertised = (self.advertised + 2 * self.mss).min(self.clamp);
        }
        self.measure_rtt(now, rcv_nxt);
        self.adjust_space(now, rcv_nxt);
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
            let buffer = space_from_win(rcvwin).min(TCP_RMEM[2]);
            if buffer > self.buffer {
                self.buffer = buffer;
                self.clamp = win_from_space(buffer);
            }
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
        let w = ReceiveWindow::new(MSS);
        // 65 535 rounded down to 1448-byte segments: 45 × 1448.
        assert_eq!(w.window(), 65_160);
        assert_eq!(w.buffer(), 131_072);
        assert_eq!(w.scaled(), (65_160 >> 7) as u16);
    }

    #[test]
    fn grows_by_two_segments_per_segment_up_to_the_clamp() {
        let mut w = ReceiveWindow::new(MSS);
        w.on_in_order(at(0), MSS, true);
        // The clamp, 131 072 / 2 = 65 536, stops it before two more segments.
        assert_eq!(w.window(), 65_536);
    }

    #[test]
    fn one_adjustment_per_rtt_follows_tcp_rcv_space_adjust() {
        let mut w = ReceiveWindow::new(MSS);
        // Segment 1 at t = 0: the window grows to the clamp, 65 536, and the RTT
        // measurement waits for byte 1448 + 65 536 = 66 984; the space measurement starts.
        w.on_in_order(at(0), MSS, true);
        // Segments 2 to 46 at 50 ms: byte 46 × 1448 = 66 608 is not there yet.
        for n in 2..=46 {
            w.on_in_order(at(50), n * MSS, true);
        }
        assert_eq!(w.rtt, None);
        assert_eq!(w.buffer(), TCP_RMEM[1]);
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
        let mut w = ReceiveWindow::new(MSS);
        let mut seq = 0;
        // 1 000 segments per 10 ms for a second: far more than 6 MB per RTT.
        for ms in 0..1000u64 {
            for _ in 0..100 {
                seq += MSS;
                w.on_in_order(at(ms), seq, true);
            }
        }
        assert_eq!(w.buffer(), TCP_RMEM[2]);
        assert_eq!(w.window(), TCP_RMEM[2] / 2);
    }
}
