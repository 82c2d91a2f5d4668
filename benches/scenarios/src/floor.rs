//! Hand-written loops over plain `Vec`s: what the same work costs with no
//! ECS at all. The data is laid out as an ECS lays it out (one `Vec` per
//! component, one set of `Vec`s per archetype), so the floor measures the
//! loop, not a better layout.

use crate::case::{case, Case};
use crate::{approx_eq, heavy_work, FRAG_PER_TYPE, HEAVY_N, SIMPLE_N};
use glam::{Mat4, Vec3};
use rayon::prelude::*;

struct SimpleIter {
    velocities: Vec<Vec3>,
    positions: Vec<Vec3>,
}

fn simple_iter_run(s: &mut SimpleIter) {
    for (velocity, position) in s.velocities.iter().zip(s.positions.iter_mut()) {
        *position += *velocity;
    }
}

/// `simple_iter`: `position += velocity` over two `Vec`s.
pub fn simple_iter() -> Box<dyn Case> {
    let state = SimpleIter {
        velocities: vec![Vec3::X; SIMPLE_N],
        positions: vec![Vec3::X; SIMPLE_N],
    };
    case(state, simple_iter_run, |s| {
        let before = s.positions.clone();
        simple_iter_run(s);
        assert_eq!(before.len(), SIMPLE_N);
        assert!(before
            .iter()
            .zip(&s.positions)
            .all(|(b, a)| *a == *b + Vec3::X));
    })
}

/// The floor of `simple_iter_each`: the same loop as `simple_iter`'s.
pub fn simple_iter_each() -> Box<dyn Case> {
    simple_iter()
}

/// 26 "archetypes" of 20 values each.
fn frag_run(tables: &mut [Vec<f32>]) {
    for table in tables.iter_mut() {
        for data in table.iter_mut() {
            *data *= 2.0;
        }
    }
}

/// `frag_iter`: `data *= 2` over 26 `Vec`s of 20 values.
pub fn frag_iter() -> Box<dyn Case> {
    let tables = vec![vec![1.0f32; FRAG_PER_TYPE]; 26];
    case(
        tables,
        |t| frag_run(t),
        |t| {
            t.iter_mut().flatten().for_each(|d| *d = 1.0);
            frag_run(t);
            assert_eq!(t.iter().flatten().count(), 26 * FRAG_PER_TYPE);
            assert!(t.iter().flatten().all(|&d| d == 2.0));
        },
    )
}

/// The floor of `frag_iter_each`: the same loop as `frag_iter`'s.
pub fn frag_iter_each() -> Box<dyn Case> {
    frag_iter()
}

struct Heavy {
    positions: Vec<Vec3>,
    transforms: Vec<Mat4>,
}

fn heavy_seq(s: &mut Heavy) {
    for (pos, mat) in s.positions.iter_mut().zip(s.transforms.iter_mut()) {
        heavy_work(pos, mat);
    }
}

fn heavy_par(s: &mut Heavy) {
    s.positions
        .par_iter_mut()
        .zip(s.transforms.par_iter_mut())
        .for_each(|(pos, mat)| heavy_work(pos, mat));
}

/// The `heavy_compute` data, timed with `run` and checked to apply
/// [`heavy_work`] to every pair once per run.
fn heavy_case(run: impl Fn(&mut Heavy) + Copy + 'static) -> Box<dyn Case> {
    let state = Heavy {
        positions: vec![Vec3::X; HEAVY_N],
        transforms: vec![Mat4::from_rotation_x(1.2); HEAVY_N],
    };
    case(state, run, move |s| {
        s.positions.iter_mut().for_each(|p| *p = Vec3::Y);
        run(s);
        let expected = Mat4::from_rotation_x(1.2).transform_vector3(Vec3::Y);
        assert!(s.positions.iter().all(|&p| approx_eq(p, expected)));
    })
}

/// `heavy_compute`: [`heavy_work`] on every pair, in a `for` loop.
pub fn heavy_compute() -> Box<dyn Case> {
    heavy_case(heavy_seq)
}

/// `heavy_compute_par`: [`heavy_work`] on every pair, with rayon.
pub fn heavy_compute_par() -> Box<dyn Case> {
    heavy_case(heavy_par)
}
