//! The frame every figure shares: the title (shrunk or wrapped to fit), the legend outside
//! the plot area (one row below it when the entries fit, else a column to its right), and the
//! area left for the plot. The legend never covers data because it is never inside the plot.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Dash, Marker, draw_marker_at};

/// The legend box's border colour (tests find the box by it).
pub const LEGEND_BORDER: RGBColor = RGBColor(136, 136, 136);

/// Pixels: margin around the figure, legend row height, width of a legend sample.
const MARGIN: i32 = 12;
const ROW: i32 = 20;
const SAMPLE: i32 = 30;
const LEGEND_FONT: u32 = 14;

/// What a legend entry shows next to its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sample {
    /// A line of `width` pixels with its dash pattern and, for sweep figures, a marker.
    Line {
        color: RGBColor,
        width: u32,
        dash: Dash,
        marker: Option<Marker>,
    },
    /// A × (drops).
    Cross(RGBColor),
    /// An open circle (retransmissions).
    Ring(RGBColor),
    /// A short vertical bar (segments sent).
    Bar(RGBColor),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub label: String,
    pub sample: Sample,
}

/// Where [`frame`] put the legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    None,
    Below,
    Right,
}

fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

fn text_width<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str, size: u32) -> i32 {
    area.estimate_text_size(text, &font(size))
        .map(|(w, _)| w as i32)
        // Without a measure, assume a wide glyph per character.
        .unwrap_or((text.chars().count() as u32 * size * 2 / 3) as i32)
}

/// Split `title` into lines that fit `width` pixels at `size`: at most two, broken at the
/// space nearest the middle.
fn title_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    width: i32,
) -> (u32, Vec<String>) {
    for size in [20, 18, 16] {
        if text_width(area, title, size) <= width {
            return (size, vec![title.to_string()]);
        }
    }
    let middle = title.len() / 2;
    let split = title
        .char_indices()
        .filter(|&(_, c)| c == ' ')
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(middle));
    match split {
        Some(i) => {
            let lines = vec![title[..i].to_string(), title[i + 1..].to_string()];
            let size = [18, 16, 14]
                .into_iter()
                .find(|&s| lines.iter().all(|l| text_width(area, l, s) <= width))
                .unwrap_or(13);
            (size, lines)
        }
        None => (14, vec![title.to_string()]),
    }
}

/// Draw the sample of `entry` with its left end at (x, y).
fn draw_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    sample: Sample,
    x: i32,
    y: i32,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let middle = (x + SAMPLE / 2, y);
    match sample {
        Sample::Line {
            color,
            width,
            dash,
            marker,
        } => {
            let style = color.stroke_width(width);
            let ends = vec![(x, y), (x + SAMPLE, y)];
            match dash.pattern() {
                None => area.draw(&PathElement::new(ends, style)).map_err(e)?,
                Some((on, off)) => area
                    .draw(&DashedPathElement::new(ends, on, off, style))
                    .map_err(e)?,
            }
            if let Some(m) = marker {
                draw_marker_at(area, middle, m, 4, color)?;
            }
        }
        Sample::Cross(color) => area
            .draw(&Cross::new(middle, 4, color.stroke_width(2)))
            .map_err(e)?,
        Sample::Ring(color) => area
            .draw(&Circle::new(middle, 3, color.stroke_width(2)))
            .map_err(e)?,
        Sample::Bar(color) => area
            .draw(&PathElement::new(
                vec![(middle.0, y - 6), (middle.0, y + 6)],
                color.stroke_width(2),
            ))
            .map_err(e)?,
    }
    Ok(())
}

/// Where each entry of a legend goes, relative to the legend box's top left corner, and the
/// box's size.
struct Layout {
    at: Vec<(i32, i32)>,
    size: (i32, i32),
}

/// One row, each entry as wide as it needs.
fn one_row(widths: &[i32]) -> Layout {
    let mut left = 8;
    let at = widths
        .iter()
        .map(|w| {
            let here = (left, 4 + ROW / 2);
            left += w;
            here
        })
        .collect();
    Layout {
        at,
        size: (left, ROW + 8),
    }
}

/// A grid of `columns` columns of `column_width` pixels; entries fill the columns first
/// (top to bottom, then the next column) or the rows first.
fn grid(n: usize, columns: usize, column_width: i32, columns_first: bool) -> Layout {
    let columns = columns.clamp(1, n.max(1));
    let rows = n.div_ceil(columns);
    let at = (0..n)
        .map(|i| {
            let (column, row) = if columns_first {
                (i / rows, i % rows)
            } else {
                (i % columns, i / columns)
            };
            (
                8 + column as i32 * column_width,
                4 + row as i32 * ROW + ROW / 2,
            )
        })
        .collect();
    let used_columns = n.div_ceil(rows) as i32;
    Layout {
        at,
        size: (used_columns * column_width + 8, rows as i32 * ROW + 8),
    }
}

/// Draw the legend box with its entries at (x, y) on `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    (x, y): (i32, i32),
    layout: &Layout,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (w, h) = layout.size;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], WHITE.filled()))
        .map_err(e)?;
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        LEGEND_BORDER.stroke_width(1),
    ))
    .map_err(e)?;
    let label_style = font(LEGEND_FONT).pos(Pos::new(HPos::Left, VPos::Center));
    for (entry, &(ex, ey)) in entries.iter().zip(&layout.at) {
        let (ex, ey) = (x + ex, y + ey);
        draw_sample(area, entry.sample, ex, ey)?;
        area.draw(&Text::new(
            entry.label.clone(),
            (ex + SAMPLE + 6, ey),
            label_style.clone(),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// Draw the title and the legend on `root`; returns the area for the plot and where the
/// legend went. `left_axis` is the width the plot keeps for its y axis, so that a legend
/// below the plot is centred under the plot rather than under the figure.
///
/// The legend goes below the plot in one row when up to five entries fit there; else in a
/// column right of the plot (several columns when it is long); and when that column would
/// take more than 40 % of the width (long labels), below the plot in a grid, row by row.
pub fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    entries: &[Entry],
    left_axis: i32,
) -> Result<(DrawingArea<DB, Shift>, Placement), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    let (size, lines) = title_lines(root, title, width - 2 * MARGIN);
    let line_height = size as i32 + 6;
    for (i, line) in lines.iter().enumerate() {
        root.draw(&Text::new(
            line.clone(),
            (width / 2, MARGIN + i as i32 * line_height),
            font(size).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(e)?;
    }
    let title_height = MARGIN + lines.len() as i32 * line_height + 4;
    let (_, body) = root.split_vertically(title_height);
    let body_height = height - title_height;
    if entries.is_empty() {
        return Ok((body.margin(0, MARGIN, MARGIN, MARGIN + 8), Placement::None));
    }
    let widths: Vec<i32> = entries
        .iter()
        .map(|entry| SAMPLE + 6 + text_width(root, &entry.label, LEGEND_FONT) + 18)
        .collect();
    let plot_width = width - left_axis - 2 * MARGIN;
    let column_width = widths.iter().copied().max().unwrap_or(0) - 6;
    let n = entries.len();
    let row = one_row(&widths);
    let rows_right = ((body_height - 2 * MARGIN - 8) / ROW).max(1) as usize;
    let right = grid(n, n.div_ceil(rows_right), column_width, true);
    let below = if n <= 5 && row.size.0 <= plot_width {
        Some(row)
    } else if right.size.0 > width * 2 / 5 {
        let columns = ((plot_width - 8) / column_width.max(1)).max(1) as usize;
        Some(grid(n, columns, column_width, false))
    } else {
        None
    };
    match below {
        Some(layout) => {
            let legend_height = layout.size.1 + MARGIN;
            let (plot, legend) = body.split_vertically(body_height - legend_height);
            let x = (left_axis + MARGIN + (plot_width - layout.size.0) / 2).max(MARGIN);
            draw_legend(&legend, entries, (x, 0), &layout)?;
            Ok((plot.margin(0, 0, MARGIN, MARGIN + 8), Placement::Below))
        }
        None => {
            let (plot, legend) = body.split_horizontally(width - right.size.0 - 2 * MARGIN);
            draw_legend(&legend, entries, (MARGIN, MARGIN), &right)?;
            Ok((plot.margin(0, MARGIN, MARGIN, 0), Placement::Right))
        }
    }
}
