//! Byte-counted additive increase, shared by the loss-based controllers of this crate.
//!
//! Window-growth rules in the papers are written per ACK of one segment as
//! `cwnd += A / cwnd` (cwnd in segments), which adds `A` segments per round trip. Counted
//! in bytes (RFC 3465 §2.1, as reno.rs and Linux's `tcp_cong_avoid_ai` count), a credit
//! grows by `A * bytes_acked` per ACK and every time it reaches cwnd (in bytes) cwnd grows
//! by one SMSS. That is exactly `A` SMSS per cwnd bytes acknowledged whatever the ACK
//! granularity, so delayed ACKs (2 SMSS per ACK) give the same per-RTT growth as one ACK
//! per segment. `A` may be fractional (BIC's S_min = 0.01) or large (Hybla's ρ² = 400).

/// The fractional part of an additive increase that has not yet become a whole SMSS.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ByteCountedIncrease {
    /// Sum of `A * bytes_acked` since cwnd last grew; cwnd grows by one SMSS per cwnd of it.
    credit: f64,
}

impl ByteCountedIncrease {
    pub const fn new() -> Self {
        ByteCountedIncrease { credit: 0.0 }
    }

    /// Grow `cwnd` (bytes) for one ACK of `bytes_acked` bytes at a rate of
    /// `segments_per_window` SMSS per cwnd bytes acknowledged (the `A` of `cwnd += A/cwnd`).
    ///
    /// cwnd is held fixed while one ACK is credited, as in the per-ACK formula; an ACK whose
    /// credit covers several windows adds several SMSS at once.
    pub fn grow(&mut self, cwnd: &mut u64, mss: u64, bytes_acked: u64, segments_per_window: f64) {
        if *cwnd == 0 || segments_per_window.is_nan() || segments_per_window <= 0.0 {
            return;
        }
        self.credit += segments_per_window * bytes_acked as f64;
        let window = *cwnd as f64;
        if self.credit >= window {
            let steps = (self.credit / window).floor();
            self.credit -= steps * window;
            *cwnd = cwnd.saturating_add((steps as u64).saturating_mul(mss));
        }
    }

    /// Forget the pending credit (after a window reduction: it was earned at another cwnd).
    pub fn reset(&mut self) {
        self.credit = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn one_segment_per_window_is_reno() {
        // A = 1, cwnd = 10 SMSS: +1 SMSS after 10 000 bytes, whatever the ACK size.
        let mut ai = ByteCountedIncrease::new();
        let mut cwnd = 10 * MSS;
        for _ in 0..9 {
            ai.grow(&mut cwnd, MSS, MSS, 1.0);
        }
        assert_eq!(cwnd, 10 * MSS);
        ai.grow(&mut cwnd, MSS, MSS, 1.0);
        assert_eq!(cwnd, 11 * MSS);
        // Delayed ACKs: 11 000 bytes in ACKs of 2000 => the 6th ACK (12 000 bytes) steps.
        for _ in 0..5 {
            ai.grow(&mut cwnd, MSS, 2 * MSS, 1.0);
        }
        assert_eq!(cwnd, 11 * MSS);
        ai.grow(&mut cwnd, MSS, 2 * MSS, 1.0);
        assert_eq!(cwnd, 12 * MSS);
    }

    #[test]
    fn large_and_fractional_increases() {
        // A = 25 at cwnd = 10 SMSS: one 1000-byte ACK earns 25 000 = 2.5 windows => +2 SMSS,
        // 5000 left over; the next ACK brings it to 30 000 => +3 SMSS (window held at 12 000
        // while crediting: floor(30 000 / 12 000) = 2). Then 6000 remain.
        let mut ai = ByteCountedIncrease::new();
        let mut cwnd = 10 * MSS;
        ai.grow(&mut cwnd, MSS, MSS, 25.0);
        assert_eq!(cwnd, 12 * MSS);
        ai.grow(&mut cwnd, MSS, MSS, 25.0);
        assert_eq!(cwnd, 14 * MSS);
        // A = 0.5 at 14 SMSS: 0.5 * 1000 = 500 per ACK, 6000 + 500k >= 14 000 at k = 16.
        for _ in 0..15 {
            ai.grow(&mut cwnd, MSS, MSS, 0.5);
        }
        assert_eq!(cwnd, 14 * MSS);
        ai.grow(&mut cwnd, MSS, MSS, 0.5);
        assert_eq!(cwnd, 15 * MSS);
    }

    #[test]
    fn reset_forgets_credit_and_nonpositive_rates_do_nothing() {
        let mut ai = ByteCountedIncrease::new();
        let mut cwnd = 10 * MSS;
        ai.grow(&mut cwnd, MSS, 9 * MSS, 1.0);
        ai.reset();
        ai.grow(&mut cwnd, MSS, MSS, 1.0);
        assert_eq!(cwnd, 10 * MSS, "9000 bytes of credit were forgotten");
        ai.grow(&mut cwnd, MSS, 100 * MSS, 0.0);
        ai.grow(&mut cwnd, MSS, 100 * MSS, -1.0);
        assert_eq!(cwnd, 10 * MSS);
    }
}
