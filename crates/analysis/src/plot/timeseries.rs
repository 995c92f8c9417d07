//! The figures of one run: cwnd, throughput and RTT over time per flow, and the queue of
//! every reported link over time with drops marked; sequence plots for traced flows.

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

/// Flows drawn as a line each at most; with more, a figure draws each flow group's mean
/// (coloured) over every flow (thin grey lines), and says so in its title.
pub const MAX_FLOW_LINES: usize = 8;

/// ssthresh is drawn (dashed) for this many flows at most.
pub const MAX_SSTHRESH_FLOWS: usize = 4;

/// The lines of one per-flow quantity, and what the title should add about them.
#[derive(Default)]
struct FlowLines {
    lines: Vec<Line>,
    background: Vec<Vec<(f64, f64)>>,
    background_label: String,
    note: String,
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

/// Per-tick mean over `flows` (the flows that have a sample at that tick).
fn mean_line(series: &FlowSeries, flows: &[u32]) -> Vec<(f64, f64)> {
    let mut sums: std::collections::BTreeMap<i64, (f64, f64, usize)> = Default::default();
    for flow in flows {
        for &(t, v) in series.get(flow).map(Vec::as_slice).unwrap_or(&[]) {
            // Ticks are written to the nanosecond; the key groups equal times.
            let entry = sums.entry((t * 1e9).round() as i64).or_insert((t, 0.0, 0));
            entry.1 += v;
            entry.2 += 1;
        }
    }
    sums.into_values()
        .map(|(t, sum, n)| (t, sum / n as f64))
        .collect()
}

/// One line per flow for a few flows; group means over grey flows for many.
fn flow_lines(info: &RunInfo, series: FlowSeries) -> FlowLines {
    if series.len() <= MAX_FLOW_LINES {
        return FlowLines {
            lines: lines(info, series, false, ""),
            ..FlowLines::default()
        };
    }
    // Groups: the flows of one [[flows]] table (same algorithm), in table order.
    type Group = (Option<u32>, String);
    let mut groups: Vec<(Group, Vec<u32>)> = Vec::new();
    for &flow in series.keys() {
        let key = (
            info.flow_group.get(&flow).copied(),
            info.flow_cc.get(&flow).cloned().unwrap_or_default(),
        );
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(flow),
            None => groups.push((key, vec![flow])),
        }
    }
    let lines = groups
        .iter()
        .enumerate()
        .map(|(i, ((group, cc), members))| {
            let what = if cc.is_empty() {
                format!("{} flows", members.len())
            } else {
                format!("{} {cc} flows", members.len())
            };
            Line {
                label: match group {
                    Some(g) => format!("mean of group {g} ({what})"),
                    None => format!("mean of {what}"),
                },
                color: color(i),
                points: mean_line(&series, members),
                dashed: false,
            }
        })
        .collect();
    let n = series.len();
    FlowLines {
        lines,
        background: series.into_values().collect(),
        background_label: format!("each of the {n} flows"),
        note: format!(" ({n} flows: mean per flow group, each flow in grey)"),
    }
}

fn chart(info: &RunInfo, what: &str, y_label: &str, lines: FlowLines) -> TimeChart {
    TimeChart {
        title: format!("{}: {what}{}", info.scenario, lines.note),
        x_label: "time (s)".into(),
        y_label: y_label.into(),
        lines: lines.lines,
        markers: Vec::new(),
        background: lines.background,
        background_label: lines.background_label,
    }
}

/// Every reported link's queue (packets) at each sample, one line per link in the order of
/// `queue.csv`, and the samples at which drops happened.
fn queue_chart(dir: &Path, info: &RunInfo, window: (f64, f64)) -> Result<TimeChart, PlotError> {
    // Per link, in order of first appearance: name, points, drops seen so far.
    type LinkQueue = (String, Vec<(f64, f64)>, f64);
    let mut links: Vec<LinkQueue> = Vec::new();
    let mut drop_marks = Vec::new();
    let mut total = 0.0;
    for_each_row(
        &dir.join("queue.csv"),
        &["time_s", "link", "queue_pkts", "drops"],
        |c| {
            let (t, q, drops) = (required(c[0])?, required(c[2])?, required(c[3])?);
            let i = match links.iter().position(|(name, _, _)| name == c[1]) {
                Some(i) => i,
                None => {
                    links.push((c[1].to_string(), Vec::new(), 0.0));
                    links.len() - 1
                }
            };
            let (_, queue, drops_before) = &mut links[i];
            let new = drops - *drops_before;
            *drops_before = drops;
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
    // Of several links (a graph reports both directions of every link), draw those that
    // queued or dropped in the window; the idle ones would only crowd the legend. If none
    // did, draw them all.
    let busy = |(_, points, drops): &LinkQueue| *drops > 0.0 || points.iter().any(|p| p.1 > 0.0);
    let idle = if links.len() > 1 && links.iter().any(busy) {
        let before = links.len();
        links.retain(busy);
        before - links.len()
    } else {
        0
    };
    // One link (a dumbbell): titled by its name, its line plainly "queue".
    let (what, lines) = match links.as_slice() {
        [(name, _, _)] if idle == 0 => (format!("{name} queue"), vec!["queue".to_string()]),
        _ => (
            match idle {
                0 => "queues".to_string(),
                1 => "queues (1 link that never queued not drawn)".to_string(),
                n => format!("queues ({n} links that never queued not drawn)"),
            },
            links.iter().map(|(name, _, _)| name.clone()).collect(),
        ),
    };
    let mut chart = chart(
        info,
        &what,
        "queue length (packets)",
        FlowLines {
            lines: links
                .into_iter()
                .zip(lines)
                .enumerate()
                .map(|(i, ((_, points, _), label))| Line {
                    label,
                    color: color(i),
                    points,
                    dashed: false,
                })
                .collect(),
            ..FlowLines::default()
        },
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
    let flows = cwnd.len();
    let mut cwnd_lines = flow_lines(&info, cwnd);
    let mut cwnd_title = "congestion window".to_string();
    if flows <= MAX_SSTHRESH_FLOWS {
        if !ssthresh.is_empty() {
            cwnd_title.push_str(", ssthresh dashed");
        }
        cwnd_lines
            .lines
            .extend(lines(&info, ssthresh, true, " ssthresh"));
    } else if flows <= MAX_FLOW_LINES && !ssthresh.is_empty() {
        cwnd_title.push_str(&format!(
            " (ssthresh left out beyond {MAX_SSTHRESH_FLOWS} flows)"
        ));
    }
    written.extend(save(
        &chart(&info, &cwnd_title, "cwnd (kB)", cwnd_lines),
        &out,
        "cwnd",
        options.formats,
    )?);
    written.extend(save(
        &chart(
            &info,
            "round-trip time (latest sample)",
            "RTT (ms)",
            flow_lines(&info, rtt),
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
        let throughput = chart(
            &info,
            &format!(
                "throughput per flow ({} s bins, retransmissions included)",
                info.rate_interval_s
            ),
            "throughput (Mbit/s of payload)",
            flow_lines(&info, rates),
        );
        written.extend(save(&throughput, &out, "throughput", options.formats)?);
    }
    written.extend(save(
        &queue_chart(dir, &info, window)?,
        &out,
        "queue",
        options.formats,
    )?);

    let flows = dir.join("flows.csv");
    if flows.exists()
        && let Some(chart) = super::fct::chart(&flows)?
    {
        written.extend(save(&chart, &out, "fct", options.formats)?);
    }

    let packets = dir.join("packets.csv");
    if packets.exists() {
        for chart in sequence::charts(&packets, &info, window)? {
            let name = format!("sequence-flow{}", chart.flow);
            written.extend(save(&chart, &out, &name, options.formats)?);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_flows_become_group_means() {
        // Flows 0..5 (group 0, reno) hold i, flows 5..10 (group 1, cubic) hold 10 i; flow 9
        // starts at the second tick.
        let mut info = RunInfo::default();
        let mut series = FlowSeries::new();
        for flow in 0..10u32 {
            let group = flow / 5;
            info.flow_group.insert(flow, group);
            info.flow_cc
                .insert(flow, if group == 0 { "reno" } else { "cubic" }.into());
            let value = if group == 0 {
                flow as f64
            } else {
                10.0 * flow as f64
            };
            let ticks: &[f64] = if flow == 9 { &[0.2] } else { &[0.1, 0.2] };
            series.insert(flow, ticks.iter().map(|&t| (t, value)).collect());
        }
        let drawn = flow_lines(&info, series);
        assert_eq!(drawn.background.len(), 10);
        assert_eq!(drawn.lines.len(), 2);
        assert_eq!(drawn.lines[0].label, "mean of group 0 (5 reno flows)");
        // (0 + 1 + 2 + 3 + 4) / 5 = 2 at both ticks.
        assert_eq!(drawn.lines[0].points, vec![(0.1, 2.0), (0.2, 2.0)]);
        // Group 1: (50 + 60 + 70 + 80) / 4 = 65 before flow 9 starts, then
        // (50 + 60 + 70 + 80 + 90) / 5 = 70.
        assert_eq!(drawn.lines[1].label, "mean of group 1 (5 cubic flows)");
        assert_eq!(drawn.lines[1].points, vec![(0.1, 65.0), (0.2, 70.0)]);
        assert!(drawn.note.contains("10 flows"));
    }

    #[test]
    fn few_flows_are_drawn_one_by_one() {
        let info = RunInfo::default();
        let series: FlowSeries = (0..MAX_FLOW_LINES as u32)
            .map(|f| (f, vec![(0.1, 1.0)]))
            .collect();
        let drawn = flow_lines(&info, series);
        assert_eq!(drawn.lines.len(), MAX_FLOW_LINES);
        assert!(drawn.background.is_empty() && drawn.note.is_empty());
    }

    /// The queue figure of a run whose `queue.csv` holds `rows` (without the header), drawn
    /// over `window`, from a scratch folder named after `test`.
    fn queue_chart_of(test: &str, rows: &str, window: (f64, f64)) -> TimeChart {
        let dir = std::env::temp_dir().join(format!("cclab-queue-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("queue.csv"),
            format!("time_s,link,queue_pkts,queue_bytes,drops,tx_bytes\n{rows}"),
        )
        .unwrap();
        let chart = queue_chart(&dir, &RunInfo::default(), window);
        std::fs::remove_dir_all(&dir).unwrap();
        chart.unwrap()
    }

    /// Several reported links (a parking lot): one line each, labelled by its name, in the
    /// order of queue.csv; each link's drops counted from its own cumulative column.
    #[test]
    fn every_reported_link_gets_its_own_queue_line() {
        let chart = queue_chart_of(
            "links",
            "0.1,hop1,5,7500,0,0\n\
             0.1,hop2,1,1500,4,0\n\
             0.2,hop1,8,12000,2,0\n\
             0.2,hop2,2,3000,4,0\n",
            (f64::NEG_INFINITY, f64::INFINITY),
        );
        assert!(chart.title.ends_with("queues"), "{}", chart.title);
        let labels: Vec<&str> = chart.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["hop1", "hop2"]);
        assert_eq!(chart.lines[1].points, [(0.1, 1.0), (0.2, 2.0)]);
        // hop2's 4 drops by 0.1 s and hop1's 2 by 0.2 s: 6 packets at two samples.
        assert_eq!(chart.markers[0].points, [(0.1, 1.0), (0.2, 8.0)]);
        assert!(chart.markers[0].label.starts_with("drops (6 packets"));
    }

    /// A graph reports both directions of every link: the links that never queued nor dropped
    /// are left out, and the title says how many.
    #[test]
    fn idle_links_are_left_out_of_the_queue_figure() {
        let chart = queue_chart_of(
            "idle",
            "0.1,a-b,3,4500,0,0\n\
             0.1,b-a,0,0,0,0\n\
             0.1,b-c,0,0,1,0\n\
             0.1,c-b,0,0,0,0\n",
            (f64::NEG_INFINITY, f64::INFINITY),
        );
        let labels: Vec<&str> = chart.lines.iter().map(|l| l.label.as_str()).collect();
        // a-b queued, b-c dropped (with an empty queue at the sample); b-a and c-b did neither.
        assert_eq!(labels, ["a-b", "b-c"]);
        assert!(
            chart
                .title
                .ends_with("queues (2 links that never queued not drawn)"),
            "{}",
            chart.title
        );
    }

    /// `queue.csv` holds cumulative drops; the figure marks the samples at which the count
    /// grew, and its legend totals the growth inside the plotted window.
    #[test]
    fn drop_markers_are_per_sample_increments_of_the_cumulative_count() {
        // Cumulative drops 0, 2, 2, 5, 5: two drops by 0.2 s, three more by 0.4 s.
        let rows = "0.1,bottleneck,5,7500,0,0\n\
             0.2,bottleneck,8,12000,2,0\n\
             0.3,bottleneck,6,9000,2,0\n\
             0.4,bottleneck,9,13500,5,0\n\
             0.5,bottleneck,4,6000,5,0\n";
        let whole = queue_chart_of("marks", rows, (f64::NEG_INFINITY, f64::INFINITY));
        let late = queue_chart_of("marks", rows, (0.35, f64::INFINITY));

        assert_eq!(whole.lines[0].points.len(), 5);
        let marks = &whole.markers[0];
        assert_eq!(marks.points, [(0.2, 8.0), (0.4, 9.0)]);
        // 2 + 3 = 5 packets, not the sum of the cumulative counts.
        assert!(
            marks.label.starts_with("drops (5 packets"),
            "{}",
            marks.label
        );
        // From 0.35 s: only the 3 drops between 0.3 s and 0.4 s.
        assert_eq!(late.markers[0].points, [(0.4, 9.0)]);
        assert!(
            late.markers[0].label.starts_with("drops (3 packets"),
            "{}",
            late.markers[0].label
        );
    }
}
