//! `kind = "wifi"`: the parameters of a shared Wi-Fi medium and its presets.
//!
//! A preset is a class of 802.11 link, not a measured device: the PHY rate of one modulation
//! and coding scheme, the MAC timing of the standard, the aggregation limits a block-ACK
//! agreement allows, and a typical per-frame error rate. docs/links.md ("Wi-Fi links") gives
//! the source of every number; each can be overridden by its own key.

use cclab_cc::SimDuration;

/// A Wi-Fi link's parameters (preset values, each overridable by key).
#[derive(Clone, Debug, PartialEq)]
pub struct WifiConfig {
    /// The preset the values started from (`wifi-2.4ghz`, `wifi-5ghz`).
    pub preset: &'static str,
    /// PHY data rate of every data frame, bit/s (`phy_rate`); no rate adaptation.
    pub phy_rate_bps: u64,
    /// Probability that one frame (MPDU) of a transmission is received in error
    /// (`frame_error_rate`), independently per frame and attempt.
    pub frame_error_rate: f64,
    /// Retransmissions of a frame after its first attempt (`retry_limit`); a frame that
    /// fails `retry_limit + 1` times is lost.
    pub retry_limit: u32,
    /// Most frames in one aggregate (A-MPDU), and the block-ACK window (`max_aggregate_frames`).
    pub max_aggregate_frames: u32,
    /// Most bytes in one aggregate, subframe overheads and padding included
    /// (`max_aggregate_bytes`).
    pub max_aggregate_bytes: u64,
    /// Longest data PPDU, preamble included (`max_aggregate_time`).
    pub max_aggregate_time: SimDuration,
    /// Backoff slot (`slot`).
    pub slot: SimDuration,
    /// Short interframe space before the block ACK (`sifs`).
    pub sifs: SimDuration,
    /// Idle time before a backoff counts down (`difs`; AIFS under EDCA).
    pub difs: SimDuration,
    /// Contention window bounds, in slots (`cw_min`, `cw_max`).
    pub cw_min: u32,
    pub cw_max: u32,
    /// PHY preamble and headers of a data PPDU (`preamble`).
    pub preamble: SimDuration,
    /// Duration of the block-ACK frame that answers a transmission (`block_ack`).
    pub block_ack: SimDuration,
    /// Bytes a frame adds to its IP packet in an aggregate (`frame_overhead`): MAC header,
    /// FCS, LLC/SNAP and the A-MPDU delimiter; each subframe is then padded to 4 bytes.
    pub frame_overhead_bytes: u32,
}

/// The preset names, for messages.
pub const WIFI_PRESETS: &[&str] = &["wifi-2.4ghz", "wifi-5ghz"];

/// Microseconds as a duration (presets are written in µs, as the standard's tables are).
const fn us(micros: u64) -> SimDuration {
    SimDuration::from_nanos(micros * 1_000)
}

/// Values both presets share: the OFDM MAC timing and the MPDU framing.
const fn common(preset: &'static str, phy_rate_bps: u64) -> WifiConfig {
    WifiConfig {
        preset,
        phy_rate_bps,
        frame_error_rate: 0.1,
        retry_limit: 6,
        max_aggregate_frames: 64,
        max_aggregate_bytes: 65_535,
        max_aggregate_time: us(5_484),
        slot: us(9),
        sifs: us(16),
        difs: us(34),
        cw_min: 15,
        cw_max: 1023,
        preamble: us(40),
        block_ack: us(32),
        frame_overhead_bytes: 42,
    }
}

impl WifiConfig {
    /// A preset by name.
    pub fn preset(name: &str) -> Option<WifiConfig> {
        match name {
            // 802.11n, 20 MHz, 2 spatial streams, MCS 15, 400 ns guard interval: 144.4 Mbit/s
            // (130 Mbit/s × 10/9); HT-mixed preamble with two HT-LTFs: 40 µs; A-MPDU at
            // most 65 535 bytes (HT maximum A-MPDU length exponent 3).
            "wifi-2.4ghz" => Some(common("wifi-2.4ghz", 144_444_444)),
            // 802.11ac, 80 MHz, 2 spatial streams, MCS 9, 400 ns guard interval: 866.7 Mbit/s
            // (780 Mbit/s × 10/9); VHT preamble with two VHT-LTFs and VHT-SIG-B: 44 µs;
            // A-MPDU up to 1 048 575 bytes (VHT exponent 7).
            "wifi-5ghz" => Some(WifiConfig {
                preamble: us(44),
                max_aggregate_bytes: 1_048_575,
                ..common("wifi-5ghz", 866_666_667)
            }),
            _ => None,
        }
    }
}
