//! How long a Wi-Fi transmission occupies the medium, from the link's parameters.
//!
//! One transmission (a TXOP of one exchange) is a data PPDU carrying an A-MPDU, then SIFS, then
//! the receiver's block ACK:
//!
//! ```text
//! exchange = preamble + 8 · aggregate_bytes / phy_rate + SIFS + block_ack
//! ```
//!
//! where each frame of the aggregate is an A-MPDU subframe: its IP packet plus
//! `frame_overhead` bytes (MAC header, FCS, LLC/SNAP, MPDU delimiter), padded to a multiple of
//! 4 bytes (IEEE 802.11-2016 §9.7.1, A-MPDU format). OFDM symbol rounding, the service and
//! tail bits are left out: at these rates they add at most one 3.6–4 µs symbol per PPDU.
//! The contention before a transmission (DIFS and backoff) is the medium's, not counted here.

use cclab_cc::SimDuration;
use cclab_scenario::WifiConfig;

/// An A-MPDU subframe's bytes for an IP packet of `wire_bytes`: the frame overhead added,
/// then padded to 4 bytes.
pub fn subframe_bytes(config: &WifiConfig, wire_bytes: u32) -> u64 {
    (wire_bytes as u64 + config.frame_overhead_bytes as u64).next_multiple_of(4)
}

/// Time to send `bytes` at the PHY rate, rounded up to the nanosecond.
pub fn payload_time(config: &WifiConfig, bytes: u64) -> SimDuration {
    let bits_ns = bytes as u128 * 8 * 1_000_000_000;
    SimDuration::from_nanos(bits_ns.div_ceil(config.phy_rate_bps as u128) as u64)
}

/// The data PPDU carrying an aggregate of `aggregate_bytes`: preamble and payload.
pub fn ppdu_time(config: &WifiConfig, aggregate_bytes: u64) -> SimDuration {
    config.preamble + payload_time(config, aggregate_bytes)
}

/// The whole exchange: the data PPDU, SIFS and the block ACK.
pub fn exchange_time(config: &WifiConfig, aggregate_bytes: u64) -> SimDuration {
    ppdu_time(config, aggregate_bytes) + config.sifs + config.block_ack
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_5ghz_aggregate_by_hand() {
        let config = WifiConfig::preset("wifi-5ghz").expect("a preset");
        // A 1500-byte packet: 1500 + 42 = 1542, padded to 1544 bytes.
        assert_eq!(subframe_bytes(&config, 1500), 1544);
        // A 52-byte ACK: 94, padded to 96.
        assert_eq!(subframe_bytes(&config, 52), 96);
        // 64 subframes: 98 816 bytes = 790 528 bits at 866 666 667 bit/s = 912.148 µs
        // (rounded up to the ns), + 44 µs preamble + 16 µs SIFS + 32 µs block ACK.
        let bytes = 64 * 1544;
        assert_eq!(
            payload_time(&config, bytes),
            SimDuration::from_nanos(912_148)
        );
        assert_eq!(
            exchange_time(&config, bytes),
            SimDuration::from_nanos(912_148 + 44_000 + 16_000 + 32_000)
        );
    }
}
