//! The scenarios' sizes and the work they share across libraries.

use glam::{Mat4, Vec3};

/// Asserts that every item of a query satisfies a predicate and that there
/// are `n` of them. Works on ours and on bevy_ecs, whose `World::query`,
/// `World::query_filtered` and `QueryState::iter` are spelled alike.
#[macro_export]
macro_rules! check_all {
    ($w:expr, $d:ty, filter $f:ty, $pat:pat => $pred:expr, $n:expr) => {{
        let mut q = $w.query_filtered::<$d, $f>();
        let mut count = 0usize;
        for $pat in q.iter($w) {
            assert!($pred);
            count += 1;
        }
        assert_eq!(count, $n);
    }};
    ($w:expr, $d:ty, $pat:pat => $pred:expr, $n:expr) => {{
        let mut q = $w.query::<$d>();
        let mut count = 0usize;
        for $pat in q.iter($w) {
            assert!($pred);
            count += 1;
        }
        assert_eq!(count, $n);
    }};
}

/// Entities in `simple_insert`, `simple_iter`, `spawn_despawn` and
/// `spawn_waves`.
pub const SIMPLE_N: usize = 10_000;
/// Entities per `spawn_batch` call in `spawn_waves`.
pub const WAVE: usize = 10;
/// Entities per marker type in `frag_iter` (26 types).
pub const FRAG_PER_TYPE: usize = 20;
/// Entities in `heavy_compute`.
pub const HEAVY_N: usize = 1_000;
/// Entities in `add_remove` and `sparse_add_remove`.
pub const ADD_REMOVE_N: usize = 10_000;
/// Entities per archetype in `schedule` (four archetypes).
pub const SCHEDULE_N: usize = 10_000;

/// The body of `heavy_compute`, shared by every library: invert the matrix
/// 100 times, then transform the position by it.
#[inline]
pub fn heavy_work(pos: &mut Vec3, mat: &mut Mat4) {
    for _ in 0..100 {
        *mat = mat.inverse();
    }
    *pos = mat.transform_vector3(*pos);
}

/// Whether `a` and `b` agree to within the rounding of `heavy_work`.
pub fn approx_eq(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-3
}
