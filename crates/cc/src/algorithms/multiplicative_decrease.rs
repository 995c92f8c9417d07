//! The window reduction shared by the loss-based controllers of this crate.
//!
//! Every source here states its decrease as `w <- factor * w` (HighSpeed's 1 - b(w),
//! Scalable's 0.875, BIC's 0.8, CUBIC's β = 0.7, H-TCP's adaptive β, Reno's 0.5). Like
//! reno.rs (RFC 5681 eq. 4) and RFC 9438 §4.6 we apply it to FlightSize, the data actually
//! outstanding when the loss was detected, and never go below 2 SMSS. Linux applies it to
//! snd_cwnd; the two agree whenever the sender was cwnd-limited, which is the only case in
//! which these controllers grow cwnd (`Ack::may_grow`).

/// `max(round(bytes_in_flight * retain), 2 * mss)`: the new ssthresh after a reduction that
/// keeps the fraction `retain` of FlightSize. Rounding to the nearest byte (not truncating)
/// keeps factors such as 0.67 = 1 - 0.33, which binary floating point cannot hold exactly,
/// from losing a byte.
pub fn multiplicative_decrease(bytes_in_flight: u64, retain: f64, mss: u64) -> u64 {
    let reduced = (bytes_in_flight as f64 * retain).round();
    // Casting a non-negative finite f64 saturates at u64::MAX; a NaN factor gives 0 and
    // then the 2-SMSS floor.
    (reduced.max(0.0) as u64).max(2 * mss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_fraction_of_flight_size_rounded_and_floored() {
        // 1e6 * (1 - 0.33) is 669 999.999… in binary floating point; rounding gives 670 000.
        assert_eq!(
            multiplicative_decrease(1_000_000, 1.0 - 0.33, 1000),
            670_000
        );
        // Reno's half: 31 000 / 2 = 15 500.
        assert_eq!(multiplicative_decrease(31_000, 0.5, 1000), 15_500);
        // Floor: 3000 * 0.5 = 1500 < 2 SMSS = 2000.
        assert_eq!(multiplicative_decrease(3000, 0.5, 1000), 2000);
        assert_eq!(multiplicative_decrease(0, 0.7, 1448), 2896);
    }
}
