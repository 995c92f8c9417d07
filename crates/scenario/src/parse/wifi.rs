//! `kind = "wifi"` link keys: `preset` and the overrides of its values.

use super::section::Section;
use crate::error::ScenarioError;
use crate::wifi::WifiConfig;

/// Keys of a Wi-Fi link beyond a wired link's.
pub(super) const KEYS: &[&str] = &["kind", "preset"];

pub(super) fn wifi(section: &Section) -> Result<WifiConfig, ScenarioError> {
    Err(section.invalid("kind", "Wi-Fi links are not built yet"))
}
