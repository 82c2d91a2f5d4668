//! The measuring machinery: a [`Case`] (from `ecs-scenarios`) is one
//! library's state for one scenario; [`measure`] interleaves the cases of a
//! scenario round by round and keeps every sample.

use ecs_scenarios::Case;
use std::time::Duration;

/// The libraries (and the hand-written floor) that a scenario can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    Ours,
    Bevy,
    Hecs,
    Floor,
}

impl Lib {
    pub const ALL: [Lib; 4] = [Lib::Ours, Lib::Bevy, Lib::Hecs, Lib::Floor];

    pub fn name(self) -> &'static str {
        match self {
            Lib::Ours => "ecs (ours)",
            Lib::Bevy => "bevy_ecs",
            Lib::Hecs => "hecs",
            Lib::Floor => "floor",
        }
    }

    pub fn short(self) -> &'static str {
        match self {
            Lib::Ours => "ours",
            Lib::Bevy => "bevy",
            Lib::Hecs => "hecs",
            Lib::Floor => "floor",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// The goal a scenario is held to.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// ours / best peer at most this.
    Peer(f64),
    /// ours / floor at most this.
    Floor(f64),
}

/// Builds one library's case for a scenario.
pub type Build = fn() -> Box<dyn Case>;

/// A scenario: its name, the libraries it runs on and how each is built.
pub struct Scenario {
    pub name: &'static str,
    pub what: &'static str,
    /// The libraries whose best median "ours / best peer" divides by.
    pub peers: &'static [Lib],
    pub target: Target,
    pub cases: Vec<(Lib, Build)>,
}

/// How long a run is.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Rounds per scenario; every library gets one sample per round.
    pub rounds: usize,
    /// The wall time one sample aims at; the batch size follows from it.
    pub sample_target: Duration,
}

/// What was measured for one scenario.
pub struct Measured {
    pub iters: u32,
    /// Per library (indexed by [`Lib::index`]): the per-iteration time of
    /// every sample, in microseconds.
    pub samples: [Option<Vec<f64>>; 4],
}

impl Measured {
    pub fn median(&self, lib: Lib) -> Option<f64> {
        self.samples[lib.index()].as_ref().map(|s| quantile(s, 0.5))
    }

    /// The median over rounds of `a`'s sample divided by `b`'s sample of
    /// the same round. Pairing samples taken moments apart cancels the
    /// machine's slow drifts, which a ratio of two medians does not.
    pub fn paired_ratio(&self, a: Lib, b: Lib) -> Option<f64> {
        let (a, b) = (
            self.samples[a.index()].as_ref()?,
            self.samples[b.index()].as_ref()?,
        );
        let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
        Some(quantile(&ratios, 0.5))
    }

    /// (p75 - p25) / median: how noisy the samples were.
    pub fn spread(&self, lib: Lib) -> Option<f64> {
        self.samples[lib.index()]
            .as_ref()
            .map(|s| (quantile(s, 0.75) - quantile(s, 0.25)) / quantile(s, 0.5))
    }
}

fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    sorted[lo] * (1.0 - frac) + sorted[hi] * frac
}

/// Measures one scenario: builds every library's case, warms each up,
/// picks one batch size for all of them, then runs `plan.rounds` rounds.
/// In each round every library takes one sample; the order rotates from
/// round to round so that no library always runs first (after an idle
/// thread pool) or last. Each case is verified at the end, outside timing.
pub fn measure(scenario: &Scenario, plan: Plan) -> Measured {
    let mut cases: Vec<(Lib, Box<dyn Case>)> = scenario
        .cases
        .iter()
        .map(|&(lib, build)| (lib, build()))
        .collect();

    // Warm up (first-use registration, allocations, caches, thread pools)
    // and find the slowest library's time per iteration.
    let mut slowest = Duration::ZERO;
    for (_, case) in &mut cases {
        case.run_batch(2);
        let t = case.run_batch(3) / 3;
        slowest = slowest.max(t);
    }
    let iters = (plan.sample_target.as_secs_f64() / slowest.as_secs_f64().max(1e-9))
        .round()
        .clamp(1.0, 1_000_000.0) as u32;

    let mut samples: [Option<Vec<f64>>; 4] = Default::default();
    for (lib, _) in &cases {
        samples[lib.index()] = Some(Vec::with_capacity(plan.rounds));
    }
    let n = cases.len();
    for round in 0..plan.rounds {
        for k in 0..n {
            let (lib, case) = &mut cases[(round + k) % n];
            let t = case.run_batch(iters);
            let per_iter = t.as_secs_f64() * 1e6 / f64::from(iters);
            samples[lib.index()].as_mut().unwrap().push(per_iter);
        }
    }

    for (lib, case) in &mut cases {
        case.verify();
        eprintln!("    verified {}", lib.name());
    }

    Measured { iters, samples }
}
