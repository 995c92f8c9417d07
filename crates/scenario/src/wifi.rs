//! `kind = "wifi"`: the parameters of a shared Wi-Fi medium and its presets.

/// A Wi-Fi link's parameters (preset values, each overridable by key).
#[derive(Clone, Debug, PartialEq)]
pub struct WifiConfig {}
