//! The figures of one run: cwnd, throughput and RTT over time per flow, and the bottleneck
//! queue over time with drops marked; sequence plots for traced flows.

use std::path::{Path, PathBuf};

use super::chart::{Line, Markers, TimeChart};
use super::data::{FlowSeries, RunInfo, flow_series, for_each_row, required, run_info};
use super::{Formats, PlotError, color, save, sequence};

/// What `cclab plot DIR` draws for a run folder.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunPlotOptions {
    pub formats: Formats,
    /// Only this part of the run (seconds); the whole run by default.
    pub from_s: Option<f64>,
    pub to_s: Option<f64>,
}

impl RunPlotOptions {
    fn window(&self) -> (f64, f64) {
        (
            self.from_s.unwrap_or(f64::NEG_INFINITY),
            self.to_s.unwrap_or(f64::INFINITY),
        )
    }
}

fn lines(info: &RunInfo, series: FlowSeries, dashed: bool, suffix: &str) -> Vec<Line> {
    series
        .into_iter()
        .map(|(flow, points)| Line {
            label: format!("{}{suffix}", info.flow_label(flow)),
            color: color(flow as usize),
            points,
            dashed,
        })
        .collect()
}

fn chart(info: &RunInfo, what: &str, y_label: &str, lines: Vec<Line>) -> TimeChart {
    TimeChart {
        title: format!("{}: {what}", info.scenario),
        x_label: "time (s)".into(),
        y_label: y_label.into(),
        lines,
        markers: Vec::new(),
        legend_low: false,
    }
}

/// The bottleneck queue (packets) at each sample and the samples at which drops happened.
fn queue_chart(dir: &Path, info: &RunInfo, window: (f64, f64)) -> Result<TimeChart, PlotError> {
    let mut queue = Vec::new();
    let mut drop_marks = Vec::new();
    let mut drops_before = 0.0;
    let mut total = 0.0;
    for_each_row(
        &dir.join("queue.csv"),
        &["time_s", "link", "queue_pkts", "drops"],
        |c| {
            if c[1] != "bottleneck" {
                return Ok(());
            }
            let (t, q, drops) = (required(c[0])?, required(c[2])?, required(c[3])?);
            let new = drops - drops_before;
            drops_before = drops;
            if t < window.0 || t > window.1 {
                return Ok(());
            }
            queue.push((t, q));
            if new > 0.0 {
                drop_marks.push((t, q));
                total += new;
            }
            Ok(())
        },
    )?;
    let mut chart = chart(
        info,
        "bottleneck queue",
        "queue length (packets)",
        vec![Line {
            label: "queue".into(),
            color: color(0),
            points: queue,
            dashed: false,
        }],
    );
    chart.markers.push(Markers {
        label: format!("drops ({total} packets, marked per sample)"),
        color: plotters::style::RGBColor(200, 0, 0),
        points: drop_marks,
    });
    Ok(chart)
}

/// Draw every figure of the run folder `dir` into `dir/figures`; returns the files written.
pub fn plot_run(dir: &Path, options: &RunPlotOptions) -> Result<Vec<PathBuf>, PlotError> {
    let info = run_info(dir)?;
    let out = dir.join("figures");
    std::fs::create_dir_all(&out).map_err(|source| PlotError::Io {
        path: out.clone(),
        source,
    })?;
    let window = options.window();
    let mut written = Vec::new();

    let mut ts = flow_series(
        &dir.join("timeseries.csv"),
        &["cwnd_bytes", "ssthresh_bytes", "rtt_ms"],
        &[1e-3, 1e-3, 1.0],
        window,
    )?
    .into_iter();
    let (cwnd, ssthresh, rtt) = (
        ts.next().unwrap_or_default(),
        ts.next().unwrap_or_default(),
        ts.next().unwrap_or_default(),
    );
    let few_flows = cwnd.len() <= 4;
    let mut cwnd_lines = lines(&info, cwnd, false, "");
    if few_flows {
        cwnd_lines.extend(lines(&info, ssthresh, true, " ssthresh"));
    }
    written.extend(save(
        &chart(&info, "congestion window", "cwnd (kB)", cwnd_lines),
        &out,
        "cwnd",
        options.formats,
    )?);
    written.extend(save(
        &chart(
            &info,
            "round-trip time (latest sample)",
            "RTT (ms)",
            lines(&info, rtt, false, ""),
        ),
        &out,
        "rtt",
        options.formats,
    )?);

    let rates_path = dir.join("rates.csv");
    if rates_path.exists() {
        let rates = flow_series(&rates_path, &["throughput_bps"], &[1e-6], window)?
            .pop()
            .unwrap_or_default();
        let mut throughput = chart(
            &info,
            &format!(
                "throughput per flow ({} s bins, retransmissions included)",
                info.rate_interval_s
            ),
            "throughput (Mbit/s of payload)",
            lines(&info, rates, false, ""),
        );
        throughput.legend_low = true;
        written.extend(save(&throughput, &out, "throughput", options.formats)?);
    }
    written.extend(save(
        &queue_chart(dir, &info, window)?,
        &out,
        "queue",
        options.formats,
    )?);

    let packets = dir.join("packets.csv");
    if packets.exists() {
        for chart in sequence::charts(&packets, &info, window)? {
            let name = format!("sequence-flow{}", chart.flow);
            written.extend(save(&chart, &out, &name, options.formats)?);
        }
    }
    Ok(written)
}
