//! `bench --plot`: frame time against crowd size, as an SVG drawn by hand
//! (a few lines and labels; no plotting crate needed).

use super::bench::{Mode, Report};
use super::render_args::{Switch, View};

/// Frame time (log scale) against crowd size (log scale), one line per mode.
pub fn svg_plot(report: &Report) -> String {
    const W: f64 = 700.0;
    const H: f64 = 400.0;
    const LEFT: f64 = 70.0;
    const RIGHT: f64 = 190.0;
    const TOP: f64 = 30.0;
    const BOTTOM: f64 = 50.0;
    let (xs, ys): (Vec<f64>, Vec<f64>) = report
        .runs
        .iter()
        .map(|r| {
            (
                f64::from(r.case.instances).log10(),
                r.frame_ms.max(1e-3).log10(),
            )
        })
        .unzip();
    let range = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        let (lo, hi) = (lo.floor(), hi.ceil());
        (lo, if hi > lo { hi } else { lo + 1.0 })
    };
    let ((x0, x1), (y0, y1)) = (range(&xs), range(&ys));
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);

    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"18\">md5crowd bench: median frame time, {} ({}x{})</text>\n",
        xml_escape(&report.device),
        report.width,
        report.height
    );
    for decade in x0 as i32..=x1 as i32 {
        let x = px(f64::from(decade));
        svg += &format!(
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            py(y0),
            py(y1),
            H - BOTTOM + 18.0,
            10f64.powi(decade)
        );
    }
    for decade in y0 as i32..=y1 as i32 {
        let y = py(f64::from(decade));
        svg += &format!(
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} ms</text>\n",
            px(x0),
            px(x1),
            LEFT - 6.0,
            y + 4.0,
            10f64.powi(decade)
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">instances</text>\n",
        (px(x0) + px(x1)) / 2.0,
        H - 12.0
    );
    // One line per combination of mode, level of detail, occlusion,
    // impostors and view.
    let mut lines: Vec<(Mode, Switch, Switch, bool, View)> = Vec::new();
    for run in &report.runs {
        let c = &run.case;
        let line = (c.mode, c.lod, c.occlusion, c.impostors, c.view);
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    let colours = [
        "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    ];
    for (i, &line) in lines.iter().enumerate() {
        let (mode, lod, occlusion, impostors, view) = line;
        let colour = colours[i % colours.len()];
        let points: Vec<String> = report
            .runs
            .iter()
            .filter(|r| {
                let c = &r.case;
                (c.mode, c.lod, c.occlusion, c.impostors, c.view) == line
            })
            .map(|r| {
                format!(
                    "{:.1},{:.1}",
                    px(f64::from(r.case.instances).log10()),
                    py(r.frame_ms.max(1e-3).log10())
                )
            })
            .collect();
        let mut label = mode.name().to_owned();
        if lod == Switch::Off {
            label += ", LOD off";
        }
        if occlusion == Switch::Off {
            label += ", occl. off";
        }
        if !impostors {
            label += ", impostors off";
        }
        if view == View::Street {
            label += ", street";
        }
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n\
             <text x=\"{}\" y=\"{}\" fill=\"{colour}\">{label}</text>\n",
            points.join(" "),
            W - RIGHT + 10.0,
            TOP + 20.0 + 18.0 * i as f64,
        );
    }
    svg + "</svg>\n"
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
