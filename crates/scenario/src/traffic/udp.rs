//! `kind = "udp"`: unresponsive traffic (constant bit rate, Poisson or on/off) at a given
//! rate, the cross traffic of TCP evaluations. docs/traffic.md describes the model.

use super::on_off::Periods;

/// Header bytes of a UDP datagram on the wire: IPv4 (20) + UDP (8).
pub const UDP_HEADER_BYTES: u32 = 28;

/// Default wire size of a UDP packet: a full Ethernet MTU, the size of cclab's default TCP
/// data packets (MSS 1448 + 52 header bytes), so the two kinds share a queue in like units.
pub const DEFAULT_PACKET_SIZE: u32 = 1500;

/// When a UDP source sends its packets.
#[derive(Clone, Debug, PartialEq)]
pub enum UdpPattern {
    /// Constant bit rate: one packet every `packet_size × 8 / rate` seconds.
    Cbr,
    /// Poisson arrivals: exponential gaps with mean `packet_size × 8 / rate`.
    Poisson,
    /// Constant bit rate at `rate` during on periods, silence during off periods.
    OnOff(Periods),
}

impl UdpPattern {
    /// The name in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            UdpPattern::Cbr => "cbr",
            UdpPattern::Poisson => "poisson",
            UdpPattern::OnOff(_) => "on-off",
        }
    }
}

/// An unresponsive source's rate and pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpConfig {
    /// Bit/s on the wire (headers included) while sending: the link capacity the source
    /// takes. For `on-off`, the rate during on periods.
    pub rate_bps: u64,
    pub pattern: UdpPattern,
    /// Bytes on the wire per packet, headers included.
    pub packet_size: u32,
}

impl UdpConfig {
    /// Payload bytes per packet: what counts as delivered (goodput), as for TCP.
    pub fn payload_bytes(&self) -> u32 {
        self.packet_size - UDP_HEADER_BYTES
    }

    /// The long-run mean wire rate in bit/s: `rate`, or `rate × on / (on + off)` for on/off
    /// (the mean on and off lengths, whether fixed or exponential).
    pub fn mean_rate_bps(&self) -> f64 {
        match &self.pattern {
            UdpPattern::Cbr | UdpPattern::Poisson => self.rate_bps as f64,
            UdpPattern::OnOff(p) => {
                let (on, off) = (p.on.as_nanos() as f64, p.off.as_nanos() as f64);
                self.rate_bps as f64 * on / (on + off)
            }
        }
    }
}
