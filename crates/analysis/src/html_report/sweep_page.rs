//! The sections of a sweep folder's report: what was swept, the results table (its first
//! rows: a sweep may have 100 000) and the comparison figures.

use std::path::Path;

use super::html::Html;
use super::run_page::scenario_text;
use super::values::csv_cell;
use super::{ReportError, ScenarioText, Section};
use crate::results::SweepManifest;

/// Rows of results.csv the report holds (the page shows them [`super::PAGE_ROWS`] at a time).
/// At about 20 cells of ten characters, 500 rows are some 150 kB of HTML: the report of a
/// 100 000-run sweep stays the size of a small one; every row is in results.csv.
pub const RESULT_ROWS: usize = 500;

/// Values listed per swept key in the sweep's description.
const VALUES_LISTED: usize = 30;

/// The first [`RESULT_ROWS`] rows of results.csv (the run id, the swept keys, the replicate
/// and the `aggregate.*` metrics), the number of rows, and the distinct values of each swept
/// key in order of appearance.
struct Results {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    total: usize,
    values: Vec<(String, Vec<String>)>,
}

fn read_results(dir: &Path, axes: &[String]) -> Result<Option<Results>, ReportError> {
    let path = dir.join("results.csv");
    if !path.exists() {
        return Ok(None);
    }
    let mut reader = csv::Reader::from_path(&path).map_err(|e| ReportError::csv(&path, e))?;
    let headers = reader
        .headers()
        .map_err(|e| ReportError::csv(&path, e))?
        .clone();
    // Columns shown: the run's identity, then the aggregate metrics (per-flow and per-link
    // columns make hundreds; they are in results.csv).
    let shown: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            *h == "run_id"
                || *h == "replicate"
                || axes.iter().any(|a| a == h)
                || h.starts_with("aggregate.")
        })
        .map(|(i, _)| i)
        .collect();
    let axis_columns: Vec<(String, usize)> = axes
        .iter()
        .filter_map(|a| headers.iter().position(|h| h == a).map(|i| (a.clone(), i)))
        .collect();
    let mut values: Vec<(String, Vec<String>)> = axis_columns
        .iter()
        .map(|(a, _)| (a.clone(), Vec::new()))
        .collect();
    let mut rows = Vec::new();
    let mut total = 0;
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| ReportError::csv(&path, e))?
    {
        total += 1;
        for ((_, column), (_, seen)) in axis_columns.iter().zip(values.iter_mut()) {
            let value = record.get(*column).unwrap_or("");
            // A bounded list: a key with thousands of values is summarised by its count.
            if seen.len() <= VALUES_LISTED && !seen.iter().any(|v| v == value) {
                seen.push(value.to_string());
            }
        }
        if rows.len() < RESULT_ROWS {
            rows.push(
                shown
                    .iter()
                    .map(|&i| csv_cell(record.get(i).unwrap_or("")))
                    .collect(),
            );
        }
    }
    // Columns empty in every row shown (index A of a one-flow sweep) are left out.
    let keep: Vec<bool> = (0..shown.len())
        .map(|c| {
            let name = &headers[shown[c]];
            !name.starts_with("aggregate.") || rows.iter().any(|r: &Vec<String>| !r[c].is_empty())
        })
        .collect();
    let header = shown
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(&i, _)| {
            let h = &headers[i];
            h.strip_prefix("aggregate.").unwrap_or(h).to_string()
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c)
                .collect()
        })
        .collect();
    Ok(Some(Results {
        header,
        rows,
        total,
        values,
    }))
}

/// The sweep's description and its results table.
pub fn sweep_sections(
    dir: &Path,
    manifest: &SweepManifest,
    given: Option<&ScenarioText>,
) -> Result<Vec<Section>, ReportError> {
    let results = read_results(dir, &manifest.axes)?;
    let recorded = results.as_ref().map_or(0, |r| r.total);
    let mut about = Html::default();
    let mut pairs = vec![
        ("sweep".to_string(), manifest.name.clone()),
        ("runs planned".to_string(), manifest.runs.len().to_string()),
        ("runs in results.csv".to_string(), recorded.to_string()),
        ("fingerprint".to_string(), manifest.fingerprint.clone()),
    ];
    if let Some(results) = &results {
        for (key, values) in &results.values {
            let mut listed = values
                .iter()
                .take(VALUES_LISTED)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if values.len() > VALUES_LISTED {
                listed.push_str(", …");
            }
            pairs.push((format!("swept: {key}"), listed));
        }
    } else {
        for key in &manifest.axes {
            pairs.push((format!("swept: {key}"), String::new()));
        }
    }
    about.push(Html::key_values(&pairs));
    if recorded < manifest.runs.len() {
        about.push(Html::note(&format!(
            "{} runs are not in results.csv yet (`cclab sweep status DIR` tells which).",
            manifest.runs.len() - recorded
        )));
    }
    about.push(scenario_text(given));
    let mut table = Html::default();
    match results {
        Some(results) => {
            table.push(Html::note(&format!(
                "{} of {} rows: the run id, the swept keys, the replicate and the aggregate metrics (columns `aggregate.*`, named without the prefix; docs/metrics.md). Every row and column is in results.csv.",
                results.rows.len(),
                results.total
            )));
            let header: Vec<&str> = results.header.iter().map(String::as_str).collect();
            let mut rows = Html::table(&header, &results.rows);
            // The script pages long tables; without it every row held is shown.
            rows = Html::markup(rows.as_str().replacen(
                "<div class=\"table-wrap\">",
                "<div class=\"table-wrap paged\">",
                1,
            ));
            table.push(rows);
        }
        None => table.push(Html::note(
            "No results.csv yet: the sweep has not gathered its rows.",
        )),
    }
    Ok(vec![
        Section::new("sweep", "Sweep", about),
        Section::new("results", "Results", table),
    ])
}
