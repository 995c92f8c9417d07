//! Figures with plotters, as SVG and PNG, with an embedded font: no system libraries.
//!
//! Each figure is a plain description ([`chart::TimeChart`], [`sequence::SequenceChart`],
//! [`sweep::SweepChart`]) drawn by one generic function on either backend, so the SVG and the
//! PNG show the same thing. Files are written atomically like every other output.
//!
//! - [`timeseries`]: the figures of one run (cwnd, throughput, RTT, queue with drops);
//! - [`fct`]: slowdown by flow size of a run's workloads;
//! - [`sequence`]: tcptrace-style sequence plots of traced flows;
//! - [`sweep`]: a metric against a swept parameter, one line per algorithm;
//! - [`frame`]: what every figure shares: the title, the legend outside the plot area;
//! - [`labels`]: sweep keys and result columns in words, swept values as numbers in a unit.

pub mod chart;
pub mod data;
pub mod fct;
pub mod frame;
pub mod labels;
pub mod overlay;
pub mod sequence;
pub mod sweep;
pub mod timeseries;

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
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

/// Distinct colours (Tableau 10), for flows and algorithms; beyond ten series the colours
/// repeat with another dash pattern and marker ([`series_style`]).
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

/// How a line is stroked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dash {
    Solid,
    Dashed,
    Dotted,
    LongDash,
}

impl Dash {
    /// (dash, gap) in pixels; `None` for a solid line.
    pub fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((7, 4)),
            Dash::Dotted => Some((2, 3)),
            Dash::LongDash => Some((16, 5)),
        }
    }
}

/// The shape drawn at a sweep figure's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

/// Colour, dash pattern and marker of one series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesStyle {
    pub color: RGBColor,
    pub dash: Dash,
    pub marker: Marker,
}

const LOOKS: [(Dash, Marker); 4] = [
    (Dash::Solid, Marker::Circle),
    (Dash::Dashed, Marker::Square),
    (Dash::Dotted, Marker::Triangle),
    (Dash::LongDash, Marker::Diamond),
];

/// The style of the `i`-th series: the ten colours with solid lines and circles, then the ten
/// colours again dashed with squares, dotted with triangles, long-dashed with diamonds. No
/// two of the first 40 series look the same (a sweep over all 21 algorithms needs 21).
pub fn series_style(i: usize) -> SeriesStyle {
    let (dash, marker) = LOOKS[(i / PALETTE.len()) % LOOKS.len()];
    SeriesStyle {
        color: color(i),
        dash,
        marker,
    }
}

/// The chart type of every figure: f64 on both axes.
pub type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn polygon(marker: Marker, size: i32) -> Vec<(i32, i32)> {
    let s = size + 1;
    match marker {
        Marker::Triangle => vec![(0, -s), (s, s * 2 / 3), (-s, s * 2 / 3)],
        Marker::Diamond => vec![(0, -s), (s, 0), (0, s), (-s, 0)],
        Marker::Circle | Marker::Square => {
            let s = size - 1;
            vec![(-s, -s), (s, -s), (s, s), (-s, s)]
        }
    }
}

/// Markers of `size` pixels (radius) at `points` of a chart, filled.
pub fn draw_markers<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    points: &[(f64, f64)],
    marker: Marker,
    size: i32,
    color: RGBColor,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = color.filled();
    match marker {
        Marker::Circle => chart
            .draw_series(points.iter().map(|&p| Circle::new(p, size, style)))
            .map(|_| ())
            .map_err(e),
        _ => chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| EmptyElement::at(p) + Polygon::new(polygon(marker, size), style)),
            )
            .map(|_| ())
            .map_err(e),
    }
}

/// A marker of `size` pixels (radius) at a pixel of `area`, filled.
pub fn draw_marker_at<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    marker: Marker,
    size: i32,
    color: RGBColor,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = color.filled();
    match marker {
        Marker::Circle => area.draw(&Circle::new(at, size, style)).map_err(e),
        _ => area
            .draw(&(EmptyElement::at(at) + Polygon::new(polygon(marker, size), style)))
            .map_err(e),
    }
}

/// A line through `points` of a chart with `dash` (solid lines as in [`thick_line`]).
pub fn draw_line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    points: &[(f64, f64)],
    dash: Dash,
    style: ShapeStyle,
    bitmap: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    match dash.pattern() {
        None => chart
            .draw_series(thick_line(points, style, bitmap))
            .map(|_| ())
            .map_err(e),
        Some((on, off)) => chart
            .draw_series(std::iter::once(DashedPathElement::new(
                points.to_vec(),
                on,
                off,
                style,
            )))
            .map(|_| ())
            .map_err(e),
    }
}
