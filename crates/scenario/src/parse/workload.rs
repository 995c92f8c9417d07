//! `kind = "workload"` flow keys: `load`, `load_link`, `sizes`.

use super::section::Section;
use crate::error::ScenarioError;
use crate::traffic::WorkloadConfig;

pub(super) fn workload(section: &Section) -> Result<WorkloadConfig, ScenarioError> {
    Err(section.invalid("kind", "workloads are not built yet"))
}
