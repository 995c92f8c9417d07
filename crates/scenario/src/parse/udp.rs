//! `kind = "udp"` flow keys: `rate`, `pattern` (and `on`, `off`).

use super::section::Section;
use crate::error::ScenarioError;
use crate::traffic::UdpConfig;

pub(super) fn udp(section: &Section) -> Result<UdpConfig, ScenarioError> {
    Err(section.invalid("kind", "UDP flows are not built yet"))
}
