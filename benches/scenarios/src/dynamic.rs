//! `dynamic_iter`: `simple_iter`'s work through a query built at run
//! time (`QueryBuilder` over `FilteredEntityMut`), reading `Velocity` and
//! writing `Position` by component id, as a scripting layer would.
//! Compared with `simple_iter` on the same library, it is the cost of
//! run-time terms over typed ones.

/// Defines `pub fn dynamic_iter() -> Box<dyn Case>` on the ECS named
/// `$krate` (`ecs` or `bevy_ecs`), whose prelude, `Position`, `Velocity`
/// and `spawn_simple` are in scope.
#[macro_export]
macro_rules! dynamic_iter {
    ($krate:ident) => {
        struct DynamicIter {
            world: World,
            query: QueryState<$krate::world::FilteredEntityMut<'static, 'static>>,
            position: $krate::component::ComponentId,
            velocity: $krate::component::ComponentId,
        }

        fn dynamic_iter_for(s: &mut DynamicIter) {
            let (position, velocity) = (s.position, s.velocity);
            for mut entity in s.query.iter_mut(&mut s.world) {
                let v = entity.get_by_id(velocity).expect("velocity is read");
                // SAFETY: `velocity` is `Velocity`'s id.
                let v = unsafe { v.deref::<Velocity>() }.0;
                let mut p = entity.get_mut_by_id(position).expect("position is written");
                // SAFETY: `position` is `Position`'s id.
                unsafe { p.as_mut().deref_mut::<Position>() }.0 += v;
            }
        }

        /// `dynamic_iter`: a `for` loop over a built query, by id.
        pub fn dynamic_iter() -> Box<dyn $crate::Case> {
            let mut world = World::new();
            spawn_simple(&mut world, $crate::SIMPLE_N);
            let position = world.register_component::<Position>();
            let velocity = world.register_component::<Velocity>();
            let query = QueryBuilder::<$krate::world::FilteredEntityMut>::new(&mut world)
                .ref_id(velocity)
                .mut_id(position)
                .build();
            $crate::case(
                DynamicIter {
                    world,
                    query,
                    position,
                    velocity,
                },
                dynamic_iter_for,
                |s| {
                    let mut read = s.world.query::<&Position>();
                    let before: Vec<_> = read.iter(&s.world).map(|p| p.0).collect();
                    dynamic_iter_for(s);
                    let after: Vec<_> = read.iter(&s.world).map(|p| p.0).collect();
                    assert_eq!(before.len(), $crate::SIMPLE_N);
                    assert!(before
                        .iter()
                        .zip(&after)
                        .all(|(b, a)| *a == *b + glam::Vec3::X));
                },
            )
        }
    };
}

/// The scenario on `ecs`.
pub mod ours {
    use crate::ours::{spawn_simple, Position, Velocity};
    use ecs::prelude::*;

    crate::dynamic_iter!(ecs);

    struct DynamicContiguous {
        world: World,
        query: QueryState<ecs::world::FilteredEntityMut<'static, 'static>>,
        position: ecs::component::ComponentId,
        velocity: ecs::component::ComponentId,
    }

    fn dynamic_contiguous_for(s: &mut DynamicContiguous) {
        let (position, velocity) = (s.position, s.velocity);
        let tables = s
            .query
            .contiguous_iter_mut(&mut s.world)
            .expect("the built query walks tables");
        for table in tables {
            let velocities = table.get_by_id(velocity).expect("velocity is read");
            let mut positions = table.get_mut_by_id(position).expect("position is written");
            for row in 0..table.len() {
                // SAFETY: `velocity` is `Velocity`'s id, and `row` a row.
                let v = unsafe { velocities.get(row).unwrap_unchecked().deref::<Velocity>() }.0;
                // SAFETY: `position` is `Position`'s id, and `row` a row.
                unsafe {
                    positions
                        .get_mut(row)
                        .unwrap_unchecked()
                        .deref_mut::<Position>()
                }
                .0 += v;
            }
        }
    }

    /// `dynamic_contiguous`: `simple_iter`'s work through the same built
    /// query, table by table: each column resolved by id once per table,
    /// each value reached by row through untyped pointers, as a scripting
    /// layer's inner loop would.
    pub fn dynamic_contiguous() -> Box<dyn crate::Case> {
        let mut world = World::new();
        spawn_simple(&mut world, crate::SIMPLE_N);
        let position = world.register_component::<Position>();
        let velocity = world.register_component::<Velocity>();
        let query = QueryBuilder::<ecs::world::FilteredEntityMut>::new(&mut world)
            .ref_id(velocity)
            .mut_id(position)
            .build();
        crate::case(
            DynamicContiguous {
                world,
                query,
                position,
                velocity,
            },
            dynamic_contiguous_for,
            |s| {
                let mut read = s.world.query::<&Position>();
                let before: Vec<_> = read.iter(&s.world).map(|p| p.0).collect();
                dynamic_contiguous_for(s);
                let after: Vec<_> = read.iter(&s.world).map(|p| p.0).collect();
                assert_eq!(before.len(), crate::SIMPLE_N);
                assert!(before
                    .iter()
                    .zip(&after)
                    .all(|(b, a)| *a == *b + glam::Vec3::X));
            },
        )
    }
}
