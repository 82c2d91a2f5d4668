//! The table (console and markdown) and the bar chart (SVG, written by
//! hand) of a run.

use crate::harness::{Lib, Measured, Plan, Scenario, Target};
use std::fmt::Write;

pub struct Row {
    pub name: &'static str,
    pub what: &'static str,
    pub iters: u32,
    /// Median µs per iteration, by [`Lib::index`].
    pub medians: [Option<f64>; 4],
    /// (p75 - p25) / median, by [`Lib::index`].
    pub spreads: [Option<f64>; 4],
    /// Libraries that ran but are not peers for the ratio (hecs in
    /// `schedule`, which has no scheduler and runs sequentially).
    pub not_peer: Vec<Lib>,
    pub best_peer: Option<(Lib, f64)>,
    pub peer_ratio: Option<f64>,
    /// Each library against the best peer, paired by round (the chart).
    pub relative: [Option<f64>; 4],
    pub floor_ratio: Option<f64>,
    pub target: Target,
    /// The libraries "best peer" is taken over.
    pub peers: &'static [Lib],
    pub met: Option<bool>,
}

pub fn rows(results: &[(Scenario, Measured)]) -> Vec<Row> {
    results
        .iter()
        .map(|(scenario, m)| {
            let medians = Lib::ALL.map(|lib| m.median(lib));
            let spreads = Lib::ALL.map(|lib| m.spread(lib));
            let best_peer = scenario
                .peers
                .iter()
                .filter_map(|&lib| medians[lib.index()].map(|t| (lib, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            // The best peer is the one with the lowest median; the ratios
            // pair the samples of each round (see `paired_ratio`).
            let peer_ratio = best_peer.and_then(|(lib, _)| m.paired_ratio(Lib::Ours, lib));
            let floor_ratio = m.paired_ratio(Lib::Ours, Lib::Floor);
            let relative =
                Lib::ALL.map(|lib| best_peer.and_then(|(peer, _)| m.paired_ratio(lib, peer)));
            let met = match scenario.target {
                Target::Peer(t) => peer_ratio.map(|r| r <= t),
                Target::Floor(t) => floor_ratio.map(|r| r <= t),
            };
            let not_peer = [Lib::Bevy, Lib::Hecs]
                .into_iter()
                .filter(|lib| medians[lib.index()].is_some() && !scenario.peers.contains(lib))
                .collect();
            Row {
                name: scenario.name,
                what: scenario.what,
                iters: m.iters,
                medians,
                spreads,
                not_peer,
                best_peer,
                peer_ratio,
                relative,
                floor_ratio,
                target: scenario.target,
                peers: scenario.peers,
                met,
            }
        })
        .collect()
}

fn target_text(row: &Row) -> String {
    match (row.target, row.peers) {
        (Target::Peer(t), [only]) => format!("≤ {t:.1} × {}", only.short()),
        (Target::Peer(t), _) => format!("≤ {t:.1} × best peer"),
        (Target::Floor(t), _) => format!("≤ {t:.1} × floor"),
    }
}

fn met_text(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "MISSED",
        None => "-",
    }
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{r:.2}"))
}

fn us(t: f64) -> String {
    if t >= 100.0 {
        format!("{t:.0}")
    } else if t >= 10.0 {
        format!("{t:.1}")
    } else if t >= 1.0 {
        format!("{t:.2}")
    } else {
        format!("{t:.3}")
    }
}

pub fn console_table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:>17} {:>17} {:>17} {:>17} {:>12} {:>10}  {:<22} {:<6} {:>7}",
        "scenario (µs)",
        "ours",
        "bevy_ecs",
        "hecs",
        "floor",
        "ours/peer",
        "ours/floor",
        "target",
        "",
        "iters"
    );
    for row in rows {
        let cells =
            Lib::ALL.map(
                |lib| match (row.medians[lib.index()], row.spreads[lib.index()]) {
                    (Some(t), Some(s)) => {
                        let mark = if row.not_peer.contains(&lib) { "*" } else { "" };
                        format!("{}{mark} ±{:.0}%", us(t), s * 50.0)
                    }
                    _ => "-".to_string(),
                },
            );
        let peer = match (row.peer_ratio, row.best_peer) {
            (Some(r), Some((lib, _))) => format!("{r:.2} {}", lib.short()),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            out,
            "{:<18} {:>17} {:>17} {:>17} {:>17} {:>12} {:>10}  {:<22} {:<6} {:>7}",
            row.name,
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            peer,
            ratio_text(row.floor_ratio),
            target_text(row),
            met_text(row.met),
            row.iters,
        );
    }
    let _ = writeln!(
        out,
        "± is half the interquartile range of the samples; a ratio is the median of the rounds' own ratios (each round times \
         every library once), not the ratio of the medians shown; iters is the batch size of one sample; * ran, but is not a peer \
         (hecs has no scheduler: its schedule is the three loops run one after the other)."
    );
    out
}

pub fn markdown(rows: &[Row], plan: Plan, quick: bool, cores: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!-- Generated by benches/compare (cargo run --release --manifest-path \
         benches/compare/Cargo.toml); do not edit by hand. -->"
    );
    let _ = writeln!(out, "# ecs, bevy_ecs and hecs compared\n");
    let _ = writeln!(
        out,
        "Median time per iteration in µs ({} interleaved rounds{}, {cores} cores). \
         Ratios are medians over rounds of ours / the other library in the same round; \
         below 1 means ours is faster.\n",
        plan.rounds,
        if quick { ", --quick" } else { "" },
    );
    let _ = writeln!(
        out,
        "| scenario | ecs (ours) | bevy_ecs | hecs | floor | ours / best peer | ours / floor | target | |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|---|---|");
    let mut any_not_peer = false;
    for row in rows {
        let cells = Lib::ALL.map(|lib| match row.medians[lib.index()] {
            Some(t) if row.not_peer.contains(&lib) => {
                any_not_peer = true;
                format!("{} †", us(t))
            }
            Some(t) => us(t),
            None => "–".to_string(),
        });
        let peer = match (row.peer_ratio, row.best_peer) {
            (Some(r), Some((lib, _))) => format!("**{r:.2}** ({})", lib.short()),
            _ => "–".to_string(),
        };
        let floor = row
            .floor_ratio
            .map_or_else(|| "–".to_string(), |r| format!("{r:.2}"));
        let target = target_text(row);
        let met = match row.met {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "–",
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {peer} | {floor} | {target} | {met} |",
            row.name, cells[0], cells[1], cells[2], cells[3]
        );
    }
    let _ = writeln!(out);
    if any_not_peer {
        let _ = writeln!(
            out,
            "† not a peer for the ratio: hecs has no scheduler, so its `schedule` is \
             the three loops run one after the other on one thread.\n"
        );
    }
    let _ = writeln!(
        out,
        "![Each library's time relative to the best peer](compare.svg)\n"
    );
    let _ = writeln!(out, "Scenarios:\n");
    for row in rows {
        let _ = writeln!(out, "- `{}`: {}.", row.name, row.what);
    }
    out
}

const COLORS: [&str; 4] = ["#d9480f", "#1971c2", "#2f9e44", "#868e96"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal grouped bar chart: each library's time relative to the best
/// peer's, paired by round (so the best peer is at 1.0 and ours reads as
/// the table's ratio),
/// with the scenario's target marked in red.
pub fn svg(rows: &[Row]) -> String {
    const WIDTH: f64 = 860.0;
    const LEFT: f64 = 150.0;
    const RIGHT: f64 = 70.0;
    const TOP: f64 = 70.0;
    const BAR: f64 = 13.0;
    const GAP: f64 = 16.0;
    const MAX_RATIO: f64 = 2.5;
    let plot_w = WIDTH - LEFT - RIGHT;
    let x = |r: f64| LEFT + plot_w * r.min(MAX_RATIO) / MAX_RATIO;

    let bars_per_row = |row: &Row| row.medians.iter().filter(|m| m.is_some()).count() as f64;
    let height = TOP
        + rows
            .iter()
            .map(|r| bars_per_row(r) * BAR + GAP)
            .sum::<f64>()
        + 40.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="18" font-size="14" font-weight="bold">Time relative to the best peer (1.0); shorter is faster</text>"#
    );
    // Legend.
    let mut lx = LEFT;
    for lib in Lib::ALL {
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="28" width="12" height="12" fill="{}"/><text x="{}" y="38">{}</text>"#,
            COLORS[lib.index()],
            lx + 16.0,
            esc(lib.name())
        );
        lx += 110.0;
    }
    let _ = writeln!(
        s,
        r#"<line x1="{lx}" y1="34" x2="{}" y2="34" stroke="red" stroke-width="2"/><text x="{}" y="38">target</text>"#,
        lx + 14.0,
        lx + 18.0
    );
    // Grid.
    let bottom = height - 30.0;
    let mut g = 0.0;
    while g <= MAX_RATIO + 1e-9 {
        let gx = x(g);
        let (stroke, dash) = if (g - 1.0).abs() < 1e-9 {
            ("#000", "")
        } else {
            ("#ccc", r#" stroke-dasharray="3,3""#)
        };
        let _ = writeln!(
            s,
            r#"<line x1="{gx:.1}" y1="{}" x2="{gx:.1}" y2="{bottom}" stroke="{stroke}"{dash}/><text x="{gx:.1}" y="{}" text-anchor="middle">{g:.1}</text>"#,
            TOP - 8.0,
            bottom + 14.0
        );
        g += 0.5;
    }
    // Bars.
    let mut y = TOP;
    for row in rows {
        let n = bars_per_row(row);
        let group_h = n * BAR;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end" font-weight="bold">{}</text>"#,
            LEFT - 8.0,
            y + group_h / 2.0 + 4.0,
            esc(row.name)
        );
        if row.best_peer.is_none() {
            y += group_h + GAP;
            continue;
        }
        // The target, in best-peer units, under the bars and their labels.
        let target = match row.target {
            Target::Peer(t) => Some(t),
            Target::Floor(t) => row.relative[Lib::Floor.index()].map(|f| t * f),
        };
        if let Some(t) = target {
            let tx = x(t);
            let _ = writeln!(
                s,
                r#"<line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{:.1}" stroke="red" stroke-width="2"/>"#,
                y - 2.0,
                y + group_h + 1.0
            );
        }
        for lib in Lib::ALL {
            let (Some(t), Some(r)) = (row.medians[lib.index()], row.relative[lib.index()]) else {
                continue;
            };
            let w = x(r) - LEFT;
            let clipped = if r > MAX_RATIO { "…" } else { "" };
            let label = if row.not_peer.contains(&lib) {
                format!("{r:.2}{clipped} ({}, not a peer)", lib.short())
            } else {
                format!("{r:.2}{clipped}")
            };
            let _ = writeln!(
                s,
                r#"<rect x="{LEFT}" y="{y:.1}" width="{w:.1}" height="{}" fill="{}"><title>{}: {} µs</title></rect><text x="{:.1}" y="{:.1}">{}</text>"#,
                BAR - 2.0,
                COLORS[lib.index()],
                esc(lib.name()),
                us(t),
                LEFT + w + 4.0,
                y + BAR - 4.0,
                esc(&label)
            );
            y += BAR;
        }
        y += GAP;
    }
    let _ = writeln!(s, "</svg>");
    s
}
