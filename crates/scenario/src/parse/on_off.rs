//! A TCP flow's `on_off` application.

use super::section::Section;
use crate::error::ScenarioError;
use crate::traffic::OnOff;

pub(super) fn on_off(section: &Section) -> Result<OnOff, ScenarioError> {
    Err(section.invalid("on_off", "on/off applications are not built yet"))
}
