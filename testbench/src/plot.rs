//! The latency and bandwidth figures as one SVG (two panels, log-2 size axis), like the
//! paper's figures 2 and 3.

use crate::pingpong::Row;
use plotters::prelude::*;
use std::path::Path;

/// One curve: a label and its rows.
pub struct Series<'a> {
    /// Legend text.
    pub label: String,
    /// Points.
    pub rows: &'a [Row],
}

/// One panel of the figure.
struct Panel {
    title: &'static str,
    ylabel: &'static str,
    ymax: f64,
    value: fn(&Row) -> f64,
    log_y: bool,
}

/// Draws latency (left) and bandwidth (right) against size into `path`.
pub fn draw(path: &Path, series: &[Series]) -> Result<(), String> {
    let all: Vec<&Row> = series.iter().flat_map(|s| s.rows.iter()).collect();
    if all.is_empty() {
        return Err("nothing to plot".into());
    }
    let min_b = all.iter().map(|r| r.bytes).min().expect("non-empty") as f64;
    let max_b = (all.iter().map(|r| r.bytes).max().expect("non-empty") as f64).max(min_b * 2.0);
    let max_lat = all.iter().map(|r| r.latency_us).fold(0.0, f64::max) * 1.1;
    let max_bw = all
        .iter()
        .map(|r| r.bandwidth_gb_s)
        .fold(0.0, f64::max)
        .max(0.1)
        * 1.15;
    let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let (left, right) = root.split_horizontally(550);
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    let panels = [
        Panel {
            title: "PEACH2 DMA latency (ping-pong / 2)",
            ylabel: "latency [us]",
            ymax: max_lat,
            value: |r| r.latency_us,
            log_y: true,
        },
        Panel {
            title: "PEACH2 DMA bandwidth",
            ylabel: "bandwidth [GB/s]",
            ymax: max_bw,
            value: |r| r.bandwidth_gb_s,
            log_y: false,
        },
    ];
    for (area, p) in [&left, &right].into_iter().zip(panels) {
        let (title, ylabel, ymax, value, log_y) = (p.title, p.ylabel, p.ymax, p.value, p.log_y);
        let mut b = ChartBuilder::on(area);
        b.caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60);
        let x = (min_b..max_b).log_scale().base(2.0);
        macro_rules! finish {
            ($chart:expr) => {{
                let mut chart = $chart.map_err(|x| e(&x))?;
                chart
                    .configure_mesh()
                    .x_desc("size [bytes]")
                    .y_desc(ylabel)
                    .x_label_formatter(&|v| human(*v))
                    .draw()
                    .map_err(|x| e(&x))?;
                for (i, s) in series.iter().enumerate() {
                    let c = colors[i % colors.len()];
                    let pts: Vec<(f64, f64)> =
                        s.rows.iter().map(|r| (r.bytes as f64, value(r))).collect();
                    chart
                        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                        .map_err(|x| e(&x))?
                        .label(s.label.clone())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                        });
                    chart
                        .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                        .map_err(|x| e(&x))?;
                }
                chart
                    .configure_series_labels()
                    .position(if log_y {
                        SeriesLabelPosition::UpperLeft
                    } else {
                        SeriesLabelPosition::LowerRight
                    })
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|x| e(&x))?;
            }};
        }
        if log_y {
            let min_lat = all.iter().map(|r| r.latency_us).fold(f64::MAX, f64::min) * 0.8;
            finish!(b.build_cartesian_2d(x, (min_lat..ymax).log_scale()));
        } else {
            finish!(b.build_cartesian_2d(x, 0.0..ymax));
        }
    }
    root.present().map_err(|x| e(&x))
}

fn human(v: f64) -> String {
    let v = v.round() as u64;
    if v >= 1 << 20 && v.is_multiple_of(1 << 20) {
        format!("{}M", v >> 20)
    } else if v >= 1 << 10 && v.is_multiple_of(1 << 10) {
        format!("{}K", v >> 10)
    } else {
        v.to_string()
    }
}
