//! `kind = "udp"`: unresponsive traffic (constant bit rate, Poisson or on/off).

/// An unresponsive source's rate and pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpConfig {}
