//! Figures a researcher can read, checked on the SVG the figures produce:
//! - swept numbers sit on a numeric axis at their values (linear, or logarithmic beyond a
//!   decade), with the axis described in words and units;
//! - the legend box never overlaps the plotted data;
//! - 21 series (a sweep over every algorithm) get 21 different looks;
//! - the ssthresh legend entry is drawn dashed like the line it stands for;
//! - with many flows the run figures draw group means over every flow in grey.
//!
//! Expectations come from the definitions (positions proportional to the value or to its
//! logarithm, rectangles that do not intersect), not from earlier output.

use std::path::{Path, PathBuf};

use cclab_analysis::plot::chart::{Line, TimeChart};
use cclab_analysis::plot::frame::{LEGEND_BORDER, Sample};
use cclab_analysis::plot::sweep::{SweepPlotOptions, XAxis, charts};
use cclab_analysis::plot::timeseries::{RunPlotOptions, plot_run};
use cclab_analysis::plot::{Figure, Formats, PALETTE, render_png, render_svg, series_style};
use cclab_analysis::results::{Row, SweepManifest};
use plotters::style::RGBColor;

// --- reading the SVG back -----------------------------------------------------------------

fn attr(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no numeric {name} in {tag}"))
}

/// Every element `<name .../>` or `<name ...>` of the document, as its opening tag.
fn tags<'a>(svg: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    svg.match_indices(&open)
        .map(|(i, _)| {
            let end = svg[i..].find('>').unwrap() + i;
            &svg[i..=end]
        })
        .collect()
}

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// (x0, y0, x1, y1)
type Rect = (f64, f64, f64, f64);

fn legend_box(svg: &str) -> Rect {
    let boxes: Vec<Rect> = tags(svg, "rect")
        .into_iter()
        .filter(|t| attr(t, "stroke").as_deref() == Some(hex(LEGEND_BORDER).as_str()))
        .map(|t| {
            let (x, y) = (num(t, "x"), num(t, "y"));
            (x, y, x + num(t, "width"), y + num(t, "height"))
        })
        .collect();
    assert_eq!(boxes.len(), 1, "one legend box");
    boxes[0]
}

fn polyline_points(tag: &str) -> Vec<(f64, f64)> {
    attr(tag, "points")
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// Bounding box of the data lines: polylines of three points or more (legend samples and
/// dashes have two).
fn data_box(svg: &str) -> Rect {
    tags(svg, "polyline")
        .into_iter()
        .map(polyline_points)
        .filter(|p| p.len() >= 3)
        .flatten()
        .fold(
            (
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ),
            |(a, b, c, d), (x, y)| (a.min(x), b.min(y), c.max(x), d.max(y)),
        )
}

fn intersects(a: Rect, b: Rect) -> bool {
    a.0 <= b.2 && b.0 <= a.2 && a.1 <= b.3 && b.1 <= a.3
}

fn inside(r: Rect, (x, y): (f64, f64)) -> bool {
    x >= r.0 && x <= r.2 && y >= r.1 && y <= r.3
}

/// (x, y, text) of every text element.
fn texts(svg: &str) -> Vec<(f64, f64, String)> {
    svg.match_indices("<text ")
        .map(|(i, _)| {
            let end = svg[i..].find('>').unwrap() + i;
            let close = svg[end..].find("</text>").unwrap() + end;
            let tag = &svg[i..=end];
            (
                num(tag, "x"),
                num(tag, "y"),
                svg[end + 1..close].trim().to_string(),
            )
        })
        .collect()
}

fn text_at(svg: &str, text: &str) -> (f64, f64) {
    let found: Vec<(f64, f64)> = texts(svg)
        .into_iter()
        .filter(|t| t.2 == text)
        .map(|t| (t.0, t.1))
        .collect();
    assert_eq!(found.len(), 1, "text {text:?} once in {:?}", texts(svg));
    found[0]
}

/// With `CCLAB_FIGURE_DUMP=DIR`, write the figure as `DIR/name.png` to look at.
fn dump(figure: &impl Figure, name: &str) {
    if let Some(dir) = std::env::var_os("CCLAB_FIGURE_DUMP") {
        let path = Path::new(&dir).join(format!("{name}.png"));
        std::fs::write(path, render_png(figure).unwrap()).unwrap();
    }
}

// --- sweeps ---------------------------------------------------------------------------------

/// A sweep of `key` over `values` (in this order) and of `flows.*.cc` over `algorithms`,
/// with utilization `u(value index, algorithm index)`.
fn sweep(
    key: &str,
    values: &[&str],
    algorithms: &[&str],
    u: impl Fn(usize, usize) -> f64,
) -> (SweepManifest, Vec<Row>) {
    let mut rows = Vec::new();
    for (i, v) in values.iter().enumerate() {
        for (a, cc) in algorithms.iter().enumerate() {
            rows.push(Row {
                id: format!("{i}-{a}"),
                index: rows.len(),
                params: vec![
                    (key.to_string(), v.to_string()),
                    ("flows.*.cc".to_string(), cc.to_string()),
                ],
                replicate: 0,
                seed: 1,
                columns: vec!["aggregate.utilization".into()],
                values: vec![u(i, a).to_string()],
                wall_s: 0.0,
            });
        }
    }
    let manifest = SweepManifest {
        name: "test-sweep".into(),
        fingerprint: String::new(),
        axes: vec![key.to_string(), "flows.*.cc".to_string()],
        runs: rows.iter().map(|r| r.id.clone()).collect(),
    };
    (manifest, rows)
}

/// The x pixel of each data point of colour `color`, left to right (legend markers left out).
fn marker_xs(svg: &str, color: RGBColor) -> Vec<f64> {
    let legend = legend_box(svg);
    let mut xs: Vec<f64> = tags(svg, "circle")
        .into_iter()
        .filter(|t| attr(t, "fill").as_deref() == Some(hex(color).as_str()))
        .map(|t| (num(t, "cx"), num(t, "cy")))
        .filter(|&p| !inside(legend, p))
        .map(|p| p.0)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs
}

#[test]
fn swept_rates_sit_on_a_numeric_axis_in_proportion() {
    // Listed out of order, as a sweep may list them: the axis sorts them.
    let (manifest, rows) = sweep(
        "topology.bottleneck.rate",
        &["100Mbps", "10Mbps", "50Mbps"],
        &["reno", "cubic"],
        |i, a| 0.5 + 0.1 * i as f64 + 0.05 * a as f64,
    );
    let charts = charts(&manifest, &rows, &SweepPlotOptions::default()).unwrap();
    assert_eq!(charts.len(), 1);
    let chart = &charts[0].1;
    // 1 Mbit/s = 10^6 bit/s; 10..100 spans one decade, not more: linear.
    assert_eq!(
        chart.x,
        XAxis::Numeric {
            values: vec![10.0, 50.0, 100.0],
            log: false
        }
    );
    assert_eq!(chart.x_label, "bottleneck rate (Mbit/s)");
    assert_eq!(chart.y_label, "bottleneck utilization");
    let svg = render_svg(chart).unwrap();
    let xs = marker_xs(&svg, PALETTE[0]);
    assert_eq!(xs.len(), 3, "three points of the first series");
    // Linear: 50 sits 40/90 of the way from 10 to 100 (pixels are rounded: ±1 px).
    let expected = xs[0] + (xs[2] - xs[0]) * 40.0 / 90.0;
    assert!((xs[1] - expected).abs() <= 1.0, "{xs:?}");
    // A tick label at each swept value, centred on its points, in the axis unit.
    for (label, x) in ["10", "50", "100"].iter().zip(&xs) {
        let (tx, _) = text_at(&svg, label);
        assert!((tx - x).abs() <= 1.0, "tick {label} at {tx}, points at {x}");
    }
    text_at(&svg, "bottleneck rate (Mbit/s)");
    text_at(&svg, "bottleneck utilization");
}

#[test]
fn rtts_spanning_decades_go_on_a_log_axis() {
    let (manifest, rows) = sweep(
        "flows.0.extra_rtt",
        &["2ms", "16ms", "128ms", "512ms"],
        &["reno"],
        |i, _| 1.0 - 0.2 * i as f64,
    );
    let charts = charts(&manifest, &rows, &SweepPlotOptions::default()).unwrap();
    let chart = &charts[0].1;
    assert_eq!(
        chart.x,
        XAxis::Numeric {
            values: vec![2.0, 16.0, 128.0, 512.0],
            log: true
        }
    );
    assert_eq!(chart.x_label, "extra RTT of flow group 0 (ms, log scale)");
    let svg = render_svg(chart).unwrap();
    let xs = marker_xs(&svg, PALETTE[0]);
    assert_eq!(xs.len(), 4);
    // log2: 1, 4, 7, 9 — 16 ms sits 3/8 and 128 ms 6/8 of the way from 2 to 512 ms.
    for (i, fraction) in [(1, 3.0 / 8.0), (2, 6.0 / 8.0)] {
        let expected = xs[0] + (xs[3] - xs[0]) * fraction;
        assert!((xs[i] - expected).abs() <= 1.0, "{xs:?}");
    }
}

#[test]
fn words_stay_categories_in_the_sweep_order() {
    let (manifest, rows) = sweep(
        "topology.bottleneck.queue",
        &["red", "codel", "droptail"],
        &["reno"],
        |i, _| 0.9 - 0.1 * i as f64,
    );
    let charts = charts(&manifest, &rows, &SweepPlotOptions::default()).unwrap();
    let chart = &charts[0].1;
    assert_eq!(
        chart.x,
        XAxis::Categories(vec!["red".into(), "codel".into(), "droptail".into()])
    );
    assert_eq!(chart.x_label, "bottleneck queue discipline");
    let svg = render_svg(chart).unwrap();
    let xs = marker_xs(&svg, PALETTE[0]);
    // Equally spaced.
    assert_eq!(xs.len(), 3);
    assert!(((xs[1] - xs[0]) - (xs[2] - xs[1])).abs() <= 1.0, "{xs:?}");
}

const ALGORITHMS: [&str; 21] = [
    "reno",
    "highspeed",
    "scalable",
    "bic",
    "cubic",
    "htcp",
    "hybla",
    "libra",
    "vegas",
    "dynamic-vegas",
    "fast",
    "compound",
    "africa",
    "illinois",
    "yeah",
    "veno",
    "westwood",
    "areno",
    "fusion",
    "bbr",
    "bbr3",
];

#[test]
fn twenty_one_algorithms_get_twenty_one_looks() {
    let looks: Vec<_> = (0..40)
        .map(|i| {
            let s = series_style(i);
            (s.color.0, s.color.1, s.color.2, s.dash, s.marker)
        })
        .collect();
    for (i, a) in looks.iter().enumerate() {
        for b in &looks[..i] {
            assert_ne!(a, b, "series {i} looks like an earlier one");
        }
    }
    // And the figure uses them: 21 legend entries, pairwise different samples.
    let (manifest, rows) = sweep(
        "topology.bottleneck.rate",
        &["10Mbps", "100Mbps", "1Gbps"],
        &ALGORITHMS,
        |i, a| 0.5 + 0.02 * a as f64 + 0.1 * i as f64,
    );
    let charts = charts(&manifest, &rows, &SweepPlotOptions::default()).unwrap();
    let legend = charts[0].1.legend();
    assert_eq!(legend.len(), 21);
    for (i, a) in legend.iter().enumerate() {
        for b in &legend[..i] {
            assert_ne!(a.sample, b.sample, "{} and {} look alike", a.label, b.label);
        }
    }
}

// --- legends --------------------------------------------------------------------------------

/// Lines that reach every corner of the plot: no corner is free for a legend.
fn crossing_lines(n: usize) -> Vec<Line> {
    (0..n)
        .map(|k| Line {
            label: format!("flow {k} (a rather long algorithm name)"),
            color: PALETTE[k % PALETTE.len()],
            points: (0..=100)
                .map(|i| {
                    let t = i as f64 / 10.0;
                    let up = if k % 2 == 0 { t } else { 10.0 - t };
                    (t, up * 10.0 + k as f64)
                })
                .collect(),
            dashed: false,
        })
        .collect()
}

#[test]
fn legend_never_covers_data() {
    for n in [1, 3, 8, 12, 30] {
        let chart = TimeChart {
            title: "legend placement".into(),
            x_label: "time (s)".into(),
            y_label: "cwnd (kB)".into(),
            lines: crossing_lines(n),
            ..TimeChart::default()
        };
        let svg = render_svg(&chart).unwrap();
        dump(&chart, &format!("legend-{n}-lines"));
        let (legend, data) = (legend_box(&svg), data_box(&svg));
        assert!(
            !intersects(legend, data),
            "{n} lines: legend {legend:?} over data {data:?}"
        );
        // Every entry is inside the figure and inside its box.
        for k in 0..n {
            let (x, y) = text_at(&svg, &format!("flow {k} (a rather long algorithm name)"));
            assert!(inside(legend, (x, y)), "entry {k} outside the legend box");
        }
        assert!(legend.2 <= 1000.0 && legend.3 <= 600.0, "{legend:?}");
    }
    // The sweep figure of all 21 algorithms, whose lines span the plot.
    let (manifest, rows) = sweep(
        "topology.bottleneck.rate",
        &["10Mbps", "100Mbps", "1Gbps"],
        &ALGORITHMS,
        |i, a| if a % 2 == 0 { i as f64 } else { 2.0 - i as f64 },
    );
    let charts = charts(&manifest, &rows, &SweepPlotOptions::default()).unwrap();
    let svg = render_svg(&charts[0].1).unwrap();
    dump(&charts[0].1, "legend-21-algorithms");
    let (legend, data) = (legend_box(&svg), data_box(&svg));
    assert!(!intersects(legend, data), "{legend:?} over {data:?}");
    for cc in ALGORITHMS {
        assert!(inside(legend, text_at(&svg, cc)), "{cc} outside the box");
    }
}

// --- run figures ----------------------------------------------------------------------------

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-layout-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A minimal run folder: `groups` [[flows]] tables of (algorithm, flows), cwnd of flow i =
/// (i + 1) kB from 0.1 s to 1 s, ssthresh 5 kB.
fn run_folder(dir: &Path, groups: &[(&str, usize)]) {
    let mut flows = Vec::new();
    let mut ts = String::from("time_s,flow,cwnd_bytes,ssthresh_bytes,rtt_ms\n");
    let mut id = 0;
    for (g, &(cc, count)) in groups.iter().enumerate() {
        for _ in 0..count {
            flows.push(format!(r#"{{"id": {id}, "group": {g}, "cc": "{cc}"}}"#));
            id += 1;
        }
    }
    for tick in 1..=10 {
        for flow in 0..id {
            ts.push_str(&format!(
                "{},{flow},{},5000,{}\n",
                tick as f64 / 10.0,
                (flow + 1) * 1000,
                20 + flow
            ));
        }
    }
    std::fs::write(
        dir.join("summary.json"),
        format!(
            r#"{{"scenario": "layout", "flows": [{}]}}"#,
            flows.join(", ")
        ),
    )
    .unwrap();
    std::fs::write(dir.join("timeseries.csv"), ts).unwrap();
    std::fs::write(
        dir.join("queue.csv"),
        "time_s,link,queue_pkts,drops\n0.1,bottleneck,3,0\n0.2,bottleneck,5,1\n",
    )
    .unwrap();
}

fn svg_only() -> RunPlotOptions {
    RunPlotOptions {
        formats: Formats {
            svg: true,
            png: false,
        },
        ..RunPlotOptions::default()
    }
}

/// Pieces of line in the legend sample left of the label at (x, y).
fn sample_pieces(svg: &str, (x, y): (f64, f64)) -> usize {
    tags(svg, "polyline")
        .into_iter()
        .map(polyline_points)
        .filter(|p| {
            p.len() == 2
                && p.iter()
                    .all(|&(px, py)| (py - y).abs() < 1.0 && px < x && px > x - 45.0)
        })
        .count()
}

#[test]
fn ssthresh_legend_entry_is_dashed() {
    let dir = scratch("ssthresh");
    run_folder(&dir, &[("reno", 2)]);
    plot_run(&dir, &svg_only()).unwrap();
    let svg = std::fs::read_to_string(dir.join("figures/cwnd.svg")).unwrap();
    let legend = legend_box(&svg);
    let cwnd = text_at(&svg, "flow 0 (reno)");
    let ssthresh = text_at(&svg, "flow 0 (reno) ssthresh");
    assert!(inside(legend, cwnd) && inside(legend, ssthresh));
    // The cwnd sample is one solid stroke; the ssthresh sample is broken into dashes.
    assert_eq!(sample_pieces(&svg, cwnd), 1);
    assert!(sample_pieces(&svg, ssthresh) >= 3, "dashed: several pieces");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn many_flows_draw_group_means_over_grey_flows() {
    let dir = scratch("many");
    run_folder(&dir, &[("reno", 6), ("cubic", 6)]);
    plot_run(&dir, &svg_only()).unwrap();
    for figure in ["cwnd", "rtt"] {
        let svg = std::fs::read_to_string(dir.join(format!("figures/{figure}.svg"))).unwrap();
        let labels: Vec<String> = texts(&svg).into_iter().map(|t| t.2).collect();
        for label in [
            "mean of group 0 (6 reno flows)",
            "mean of group 1 (6 cubic flows)",
            "each of the 12 flows",
        ] {
            assert!(labels.iter().any(|l| l == label), "{figure}: {labels:?}");
        }
        assert!(
            labels
                .iter()
                .any(|l| l.contains("12 flows: mean per flow group, each flow in grey")),
            "{figure}: the title says what is drawn: {labels:?}"
        );
        assert!(
            !labels.iter().any(|l| l.starts_with("flow ")),
            "{figure}: no per-flow entries"
        );
        // 12 grey lines and 2 mean lines.
        let lines = tags(&svg, "polyline")
            .into_iter()
            .filter(|t| polyline_points(t).len() >= 3)
            .count();
        assert_eq!(lines, 14, "{figure}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn legend_samples_are_what_the_lines_are() {
    let chart = TimeChart {
        lines: vec![
            Line {
                label: "a".into(),
                color: PALETTE[0],
                points: vec![(0.0, 1.0), (1.0, 2.0)],
                dashed: false,
            },
            Line {
                label: "a ssthresh".into(),
                color: PALETTE[0],
                points: vec![(0.0, 1.0), (1.0, 1.0)],
                dashed: true,
            },
        ],
        ..TimeChart::default()
    };
    let legend = chart.legend();
    assert!(matches!(
        legend[0].sample,
        Sample::Line {
            dash: cclab_analysis::plot::Dash::Solid,
            ..
        }
    ));
    assert!(matches!(
        legend[1].sample,
        Sample::Line {
            dash: cclab_analysis::plot::Dash::Dashed,
            ..
        }
    ));
}

#[test]
fn a_single_outlier_does_not_flatten_the_figure() {
    // 1000 samples between 10 and 20, one of 10^6 at t = 5 s: the 99th percentile is below
    // 20, so 10^6 is more than OFF_SCALE times it and goes off the scale.
    let mut points: Vec<(f64, f64)> = (0..1000)
        .map(|i| (i as f64 / 100.0, 10.0 + (i % 11) as f64))
        .collect();
    points[500].1 = 1e6;
    let chart = TimeChart {
        title: "outlier".into(),
        x_label: "time (s)".into(),
        y_label: "cwnd (kB)".into(),
        lines: vec![Line {
            label: "flow 0".into(),
            color: PALETTE[0],
            points,
            dashed: false,
        }],
        ..TimeChart::default()
    };
    let (top, peak) = chart.y_top();
    assert_eq!(top, 20.0, "the largest value within the scale");
    assert_eq!(peak, Some((5.0, 1e6)));
    let svg = render_svg(&chart).unwrap();
    dump(&chart, "outlier");
    text_at(&svg, "outlier (off scale: 1000000 kB at 5 s)");
    // The y ticks stop near 20 instead of running to 10^6.
    let ticks: Vec<f64> = texts(&svg)
        .into_iter()
        .filter_map(|t| t.2.parse::<f64>().ok())
        .collect();
    let highest = ticks.iter().copied().fold(0.0, f64::max);
    assert!(highest <= 25.0, "{ticks:?}");
    // A slow-start peak twice the steady value stays on the scale.
    let mut normal = chart.clone();
    normal.lines[0].points[500].1 = 40.0;
    assert_eq!(normal.y_top(), (40.0, None));
}
