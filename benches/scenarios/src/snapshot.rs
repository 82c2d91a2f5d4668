//! `snapshot_restore`: a world snapshot taken and restored, on `ecs` and
//! on the floor (the same component bytes cloned out of four `Vec`s and
//! copied back). `snapshot_ring`: the same into a snapshot kept from the
//! round before (`World::snapshot_into`), as a rollback that saves every
//! frame into a ring does; its floor copies into kept `Vec`s.

use glam::{Mat4, Vec3};

use crate::case::{case, Case};
use crate::ours::{spawn_simple, Position, Rotation, Transform, Velocity};
use ecs::prelude::*;

/// Entities in the world snapshotted.
pub const SNAPSHOT_N: usize = 100_000;

/// 100,000 entities × (Transform, Position, Rotation, Velocity), all
/// opted into snapshots as `Copy`.
fn opted_in_world() -> World {
    let mut world = World::new();
    world.register_snapshot_copy::<Transform>();
    world.register_snapshot_copy::<Position>();
    world.register_snapshot_copy::<Rotation>();
    world.register_snapshot_copy::<Velocity>();
    spawn_simple(&mut world, SNAPSHOT_N);
    world
}

/// `snapshot_restore` on `ecs`: `snapshot` then `restore` of 100,000
/// entities × (Transform, Position, Rotation, Velocity), all opted in.
pub fn ours() -> Box<dyn Case> {
    let world = opted_in_world();
    case(
        world,
        |world| {
            let snapshot = world.snapshot();
            world.restore(&snapshot).unwrap();
        },
        |world| {
            let snapshot = world.snapshot();
            let mut query = world.query::<(Entity, &mut Position)>();
            let moved = query.iter_mut(world).map(|(_, mut p)| p.0.y = 7.0).count();
            assert_eq!(moved, SNAPSHOT_N);
            world.restore(&snapshot).unwrap();
            let mut query = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
            assert_eq!(query.iter(world).count(), SNAPSHOT_N);
            assert!(query.iter(world).all(|(_, p, _, _)| p.0 == Vec3::X));
        },
    )
}

/// The floor's world: four columns of the same values.
pub struct Columns {
    transforms: Vec<Mat4>,
    positions: Vec<Vec3>,
    rotations: Vec<Vec3>,
    velocities: Vec<Vec3>,
}

/// `snapshot_restore` on the floor: each column cloned, then copied back.
pub fn floor() -> Box<dyn Case> {
    let columns = Columns {
        transforms: vec![Mat4::from_scale(Vec3::ONE); SNAPSHOT_N],
        positions: vec![Vec3::X; SNAPSHOT_N],
        rotations: vec![Vec3::X; SNAPSHOT_N],
        velocities: vec![Vec3::X; SNAPSHOT_N],
    };
    case(columns, snapshot_and_restore, |columns| {
        snapshot_and_restore(columns);
        assert_eq!(columns.positions.len(), SNAPSHOT_N);
        assert!(columns.positions.iter().all(|p| *p == Vec3::X));
    })
}

fn snapshot_and_restore(columns: &mut Columns) {
    let saved = (
        columns.transforms.clone(),
        columns.positions.clone(),
        columns.rotations.clone(),
        columns.velocities.clone(),
    );
    let saved = std::hint::black_box(saved);
    columns.transforms.copy_from_slice(&saved.0);
    columns.positions.copy_from_slice(&saved.1);
    columns.rotations.copy_from_slice(&saved.2);
    columns.velocities.copy_from_slice(&saved.3);
}

/// `snapshot_ring` on `ecs`: `snapshot_into` a kept snapshot, then
/// `restore` from it.
pub fn ours_ring() -> Box<dyn Case> {
    let mut world = opted_in_world();
    let snapshot = world.snapshot();
    case(
        (world, snapshot),
        |(world, snapshot)| {
            world.snapshot_into(snapshot);
            world.restore(snapshot).unwrap();
        },
        |(world, snapshot)| {
            world.snapshot_into(snapshot);
            let mut query = world.query::<&mut Position>();
            let moved = query.iter_mut(world).map(|mut p| p.0.y = 7.0).count();
            assert_eq!(moved, SNAPSHOT_N);
            world.restore(snapshot).unwrap();
            let mut query = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
            assert_eq!(query.iter(world).count(), SNAPSHOT_N);
            assert!(query.iter(world).all(|(_, p, _, _)| p.0 == Vec3::X));
        },
    )
}

/// `snapshot_ring` on the floor: each column copied into a kept copy,
/// then copied back.
pub fn floor_ring() -> Box<dyn Case> {
    let columns = Columns {
        transforms: vec![Mat4::from_scale(Vec3::ONE); SNAPSHOT_N],
        positions: vec![Vec3::X; SNAPSHOT_N],
        rotations: vec![Vec3::X; SNAPSHOT_N],
        velocities: vec![Vec3::X; SNAPSHOT_N],
    };
    let kept = Columns {
        transforms: columns.transforms.clone(),
        positions: columns.positions.clone(),
        rotations: columns.rotations.clone(),
        velocities: columns.velocities.clone(),
    };
    case((columns, kept), copy_and_restore, |state| {
        copy_and_restore(state);
        assert_eq!(state.0.positions.len(), SNAPSHOT_N);
        assert!(state.0.positions.iter().all(|p| *p == Vec3::X));
    })
}

fn copy_and_restore((columns, kept): &mut (Columns, Columns)) {
    kept.transforms.copy_from_slice(&columns.transforms);
    kept.positions.copy_from_slice(&columns.positions);
    kept.rotations.copy_from_slice(&columns.rotations);
    kept.velocities.copy_from_slice(&columns.velocities);
    let kept = std::hint::black_box(&*kept);
    columns.transforms.copy_from_slice(&kept.transforms);
    columns.positions.copy_from_slice(&kept.positions);
    columns.rotations.copy_from_slice(&kept.rotations);
    columns.velocities.copy_from_slice(&kept.velocities);
}
