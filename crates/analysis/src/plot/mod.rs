//! Figures with plotters, as SVG and PNG, with an embedded font: no system libraries.
//!
//! Each figure is a plain description ([`chart::TimeChart`], [`sequence::SequenceChart`],
//! [`sweep::SweepChart`]) drawn by one generic function on either backend, so the SVG and the
//! PNG show the same thing. Files are written atomically like every other output.
//!
//! - [`timeseries`]: the figures of one run (cwnd, throughput, RTT, queue with drops);
//! - [`sequence`]: tcptrace-style sequence plots of traced flows;
//! - [`sweep`]: a metric against a swept parameter, one line per algorithm.

pub mod chart;
pub mod data;
pub mod sequence;
pub mod sweep;
pub mod timeseries;

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::output::write_atomic;

/// DejaVu Sans (Bitstream Vera license, `fonts/LICENSE-DejaVu.txt`), for layout in SVG and
/// for rasterizing PNG.
static FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 600;

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Data { path: PathBuf, message: String },
    #[error("cannot draw {name}: {message}")]
    Draw { name: String, message: String },
}

/// Which files to write for each figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    pub svg: bool,
    pub png: bool,
}

impl Default for Formats {
    fn default() -> Self {
        Formats {
            svg: true,
            png: true,
        }
    }
}

/// Register the embedded font as every family plotters may ask for (once per process).
pub fn ensure_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for family in ["sans-serif", "serif", "monospace"] {
            for style in [FontStyle::Normal, FontStyle::Bold] {
                if plotters::style::register_font(family, style, FONT).is_err() {
                    panic!("the embedded font is a valid TrueType font");
                }
            }
        }
    });
}

/// A figure that can draw itself on any plotters backend. `bitmap` tells that the backend
/// rasterizes: plotters draws thick polylines there with unbounded miter joins, which turn
/// sharp zig-zags (RTT, throughput) into long spikes, so thick lines are drawn segment by
/// segment instead (see [`thick_line`]).
pub trait Figure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String>;
}

/// A thick line as elements: one polyline for vector output, separate two-point segments
/// (no joins, so no miter spikes) for bitmaps.
pub fn thick_line(
    points: &[(f64, f64)],
    style: ShapeStyle,
    bitmap: bool,
) -> Vec<PathElement<(f64, f64)>> {
    if bitmap {
        points
            .windows(2)
            .map(|w| PathElement::new(vec![w[0], w[1]], style))
            .collect()
    } else {
        vec![PathElement::new(points.to_vec(), style)]
    }
}

fn draw_error<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The figure as SVG text.
pub fn render_svg(figure: &impl Figure) -> Result<String, String> {
    ensure_font();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        figure.draw(&root, false)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// The figure as PNG bytes (RGB, 8 bits).
pub fn render_png(figure: &impl Figure) -> Result<Vec<u8>, String> {
    ensure_font();
    let mut pixels = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        figure.draw(&root, true)?;
        root.present().map_err(draw_error)?;
    }
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut writer = encoder.write_header().map_err(draw_error)?;
        writer.write_image_data(&pixels).map_err(draw_error)?;
    }
    Ok(bytes)
}

/// Write `dir/name.svg` and/or `dir/name.png`; returns the files written.
pub fn save(
    figure: &impl Figure,
    dir: &Path,
    name: &str,
    formats: Formats,
) -> Result<Vec<PathBuf>, PlotError> {
    let mut written = Vec::new();
    let draw = |message: String| PlotError::Draw {
        name: name.to_string(),
        message,
    };
    let mut write = |extension: &str, bytes: &[u8]| {
        let path = dir.join(format!("{name}.{extension}"));
        write_atomic(&path, bytes).map_err(|source| PlotError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        Ok::<(), PlotError>(())
    };
    if formats.svg {
        write("svg", render_svg(figure).map_err(draw)?.as_bytes())?;
    }
    if formats.png {
        write("png", &render_png(figure).map_err(draw)?)?;
    }
    Ok(written)
}

/// Distinct colours (Tableau 10), for flows and algorithms.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// A tick label: the value rounded to six decimals, without trailing zeros ("300", "0.25").
pub fn tick(v: &f64) -> String {
    let rounded = (v * 1e6).round() / 1e6;
    if rounded == 0.0 {
        "0".into()
    } else {
        format!("{rounded}")
    }
}

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}
