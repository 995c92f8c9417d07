//! What a reproduction is: the sweeps it runs ([`Study`]) and how it turns their results into
//! a report ([`Reproduction::analyze`]).

use std::path::{Path, PathBuf};

use cclab_analysis::results::{Row, SweepManifest};

use super::report::Report;

/// One sweep of a reproduction: a sweep file (a scenario plus a `[sweep]` table) that runs
/// into `runs/<name>/` and is written to `scenarios/<name>.toml`, so that a user can change it
/// and run it again with `cclab sweep`.
#[derive(Clone, Debug)]
pub struct Study {
    /// File stem: letters, digits and `-`.
    pub name: String,
    /// The exact text that runs (`--quick` variants are other texts, not overrides, so that
    /// the file written is the file that ran).
    pub toml: String,
    /// Keep each run's own folder (`runs/<name>/runs/<run id>/`: timeseries.csv, queue.csv,
    /// packets) for trajectory figures.
    pub keep_runs: bool,
}

impl Study {
    pub fn new(name: impl Into<String>, toml: impl Into<String>) -> Study {
        Study {
            name: name.into(),
            toml: toml.into(),
            keep_runs: false,
        }
    }

    /// Keep each run's folder.
    pub fn keep_runs(mut self) -> Study {
        self.keep_runs = true;
        self
    }
}

/// One source paper's experiments.
pub trait Reproduction: Sync {
    /// The command-line name, e.g. `smooth-start`.
    fn name(&self) -> &'static str;
    /// The seed paper's number in `seeds/`, e.g. `000`.
    fn seed(&self) -> &'static str;
    /// The paper, as cited.
    fn title(&self) -> &'static str;
    /// One line for `cclab reproduce list`.
    fn summary(&self) -> &'static str;
    /// The sweeps to run; `quick` keeps every figure but shortens runs and thins grids.
    fn studies(&self, quick: bool) -> Vec<Study>;
    /// Figures, tables and the comparison with the paper, from the finished studies.
    fn analyze(&self, data: &Studies, report: &mut Report) -> anyhow::Result<()>;
}

/// The finished studies of one reproduction, read from its output folder.
pub struct Studies {
    dir: PathBuf,
    quick: bool,
}

impl Studies {
    pub fn new(dir: &Path, quick: bool) -> Studies {
        Studies {
            dir: dir.to_path_buf(),
            quick,
        }
    }

    /// Whether this is the `--quick` form.
    pub fn quick(&self) -> bool {
        self.quick
    }

    /// The sweep folder of `study`.
    pub fn study_dir(&self, study: &str) -> PathBuf {
        self.dir.join("runs").join(study)
    }

    /// The rows of `study` in sweep order (runs that failed are absent).
    pub fn rows(&self, study: &str) -> anyhow::Result<Vec<Row>> {
        let dir = self.study_dir(study);
        let manifest = SweepManifest::read(&dir).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot read the study `{study}` ({e}); was it among the studies run?",
                dir.display()
            )
        })?;
        Ok(manifest.rows(&dir))
    }

    /// The kept folder of one run of `study` (the study must set [`Study::keep_runs`]).
    pub fn run_dir(&self, study: &str, row: &Row) -> PathBuf {
        self.study_dir(study).join("runs").join(&row.id)
    }
}

/// A row's swept value of `key` (as written in the sweep file, e.g. `"10Mbps"`).
pub fn param<'a>(row: &'a Row, key: &str) -> Option<&'a str> {
    row.params
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A row's metric `column` as a number (`None` when absent or empty).
pub fn metric(row: &Row, column: &str) -> Option<f64> {
    row.get(column)?.parse().ok()
}

/// A result row for the analyses' tests: swept `params` and metric `columns`, as a sweep's
/// `results.csv` gives them (text).
#[cfg(test)]
pub fn test_row(params: &[(&str, &str)], columns: &[(String, String)]) -> Row {
    Row {
        id: "test".into(),
        index: 0,
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        replicate: 0,
        seed: 1,
        columns: columns.iter().map(|(k, _)| k.clone()).collect(),
        values: columns.iter().map(|(_, v)| v.clone()).collect(),
        wall_s: 0.0,
    }
}
