//! The figures of a folder (`DIR/figures/*.svg`, `*.png`), embedded in the report as
//! `data:` URLs in `<img>` elements: an image element never runs a script an SVG file might
//! hold, and the figures keep their own fonts and sizes, scaled to the page by CSS.

use std::fmt::Write;
use std::path::Path;

use super::ReportError;
use super::base64;
use super::html::{Html, escape};
use crate::output::FIGURES_DIR;

/// The largest SVG embedded as it is. A figure's SVG grows with what it draws — a sequence
/// plot of 20 000 transmissions is some 2 MB, 3 MB in base64 — while its PNG (1000 × 600)
/// stays under about 100 kB; above this size the PNG is embedded instead, when the folder has
/// it, so a report stays a few megabytes at most.
pub const SVG_LIMIT_BYTES: u64 = 512 * 1024;

/// A figure file to embed: SVG when the folder has it (and it is at most [`SVG_LIMIT_BYTES`]
/// or there is no PNG), else PNG (`cclab plot --format png`).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// File name without extension, e.g. `cwnd`, `sequence-flow0`.
    pub stem: String,
    pub file_name: String,
    pub mime: &'static str,
    pub bytes: Vec<u8>,
}

/// Run figures in the order a reader wants them (figures.md's table), then the others
/// (sequence plots by flow number, sweep figures by name).
fn order_key(stem: &str) -> (usize, u64, String) {
    const FIRST: &[&str] = &["cwnd", "throughput", "rtt", "queue", "fct"];
    if let Some(i) = FIRST.iter().position(|s| *s == stem) {
        return (i, 0, String::new());
    }
    if let Some(flow) = stem
        .strip_prefix("sequence-flow")
        .and_then(|n| n.parse().ok())
    {
        return (FIRST.len(), flow, String::new());
    }
    (FIRST.len() + 1, 0, stem.to_string())
}

/// Every figure of `dir/figures`, in reading order. A folder without figures (`--no-plots`)
/// has none.
pub fn read_figures(dir: &Path) -> Result<Vec<Figure>, ReportError> {
    let folder = dir.join(FIGURES_DIR);
    let entries = match std::fs::read_dir(&folder) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(ReportError::io(&folder, source)),
    };
    let mut stems: Vec<(String, bool, bool)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| ReportError::io(&folder, source))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // Temporary files of a figure being written (`.cwnd.svg.tmp`) are not figures.
        if name.starts_with('.') {
            continue;
        }
        let path = Path::new(&name);
        let (Some(stem), Some(ext)) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|e| e.to_str()),
        ) else {
            continue;
        };
        let (svg, png) = (ext == "svg", ext == "png");
        if !(svg || png) {
            continue;
        }
        match stems.iter_mut().find(|(s, _, _)| s == stem) {
            Some(found) => {
                found.1 |= svg;
                found.2 |= png;
            }
            None => stems.push((stem.to_string(), svg, png)),
        }
    }
    stems.sort_by_key(|(stem, _, _)| order_key(stem));
    let mut figures = Vec::with_capacity(stems.len());
    for (stem, svg, png) in stems {
        let small = |ext: &str| {
            std::fs::metadata(folder.join(format!("{stem}.{ext}")))
                .is_ok_and(|m| m.len() <= SVG_LIMIT_BYTES)
        };
        let (ext, mime) = if svg && (!png || small("svg")) {
            ("svg", "image/svg+xml")
        } else {
            ("png", "image/png")
        };
        let file_name = format!("{stem}.{ext}");
        let path = folder.join(&file_name);
        let bytes = std::fs::read(&path).map_err(|source| ReportError::io(&path, source))?;
        figures.push(Figure {
            stem,
            file_name,
            mime,
            bytes,
        });
    }
    Ok(figures)
}

/// One figure as a card: the interactive chart's place (filled by the script when the
/// report has data for it), the image, and the file name as caption.
pub fn figure_card(figure: &Figure, chart: Option<&str>) -> Html {
    let mut out = String::new();
    let stem = escape(&figure.stem);
    let _ = write!(out, "<figure class=\"fig\" id=\"fig-{stem}\">");
    if let Some(chart) = chart {
        let _ = write!(
            out,
            "<div class=\"chart\" data-chart=\"{}\" hidden></div>",
            escape(chart)
        );
    }
    let _ = write!(
        out,
        "<img class=\"static\" alt=\"figure {stem}\" src=\"data:{};base64,{}\">",
        figure.mime,
        base64::encode(&figure.bytes)
    );
    let _ = write!(
        out,
        "<figcaption>figures/{}</figcaption></figure>",
        escape(&figure.file_name)
    );
    Html::markup(out)
}
