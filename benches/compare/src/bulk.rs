//! `bulk_insert` and `bulk_remove` on bevy_ecs and hecs, which have no
//! query-level bulk change: bevy inserts with `World::insert_batch` and
//! removes entity by entity, hecs changes entity by entity. The
//! `*_loop` scenarios make every library change entity by entity.

use ecs_scenarios::bulk::{split_case, BULK_N};
use ecs_scenarios::Case;

/// The scenarios on bevy_ecs.
pub mod bevy {
    use super::*;
    use bevy_ecs::prelude::*;

    #[derive(Component, Clone, Copy)]
    struct A(f32);
    #[derive(Component, Clone, Copy)]
    struct B(f32);

    struct Bulk {
        world: World,
        entities: Vec<Entity>,
    }

    fn setup() -> Bulk {
        let mut world = World::new();
        let entities = world
            .spawn_batch((0..BULK_N).map(|i| A(i as f32)))
            .collect();
        Bulk { world, entities }
    }

    fn insert_batch(s: &mut Bulk) {
        s.world
            .insert_batch(s.entities.iter().map(|&e| (e, B(1.0))));
    }

    fn insert_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.entity_mut(e).insert(B(1.0));
        }
    }

    fn remove_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.entity_mut(e).remove::<B>();
        }
    }

    fn verify_inserted(s: &mut Bulk) {
        let index: std::collections::HashMap<Entity, usize> = s
            .entities
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i))
            .collect();
        let mut count = 0;
        for (e, a, b) in s.world.query::<(Entity, &A, &B)>().iter(&s.world) {
            assert_eq!(a.0, index[&e] as f32);
            assert_eq!(b.0, 1.0);
            count += 1;
        }
        assert_eq!(count, BULK_N);
    }

    fn verify_removed(s: &mut Bulk) {
        assert_eq!(s.world.query::<&B>().iter(&s.world).count(), 0);
        assert_eq!(s.world.query::<&A>().iter(&s.world).count(), BULK_N);
    }

    pub fn bulk_insert() -> Box<dyn Case> {
        split_case(setup(), remove_loop, insert_batch, verify_inserted)
    }

    pub fn bulk_insert_loop() -> Box<dyn Case> {
        split_case(setup(), remove_loop, insert_loop, verify_inserted)
    }

    pub fn bulk_remove() -> Box<dyn Case> {
        split_case(setup(), insert_batch, remove_loop, verify_removed)
    }
}

/// The scenarios on hecs.
pub mod hecs_lib {
    use super::*;
    use hecs::{Entity, World};

    #[derive(Clone, Copy)]
    struct A(f32);
    #[derive(Clone, Copy)]
    struct B(f32);

    struct Bulk {
        world: World,
        entities: Vec<Entity>,
    }

    fn setup() -> Bulk {
        let mut world = World::new();
        let entities = world
            .spawn_batch((0..BULK_N).map(|i| (A(i as f32),)))
            .collect();
        Bulk { world, entities }
    }

    fn insert_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.insert_one(e, B(1.0)).expect("spawned");
        }
    }

    fn remove_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.remove_one::<B>(e).expect("has B");
        }
    }

    fn verify_inserted(s: &mut Bulk) {
        let index: std::collections::HashMap<Entity, usize> = s
            .entities
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i))
            .collect();
        let mut count = 0;
        for (e, a, b) in s.world.query_mut::<(Entity, &A, &B)>() {
            assert_eq!(a.0, index[&e] as f32);
            assert_eq!(b.0, 1.0);
            count += 1;
        }
        assert_eq!(count, BULK_N);
    }

    fn verify_removed(s: &mut Bulk) {
        assert_eq!(s.world.query_mut::<&B>().into_iter().count(), 0);
        assert_eq!(s.world.query_mut::<&A>().into_iter().count(), BULK_N);
    }

    /// The first undo has nothing to remove.
    fn remove_if_present(s: &mut Bulk) {
        for &e in &s.entities {
            let _ = s.world.remove_one::<B>(e);
        }
    }

    pub fn bulk_insert() -> Box<dyn Case> {
        split_case(setup(), remove_if_present, insert_loop, verify_inserted)
    }

    pub fn bulk_remove() -> Box<dyn Case> {
        split_case(setup(), insert_loop, remove_loop, verify_removed)
    }
}
