//! Serialization times at a fixed rate with the sub-nanosecond remainder carried from packet
//! to packet (links and TCP Small Queues' view of the NIC), without a division per packet.
//!
//! A packet of `bytes` after a remainder `carry < rate` takes `(bytes·8·10⁹ + carry) / rate`
//! ns and leaves `(bytes·8·10⁹ + carry) mod rate`. With `q` and `r` the quotient and
//! remainder of `bytes·8·10⁹ / rate`, that is `q + (r + carry) / rate`, where `r + carry <
//! 2·rate`: `q` or `q + 1`, decided by one comparison. `q` and `r` are kept for the size seen
//! last (a link carries mostly one size of packet), so the 64-bit division (tens of cycles)
//! runs only when the size changes. The result is exactly the division's.

use cclab_cc::SimDuration;

/// The quotient and remainder of `bytes·8·10⁹ / rate` for the size seen last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Serialization {
    bytes: u64,
    nanos: u64,
    remainder: u64,
}

impl Serialization {
    pub(crate) fn new(rate_bps: u64) -> Serialization {
        Serialization::of(0, rate_bps)
    }

    fn of(bytes: u64, rate_bps: u64) -> Serialization {
        let numerator = bytes * 8 * 1_000_000_000;
        Serialization {
            bytes,
            nanos: numerator / rate_bps,
            remainder: numerator % rate_bps,
        }
    }

    /// The time `bytes` take at `rate_bps` after `carry` (below `rate_bps`), which becomes
    /// the remainder this packet leaves.
    #[inline(always)]
    pub(crate) fn time(&mut self, bytes: u64, rate_bps: u64, carry: &mut u64) -> SimDuration {
        if bytes != self.bytes {
            *self = Serialization::of(bytes, rate_bps);
        }
        let remainder = self.remainder + *carry;
        let nanos = if remainder >= rate_bps {
            *carry = remainder - rate_bps;
            self.nanos + 1
        } else {
            *carry = remainder;
            self.nanos
        };
        SimDuration::from_nanos(nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the division it replaces, over rates that do and do not divide 8·10⁹ per
    /// byte, sizes that change and repeat, and carries that do and do not roll over.
    #[test]
    fn equals_the_division_with_carry() {
        for rate in [
            1u64,
            7,
            1_000_000,
            12_000_000,
            99_999_989,
            1_000_000_000,
            10_000_000_007,
        ] {
            let mut serialization = Serialization::new(rate);
            let (mut carry, mut expected_carry) = (0u64, 0u64);
            for i in 0..2000u64 {
                let bytes = [1500, 1500, 52, 1500, 64, 1][(i % 6) as usize] + i % 3;
                let numerator = bytes * 8 * 1_000_000_000 + expected_carry;
                let expected = numerator / rate;
                expected_carry = numerator % rate;
                let time = serialization.time(bytes, rate, &mut carry);
                assert_eq!((time.as_nanos(), carry), (expected, expected_carry));
            }
        }
    }
}
