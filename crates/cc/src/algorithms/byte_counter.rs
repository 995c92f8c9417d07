//! Additive increase by byte counting (RFC 3465 §2.1), generalised to any number of
//! segments per round trip.
//!
//! A rule "cwnd += a/w per ACK" (w the window in packets, one ACK per packet) adds `a`
//! segments per window of acknowledged data. Counting acknowledged *bytes* instead of ACKs
//! keeps that per-RTT growth when the receiver delays or stretches its ACKs: every
//! `window / a` acknowledged bytes earn one segment. With `a = 1` and `window = cwnd` this is
//! exactly Reno's counter in `reno.rs`.
//!
//! [`super::additive_increase::ByteCountedIncrease`] is the same counter with the window fixed
//! to cwnd; this one takes the window separately, for rules that count against something
//! else: Compound's `cwnd += 1/win` (`window = cwnd + dwnd`) and YeAH's Scalable mode
//! (`window = min(cwnd, 100 segments)`).

/// Fractional growth carried between ACKs, in units of bytes × segments-per-round.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ByteCounter {
    credit: f64,
}

impl ByteCounter {
    pub const fn new() -> Self {
        ByteCounter { credit: 0.0 }
    }

    /// Account `bytes_acked` toward growth of `per_round` segments for every `window` bytes
    /// acknowledged; returns the whole segments cwnd grows by on this ACK.
    ///
    /// Values are integers below 2^53 for `per_round = 1`, so that case is exact.
    pub fn on_ack(&mut self, bytes_acked: u64, per_round: f64, window: u64) -> u64 {
        if window == 0 || per_round <= 0.0 {
            return 0;
        }
        self.credit += per_round * bytes_acked as f64;
        let window = window as f64;
        if self.credit < window {
            return 0;
        }
        let segments = (self.credit / window).floor();
        self.credit -= segments * window;
        segments as u64
    }

    /// Drop the carried credit (after a window reduction, as Reno does).
    pub fn reset(&mut self) {
        self.credit = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_per_window_like_reno() {
        let mut c = ByteCounter::new();
        // window 10 000 bytes, 1000-byte ACKs: the tenth ACK earns the segment.
        for _ in 0..9 {
            assert_eq!(c.on_ack(1000, 1.0, 10_000), 0);
        }
        assert_eq!(c.on_ack(1000, 1.0, 10_000), 1);
        // Delayed ACKs of 2000 bytes: five ACKs per window, still one segment.
        for _ in 0..4 {
            assert_eq!(c.on_ack(2000, 1.0, 10_000), 0);
        }
        assert_eq!(c.on_ack(2000, 1.0, 10_000), 1);
    }

    #[test]
    fn several_segments_per_round() {
        let mut c = ByteCounter::new();
        // a = 10 segments per 20 000-byte window: each 1000-byte ACK earns 10 000 credit,
        // so every second ACK adds one segment, 10 per window.
        let grown: u64 = (0..20).map(|_| c.on_ack(1000, 10.0, 20_000)).sum();
        assert_eq!(grown, 10);
        // a = 0.25 (exact in binary): 250 credit per 1000-byte ACK, one segment per
        // 20 000 / 250 = 80 ACKs: 2 segments after 239 ACKs, the third at ACK 240.
        let mut c = ByteCounter::new();
        let grown: u64 = (0..239).map(|_| c.on_ack(1000, 0.25, 20_000)).sum();
        assert_eq!(grown, 2);
        assert_eq!(c.on_ack(1000, 0.25, 20_000), 1);
    }

    #[test]
    fn nothing_for_an_empty_window_or_no_increase() {
        let mut c = ByteCounter::new();
        assert_eq!(c.on_ack(1000, 1.0, 0), 0);
        assert_eq!(c.on_ack(1000, 0.0, 1000), 0);
        c.on_ack(900, 1.0, 1000);
        c.reset();
        assert_eq!(c.on_ack(900, 1.0, 1000), 0);
    }
}
