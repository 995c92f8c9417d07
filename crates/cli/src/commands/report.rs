//! `cclab report DIR`: one self-contained `report.html` for a run or sweep folder (written
//! by `run`, `sweep` and `sweep merge` at their end too, unless `--no-report`).

use std::path::Path;

use anyhow::anyhow;
use cclab_analysis::html_report::{ReportError, ReportOptions, ScenarioText, write_report};
use cclab_scenario::one_line;

use crate::Failure;

/// The scenario file's text for the report, as given on the command line. A file that
/// cannot be read again (it was read a moment ago) leaves the report without it.
pub fn scenario_text(file: &Path, overrides: &[String]) -> Option<ScenarioText> {
    let text = std::fs::read_to_string(file).ok()?;
    Some(ScenarioText {
        file: file.display().to_string(),
        text,
        overrides: overrides.to_vec(),
    })
}

fn failure(e: ReportError) -> Failure {
    match e {
        ReportError::NotAnOutputFolder { .. } => Failure::BadInput(e.into()),
        ReportError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Failure::BadInput(e.into())
        }
        other => Failure::RunFailed(other.into()),
    }
}

/// Write `dir/report.html` and say where it is.
pub fn write(dir: &Path, options: &ReportOptions) -> Result<(), Failure> {
    let path = write_report(dir, options).map_err(failure)?;
    crate::emit(&format!("report in {}\n", path.display()));
    Ok(())
}

/// `cclab report DIR [--scenario FILE]`.
pub fn report(dir: &Path, scenario: Option<&Path>) -> Result<(), Failure> {
    let scenario = match scenario {
        Some(file) => Some(scenario_text(file, &[]).ok_or_else(|| {
            Failure::BadInput(anyhow!(
                "--scenario {}: cannot read the file",
                one_line(&file.display().to_string())
            ))
        })?),
        None => None,
    };
    write(
        dir,
        &ReportOptions {
            figures: true,
            scenario,
            sections: Vec::new(),
        },
    )
}
