//! tcptrace-style sequence-number plots of traced flows (`[output] trace_packets`): data
//! segments sent (vertical bars from first to last byte, in segments), retransmissions, drops,
//! and the cumulative ACK as it reaches the sender. The figures of the Smooth-start paper.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::Y_AXIS;
use super::data::{RunInfo, for_each_row, required};
use super::frame::{Entry, Sample, frame};
use super::{Dash, Figure, PlotError};

/// Segment transmissions drawn per figure at most; later ones are left out (and the title
/// says so) so that figures of long runs stay readable and small.
pub const MAX_SENDS: usize = 20_000;

#[derive(Clone, Debug, Default)]
pub struct SequenceChart {
    pub flow: u32,
    pub title: String,
    /// Bytes per segment: the y axis counts segments.
    pub mss: f64,
    /// (time, first byte, end byte)
    pub sends: Vec<(f64, f64, f64)>,
    pub retransmits: Vec<(f64, f64, f64)>,
    /// (time, first byte)
    pub drops: Vec<(f64, f64)>,
    /// (time, cumulative ACK)
    pub acks: Vec<(f64, f64)>,
}

#[derive(Default)]
struct Events {
    sends: Vec<(f64, f64, f64)>,
    retransmits: Vec<(f64, f64, f64)>,
    drops: Vec<(f64, f64)>,
    acks: Vec<(f64, f64)>,
    mss: f64,
}

/// One chart per traced flow in `packets.csv`.
pub fn charts(
    path: &Path,
    info: &RunInfo,
    window: (f64, f64),
) -> Result<Vec<SequenceChart>, PlotError> {
    let mut flows: BTreeMap<u32, Events> = BTreeMap::new();
    for_each_row(path, &["time_s", "flow", "event", "seq", "bytes"], |c| {
        let t = required(c[0])?;
        if t < window.0 || t > window.1 {
            return Ok(());
        }
        let flow: u32 = c[1]
            .parse()
            .map_err(|_| format!("`{}` is not a flow id", c[1]))?;
        let (seq, bytes) = (required(c[3])?, required(c[4])?);
        let e = flows.entry(flow).or_default();
        match c[2] {
            "send" => {
                e.mss = e.mss.max(bytes);
                e.sends.push((t, seq, seq + bytes));
            }
            "retransmit" => e.retransmits.push((t, seq, seq + bytes)),
            "drop" => e.drops.push((t, seq)),
            "ack" => e.acks.push((t, seq)),
            _ => {}
        }
        Ok(())
    })?;
    Ok(flows
        .into_iter()
        .map(|(flow, mut e)| {
            let mut title = format!(
                "{}: sequence plot of {}",
                info.scenario,
                info.flow_label(flow)
            );
            if e.sends.len() > MAX_SENDS {
                let cut = e.sends[MAX_SENDS].0;
                e.sends.truncate(MAX_SENDS);
                e.retransmits.retain(|s| s.0 < cut);
                e.drops.retain(|s| s.0 < cut);
                e.acks.retain(|s| s.0 < cut);
                title.push_str(&format!(
                    " (first {cut:.2} s; choose others with --from/--to)"
                ));
            }
            SequenceChart {
                flow,
                title,
                mss: if e.mss > 0.0 { e.mss } else { 1448.0 },
                sends: e.sends,
                retransmits: e.retransmits,
                drops: e.drops,
                acks: e.acks,
            }
        })
        .collect())
}

impl Figure for SequenceChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        _bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let times = self
            .sends
            .iter()
            .map(|s| s.0)
            .chain(self.acks.iter().map(|a| a.0))
            .chain(self.drops.iter().map(|d| d.0));
        let (t0, t1) = times.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
            (lo.min(t), hi.max(t))
        });
        let (t0, t1) = if t0.is_finite() && t1 > t0 {
            (t0, t1)
        } else {
            (0.0, 1.0)
        };
        // The sequence range in view (a zoomed window starts high up).
        let (low, top) = self
            .sends
            .iter()
            .chain(&self.retransmits)
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), s| {
                (lo.min(s.1), hi.max(s.2))
            });
        let (low, top) = if top > low {
            let margin = (top - low) * 0.03 / self.mss;
            ((low / self.mss - margin).max(0.0), top / self.mss + margin)
        } else {
            (0.0, 1.0)
        };
        let span = t1 - t0;
        let blue = RGBColor(31, 119, 180);
        let red = RGBColor(214, 39, 40);
        let green = RGBColor(44, 160, 44);
        let legend = [
            Entry {
                label: "cumulative ACK at the sender".into(),
                sample: Sample::Line {
                    color: green,
                    width: 2,
                    dash: Dash::Solid,
                    marker: None,
                },
            },
            Entry {
                label: "segment sent".into(),
                sample: Sample::Bar(blue),
            },
            Entry {
                label: format!("retransmission ({})", self.retransmits.len()),
                sample: Sample::Ring(red),
            },
            Entry {
                label: format!("drop ({})", self.drops.len()),
                sample: Sample::Cross(BLACK),
            },
        ];
        let (area, _) = frame(root, &self.title, &legend, Y_AXIS)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(4)
            .x_label_area_size(48)
            .y_label_area_size(Y_AXIS)
            .build_cartesian_2d((t0 - span * 0.01)..(t1 + span * 0.01), low..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(format!("sequence number (segments of {} B)", self.mss))
            .x_label_formatter(&super::tick)
            .y_label_formatter(&super::tick)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .max_light_lines(2)
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()
            .map_err(e)?;
        let mss = self.mss;
        // Cumulative ACK as a staircase.
        let mut stairs = Vec::with_capacity(2 * self.acks.len());
        for (i, &(t, ack)) in self.acks.iter().enumerate() {
            if i > 0 {
                stairs.push((t, self.acks[i - 1].1 / mss));
            }
            stairs.push((t, ack / mss));
        }
        chart
            .draw_series(LineSeries::new(stairs, green.stroke_width(1)))
            .map_err(e)?;
        let bar = |style: ShapeStyle| {
            move |&(t, lo, hi): &(f64, f64, f64)| {
                PathElement::new(vec![(t, lo / mss), (t, hi / mss)], style)
            }
        };
        chart
            .draw_series(self.sends.iter().map(bar(blue.stroke_width(2))))
            .map_err(e)?;
        chart
            .draw_series(
                self.retransmits
                    .iter()
                    .map(|&(t, lo, _)| Circle::new((t, lo / mss), 3, red.stroke_width(2))),
            )
            .map_err(e)?;
        chart
            .draw_series(
                self.drops
                    .iter()
                    .map(|&(t, seq)| Cross::new((t, seq / mss), 5, BLACK.stroke_width(2))),
            )
            .map_err(e)?;
        Ok(())
    }
}
