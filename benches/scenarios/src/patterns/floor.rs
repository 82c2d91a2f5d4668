use super::{
    indexed, random_sum, shuffled_indices, CHANGED_EVERY, CHANGED_N, MANY_ARCHETYPES, PATTERN_N,
    PER_ARCHETYPE,
};
use crate::bulk::split_case;
use crate::case::{case, Case};
use glam::Vec3;
use std::hint::black_box;

/// One `Vec` per column of the eight-term query.
struct Wide {
    w0: Vec<f32>,
    rest: [Vec<f32>; 7],
}

fn wide_run(s: &mut Wide) {
    let [w1, w2, w3, w4, w5, w6, w7] = &s.rest;
    for (i, w0) in s.w0.iter_mut().enumerate() {
        *w0 += w1[i] + w2[i] + w3[i] + w4[i] + w5[i] + w6[i] + w7[i];
    }
}

/// `wide_iter` (and `wide_iter_each`): eight `Vec`s, one of them written.
pub fn wide_iter() -> Box<dyn Case> {
    let state = Wide {
        w0: vec![0.0; PATTERN_N],
        rest: std::array::from_fn(|_| vec![1.0; PATTERN_N]),
    };
    case(state, wide_run, |s| {
        s.w0.iter_mut().for_each(|w| *w = 0.0);
        wide_run(s);
        assert!(s.w0.iter().all(|&w| w == 7.0));
    })
}

/// The floor of `wide_iter_each`: the same loop as `wide_iter`'s.
pub fn wide_iter_each() -> Box<dyn Case> {
    wide_iter()
}

fn many_run(tables: &mut [Vec<f32>]) {
    for table in tables.iter_mut() {
        for data in table.iter_mut() {
            *data += 1.0;
        }
    }
}

/// `many_archetypes`: 1,000 `Vec`s of 10 values.
pub fn many_archetypes() -> Box<dyn Case> {
    let tables = vec![vec![0.0f32; PER_ARCHETYPE]; MANY_ARCHETYPES];
    case(
        tables,
        |t| many_run(t),
        |t| {
            t.iter_mut().flatten().for_each(|d| *d = 0.0);
            many_run(t);
            assert_eq!(t.iter().flatten().count(), MANY_ARCHETYPES * PER_ARCHETYPE);
            assert!(t.iter().flatten().all(|&d| d == 1.0));
        },
    )
}

struct RandomGet {
    positions: Vec<Vec3>,
    order: Vec<usize>,
    sum: f64,
}

fn random_run(s: &mut RandomGet) {
    let mut sum = 0.0f64;
    for &i in &s.order {
        let p = s.positions[i];
        sum += f64::from(p.x + p.y);
    }
    s.sum = black_box(sum);
}

/// `random_get` (and `random_get_world`): bounds-checked indexing into a
/// `Vec` in the same shuffled order.
pub fn random_get() -> Box<dyn Case> {
    let state = RandomGet {
        positions: (0..PATTERN_N).map(indexed).collect(),
        order: shuffled_indices(PATTERN_N),
        sum: 0.0,
    };
    case(state, random_run, |s| {
        s.sum = 0.0;
        random_run(s);
        assert_eq!(s.sum, random_sum(PATTERN_N));
    })
}

/// The floor of `random_get_world`: the same lookups as `random_get`'s.
pub fn random_get_world() -> Box<dyn Case> {
    random_get()
}

fn sparse_run(values: &mut [f32]) {
    for v in values.iter_mut() {
        *v += 1.0;
    }
}

/// `sparse_iter`: one dense `Vec`, as a sparse set's dense array is.
pub fn sparse_iter() -> Box<dyn Case> {
    case(
        vec![0.0f32; PATTERN_N],
        |v| sparse_run(v),
        |v| {
            v.iter_mut().for_each(|v| *v = 0.0);
            sparse_run(v);
            assert!(v.iter().all(|&v| v == 1.0));
        },
    )
}

/// `sparse_iter_each`: the same loop (the floor has one form).
pub fn sparse_iter_each() -> Box<dyn Case> {
    sparse_iter()
}

/// Positions beside an optional value for every other entity.
struct SparseHalf {
    positions: Vec<Vec3>,
    sparse: Vec<Option<f32>>,
}

fn sparse_half() -> SparseHalf {
    SparseHalf {
        positions: vec![Vec3::ZERO; PATTERN_N],
        sparse: (0..PATTERN_N)
            .map(|i| (i % 2 == 0).then_some(1.0))
            .collect(),
    }
}

fn sparse_half_case(run: fn(&mut SparseHalf)) -> Box<dyn Case> {
    case(sparse_half(), run, move |s| {
        s.positions.iter_mut().for_each(|p| *p = Vec3::ZERO);
        run(s);
        let moved = s.positions.iter().filter(|p| p.x == 1.0).count();
        assert_eq!(moved, PATTERN_N / 2);
    })
}

fn sparse_has_run(s: &mut SparseHalf) {
    for (p, v) in s.positions.iter_mut().zip(&s.sparse) {
        if v.is_some() {
            p.x += 1.0;
        }
    }
}

fn sparse_option_run(s: &mut SparseHalf) {
    for (p, v) in s.positions.iter_mut().zip(&s.sparse) {
        if let Some(v) = v {
            p.x += v;
        }
    }
}

/// `sparse_iter_has`: positions zipped with a `Vec<Option<f32>>`.
pub fn sparse_iter_has() -> Box<dyn Case> {
    sparse_half_case(sparse_has_run)
}

/// `sparse_iter_option`: the same, reading the value.
pub fn sparse_iter_option() -> Box<dyn Case> {
    sparse_half_case(sparse_option_run)
}

/// Values and the tick each last changed at, as an ECS's table keeps them.
struct Changed {
    values: Vec<u32>,
    ticks: Vec<u32>,
    last_run: u32,
    now: u32,
    seen: (usize, u64),
}

fn changed_touch(s: &mut Changed) {
    s.last_run = s.now;
    s.now += 1;
    for i in (0..CHANGED_N).step_by(CHANGED_EVERY) {
        s.values[i] += 1;
        s.ticks[i] = s.now;
    }
}

fn changed_run(s: &mut Changed) {
    let (mut n, mut sum) = (0usize, 0u64);
    for (v, &t) in s.values.iter().zip(&s.ticks) {
        if t > s.last_run {
            n += 1;
            sum += u64::from(*v);
        }
    }
    s.seen = black_box((n, sum));
}

/// `changed_filter`: a tick compare over 100,000 rows, 1% newer.
pub fn changed_filter() -> Box<dyn Case> {
    let state = Changed {
        values: vec![0; CHANGED_N],
        ticks: vec![0; CHANGED_N],
        last_run: 0,
        now: 0,
        seen: (0, 0),
    };
    split_case(state, changed_touch, changed_run, |s| {
        assert_eq!(s.seen.0, CHANGED_N / CHANGED_EVERY);
        assert_eq!(s.seen.1, u64::from(s.values[0]) * s.seen.0 as u64);
    })
}
