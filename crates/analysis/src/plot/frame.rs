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

/// Draw a legend box with `columns` columns of `rows` rows at (x, y) on `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    (x, y): (i32, i32),
    rows: usize,
    column_width: i32,
    widths: &[i32],
    below: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (w, h) = if below {
        (widths.iter().sum::<i32>() + 8, ROW + 8)
    } else {
        let columns = entries.len().div_ceil(rows) as i32;
        (
            columns * column_width + 8,
            rows.min(entries.len()) as i32 * ROW + 8,
        )
    };
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], WHITE.filled()))
        .map_err(e)?;
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        LEGEND_BORDER.stroke_width(1),
    ))
    .map_err(e)?;
    let label_style = font(LEGEND_FONT).pos(Pos::new(HPos::Left, VPos::Center));
    let mut left = x + 8;
    for (i, entry) in entries.iter().enumerate() {
        let (ex, ey) = if below {
            let at = (left, y + 4 + ROW / 2);
            left += widths[i];
            at
        } else {
            let (column, row) = (i / rows, i % rows);
            (
                x + 8 + column as i32 * column_width,
                y + 4 + row as i32 * ROW + ROW / 2,
            )
        };
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
    let row_width = widths.iter().sum::<i32>() + 8;
    let plot_width = width - left_axis - 2 * MARGIN;
    if entries.len() <= 5 && row_width <= plot_width {
        let legend_height = ROW + 8 + MARGIN;
        let (plot, legend) = body.split_vertically(body_height - legend_height);
        let x = left_axis + MARGIN + (plot_width - row_width) / 2;
        draw_legend(&legend, entries, (x, 0), 1, 0, &widths, true)?;
        return Ok((plot.margin(0, 0, MARGIN, MARGIN + 8), Placement::Below));
    }
    let rows = ((body_height - 2 * MARGIN - 8) / ROW).max(1) as usize;
    let columns = entries.len().div_ceil(rows) as i32;
    let column_width = widths.iter().copied().max().unwrap_or(0) - 6;
    let legend_width = columns * column_width + 8;
    let (plot, legend) = body.split_horizontally(width - legend_width - 2 * MARGIN);
    draw_legend(
        &legend,
        entries,
        (MARGIN, MARGIN),
        rows,
        column_width,
        &widths,
        false,
    )?;
    Ok((plot.margin(0, MARGIN, MARGIN, 0), Placement::Right))
}
