//! Reading an output folder's files back for figures: columns by name, streamed row by row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::PlotError;

fn data_error(path: &Path, message: impl Into<String>) -> PlotError {
    PlotError::Data {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Call `f` with the cells of `columns` for every record of the CSV file at `path`.
pub fn for_each_row(
    path: &Path,
    columns: &[&str],
    mut f: impl FnMut(&[&str]) -> Result<(), String>,
) -> Result<(), PlotError> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| data_error(path, e.to_string()))?;
    let header = reader
        .headers()
        .map_err(|e| data_error(path, e.to_string()))?
        .clone();
    let indexes: Vec<usize> = columns
        .iter()
        .map(|c| {
            header
                .iter()
                .position(|h| h == *c)
                .ok_or_else(|| data_error(path, format!("no column `{c}`")))
        })
        .collect::<Result<_, _>>()?;
    let mut record = csv::StringRecord::new();
    let mut line = 1;
    while reader
        .read_record(&mut record)
        .map_err(|e| data_error(path, e.to_string()))?
    {
        line += 1;
        let cells: Vec<&str> = indexes
            .iter()
            .map(|&i| record.get(i).unwrap_or(""))
            .collect();
        f(&cells).map_err(|m| data_error(path, format!("line {line}: {m}")))?;
    }
    Ok(())
}

/// A number from a cell; `None` for an empty cell.
pub fn number(cell: &str) -> Result<Option<f64>, String> {
    if cell.is_empty() {
        return Ok(None);
    }
    cell.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("`{cell}` is not a number"))
}

pub fn required(cell: &str) -> Result<f64, String> {
    number(cell)?.ok_or_else(|| "a required cell is empty".to_string())
}

/// Per-flow series of (time, value) points, keyed by flow id.
pub type FlowSeries = BTreeMap<u32, Vec<(f64, f64)>>;

/// Read `columns` of a per-flow CSV (`time_s`, `flow`, then `columns`) into one series per
/// column and flow, scaling each value by `scale[i]`. Empty cells are skipped.
pub fn flow_series(
    path: &Path,
    columns: &[&str],
    scale: &[f64],
    window: (f64, f64),
) -> Result<Vec<FlowSeries>, PlotError> {
    let mut names = vec!["time_s", "flow"];
    names.extend_from_slice(columns);
    let mut out = vec![FlowSeries::new(); columns.len()];
    for_each_row(path, &names, |cells| {
        let t = required(cells[0])?;
        if t < window.0 || t > window.1 {
            return Ok(());
        }
        let flow: u32 = cells[1]
            .parse()
            .map_err(|_| format!("`{}` is not a flow id", cells[1]))?;
        for (i, cell) in cells[2..].iter().enumerate() {
            if let Some(v) = number(cell)? {
                out[i].entry(flow).or_default().push((t, v * scale[i]));
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// What a run folder's `summary.json` tells the figures: its name and each flow's algorithm.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    pub scenario: String,
    /// Width of the bins of `rates.csv`.
    pub rate_interval_s: f64,
    pub flow_cc: BTreeMap<u32, String>,
    /// Each flow's `[[flows]]` table (its group in `summary.json`).
    pub flow_group: BTreeMap<u32, u32>,
}

pub fn run_info(dir: &Path) -> Result<RunInfo, PlotError> {
    let path: PathBuf = dir.join("summary.json");
    let bytes = std::fs::read(&path).map_err(|source| PlotError::Io {
        path: path.clone(),
        source,
    })?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| data_error(&path, e.to_string()))?;
    let mut info = RunInfo {
        scenario: value["scenario"].as_str().unwrap_or("run").to_string(),
        rate_interval_s: value["window"]["rate_interval_s"].as_f64().unwrap_or(0.1),
        ..RunInfo::default()
    };
    if let Some(flows) = value["flows"].as_array() {
        for f in flows {
            if let (Some(id), Some(cc)) = (f["id"].as_u64(), f["cc"].as_str()) {
                info.flow_cc.insert(id as u32, cc.to_string());
            }
            if let (Some(id), Some(group)) = (f["id"].as_u64(), f["group"].as_u64()) {
                info.flow_group.insert(id as u32, group as u32);
            }
        }
    }
    Ok(info)
}

impl RunInfo {
    pub fn flow_label(&self, flow: u32) -> String {
        match self.flow_cc.get(&flow) {
            Some(cc) => format!("flow {flow} ({cc})"),
            None => format!("flow {flow}"),
        }
    }
}
