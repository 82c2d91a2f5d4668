//! By-id access through typed pointers: components and resources with no
//! Rust type, read and written through `Ptr`, `MutUntyped` and `OwningPtr`.

mod common;

use std::alloc::Layout;

use common::drop_log::DropLog;
use common::integrity::check_invariants;
use ecs::change_detection::MutUntyped;
use ecs::component::{ComponentDescriptor, StorageType};
use ecs::prelude::*;

use ecs::ptr::OwningPtr;
use ecs::world::error::EntityComponentError;

#[derive(Component, Debug, PartialEq)]
struct Marker(u32);

/// A value whose drop is recorded, stored as a dynamic component.
struct Tracked {
    id: u32,
    log: DropLog,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.log.record(self.id);
    }
}

/// # Safety
/// `ptr` is an owned `Tracked`.
unsafe fn drop_tracked(ptr: OwningPtr<'_>) {
    // SAFETY: the caller's contract.
    unsafe { ptr.drop_as::<Tracked>() }
}

fn register<T>(world: &mut World, name: &str, storage: StorageType, drop: bool) -> ComponentId {
    // SAFETY: the values written are `T`s (Send + Sync in these tests), and
    // the drop function, when given, drops a `Tracked`, the only `T` with
    // `drop` set.
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout(
            name.to_owned(),
            storage,
            Layout::new::<T>(),
            drop.then_some(drop_tracked as for<'a> unsafe fn(OwningPtr<'a>)),
        )
    };
    world.register_component_with_descriptor(descriptor)
}

#[repr(align(128))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wide([u8; 3]);

#[test]
fn over_aligned_and_zero_sized_values_by_id() {
    for storage in [StorageType::Table, StorageType::SparseSet] {
        let mut world = World::new();
        let wide = register::<Wide>(&mut world, "wide", storage, false);
        let unit = register::<()>(&mut world, "unit", storage, false);
        let es: Vec<Entity> = (0..5u8)
            .map(|i| world.spawn(Marker(i.into())).id())
            .collect();
        for (i, &e) in es.iter().enumerate() {
            OwningPtr::make(Wide([i as u8; 3]), |w| {
                OwningPtr::make((), |u| {
                    // SAFETY: a `Wide` and a `()`, the ids' layouts, in order.
                    unsafe {
                        world
                            .entity_mut(e)
                            .insert_by_ids(&[wide, unit], [w, u].into_iter());
                    }
                })
            });
        }
        for (i, &e) in es.iter().enumerate() {
            let entity = world.entity(e);
            let ptr = entity.get_by_id(wide).unwrap();
            assert_eq!(ptr.as_ptr() as usize % 128, 0);
            // SAFETY: the component's values are `Wide`.
            assert_eq!(unsafe { *ptr.deref::<Wide>() }, Wide([i as u8; 3]));
            assert!(entity.get_by_id(unit).is_ok());
            assert_eq!(entity.get::<Marker>(), Some(&Marker(i as u32)));
        }
        check_invariants(&world);
    }
}

#[test]
fn missing_and_foreign_ids_are_errors() {
    let mut world = World::new();
    let id = register::<u32>(&mut world, "u32", StorageType::Table, false);
    let e = world.spawn(Marker(1)).id();
    assert_eq!(
        world.entity(e).get_by_id(id).unwrap_err(),
        EntityComponentError::MissingComponent(id)
    );
    let foreign = ComponentId::new(10_000);
    assert!(world.entity(e).get_by_id(foreign).is_err());
    assert!(world.entity_mut(e).get_mut_by_id(foreign).is_err());
    assert!(world.get_resource_by_id(foreign).is_none());
    assert!(world.get_resource_mut_by_id(foreign).is_none());
    assert!(!world.remove_resource_by_id(foreign));
}

#[test]
fn get_mut_by_id_detects_changes() {
    let mut world = World::new();
    let id = register::<u64>(&mut world, "counter", StorageType::SparseSet, false);
    let e = world.spawn(Marker(0)).id();
    OwningPtr::make(5u64, |value| {
        // SAFETY: a `u64`, the component's layout.
        unsafe { world.entity_mut(e).insert_by_id(id, value) };
    });
    world.clear_trackers();
    let mut entity = world.entity_mut(e);
    let mut value: MutUntyped = entity.get_mut_by_id(id).unwrap();
    assert!(!value.is_changed());
    // Reading does not mark it changed.
    // SAFETY: a `u64`.
    assert_eq!(unsafe { *value.as_ref().deref::<u64>() }, 5);
    assert!(!value.is_changed());
    // SAFETY: a `u64`.
    let mut typed = unsafe { value.reborrow().with_type::<u64>() };
    *typed += 1;
    assert!(typed.is_changed());
    assert!(value.is_changed());
    // SAFETY: a `u64`.
    assert_eq!(unsafe { *entity.get_by_id(id).unwrap().deref::<u64>() }, 6);
}

#[test]
fn dynamic_values_with_drop_are_dropped_once() {
    let log = DropLog::default();
    let mut world = World::new();
    let id = register::<Tracked>(&mut world, "tracked", StorageType::Table, true);
    let e = world.spawn(Marker(0)).id();
    for n in 0..3 {
        OwningPtr::make(
            Tracked {
                id: n,
                log: log.clone(),
            },
            |value| {
                // SAFETY: a `Tracked`, the component's type.
                unsafe { world.entity_mut(e).insert_by_id(id, value) };
            },
        );
    }
    log.assert_dropped(&[0, 1]);
    // As a resource too.
    OwningPtr::make(
        Tracked {
            id: 7,
            log: log.clone(),
        },
        |value| {
            // SAFETY: a `Tracked`.
            unsafe { world.insert_resource_by_id(id, value) };
        },
    );
    assert_eq!(
        // SAFETY: a `Tracked`.
        unsafe { world.get_resource_by_id(id).unwrap().deref::<Tracked>() }.id,
        7
    );
    let mut res = world.get_resource_mut_by_id(id).unwrap();
    // SAFETY: a `Tracked`.
    unsafe { res.as_mut().deref_mut::<Tracked>() }.id = 8;
    assert!(world.remove_resource_by_id(id));
    log.assert_dropped(&[0, 1, 8]);
    drop(world);
    log.assert_dropped(&[0, 1, 8, 2]);
    log.assert_no_double_drop();
}

#[derive(Component, Debug, PartialEq)]
struct Speed(u32);

#[derive(Component)]
#[component(storage = "SparseSet")]
struct Sleeping;

#[test]
fn entity_handles_as_query_data() {
    let mut world = World::new();
    world.spawn((Marker(1), Speed(2)));
    world.spawn(Marker(3));
    let mut read = world.query::<EntityRef>();
    let mut sum: u32 = read
        .iter(&world)
        .filter_map(|e| e.get::<Marker>())
        .map(|m| m.0)
        .sum();
    assert_eq!(sum, 4);
    let mut write = world.query::<EntityMut>();
    for mut e in write.iter_mut(&mut world) {
        e.get_mut::<Marker>().unwrap().0 += 10;
    }
    sum = read
        .iter(&world)
        .filter_map(|e| e.get::<Marker>())
        .map(|m| m.0)
        .sum();
    assert_eq!(sum, 24);
}

#[test]
#[should_panic(expected = "EntityMut")]
fn entity_mut_beside_a_read_is_refused() {
    let mut world = World::new();
    world.query::<(&Marker, EntityMut)>();
}

#[test]
fn builder_filters_and_filtered_access() {
    let mut world = World::new();
    let a = world.spawn((Marker(1), Speed(1))).id();
    let b = world.spawn((Marker(2), Speed(2), Sleeping)).id();
    let c = world.spawn(Marker(3)).id();
    let marker = world.register_component::<Marker>();
    let speed = world.register_component::<Speed>();

    let mut awake = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .ref_id(marker)
        .mut_id(speed)
        .without::<Sleeping>()
        .build();
    let mut seen = Vec::new();
    for mut e in awake.iter_mut(&mut world) {
        seen.push(e.id());
        assert!(e.get::<Marker>().is_some());
        assert!(e.get_mut::<Marker>().is_none(), "marker is read-only here");
        e.get_mut::<Speed>().unwrap().0 += 100;
        assert!(e.get_by_id(speed).is_some());
    }
    assert_eq!(seen, [a]);
    assert_eq!(world.get::<Speed>(a), Some(&Speed(101)));
    assert_eq!(world.get::<Speed>(b), Some(&Speed(2)));

    // `or`: entities with Speed or Sleeping; `optional` reads without requiring.
    let mut either = QueryBuilder::<FilteredEntityRef>::new(&mut world)
        .or(|b| {
            b.with::<Speed>();
            b.with::<Sleeping>();
        })
        .optional(|b| {
            b.ref_id(marker);
        })
        .build();
    let mut ids: Vec<Entity> = either.iter(&world).map(|e| e.id()).collect();
    ids.sort();
    assert_eq!(ids, [a, b]);
    assert!(either.iter(&world).all(|e| e.get::<Marker>().is_some()));
    assert!(either.iter(&world).all(|e| e.get::<Speed>().is_none()));

    // The state stays cached: a new archetype is picked up.
    let d = world.spawn((Marker(4), Speed(4), Sleeping)).id();
    assert_eq!(either.iter(&world).count(), 3);
    let _ = (c, d);
}

#[test]
fn typed_data_with_run_time_filters() {
    let mut world = World::new();
    world.spawn((Marker(1), Speed(1)));
    world.spawn(Marker(2));
    let speed = world.register_component::<Speed>();
    let mut query = QueryBuilder::<&Marker>::new(&mut world)
        .without_id(speed)
        .build();
    assert_eq!(query.iter(&world).map(|m| m.0).collect::<Vec<_>>(), [2]);
}

#[test]
#[should_panic(expected = "Marker")]
fn conflicting_run_time_terms_name_the_component() {
    let mut world = World::new();
    let marker = world.register_component::<Marker>();
    QueryBuilder::<&Marker>::new(&mut world)
        .mut_id(marker)
        .build();
}

#[test]
fn filtered_handle_in_a_tuple_gets_only_the_run_time_terms() {
    let mut world = World::new();
    let e = world.spawn((Marker(1), Speed(2))).id();
    let speed = world.register_component::<Speed>();
    let mut query = QueryBuilder::<(&mut Marker, FilteredEntityMut)>::new(&mut world)
        .mut_id(speed)
        .build();
    let (mut marker, mut entity) = query.single_mut(&mut world).unwrap();
    assert_eq!(entity.id(), e);
    marker.0 += 1;
    assert!(
        entity.get::<Marker>().is_none(),
        "the typed term owns Marker"
    );
    entity.get_mut::<Speed>().unwrap().0 += 1;
    assert_eq!(world.get::<Speed>(e), Some(&Speed(3)));
    assert_eq!(world.get::<Marker>(e), Some(&Marker(2)));
}

#[derive(Component, Debug, PartialEq)]
struct Pos(u32);
#[derive(Component, Debug, PartialEq)]
struct Vel(u32);
#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Tag(u32);

#[test]
fn exclusive_sets_match_exactly_those_components() {
    use ecs::world::FilteredEntityRef;
    use std::collections::BTreeSet;
    let mut world = World::new();
    let exact = world.spawn((Pos(1), Vel(1))).id();
    // Shares the (Pos, Vel) table but has a sparse component more.
    let tagged = world.spawn((Pos(2), Vel(2), Tag(2))).id();
    let fewer = world.spawn(Pos(3)).id();
    let more = world.spawn((Pos(4), Vel(4), Marker(4))).id();
    let exact2 = world.spawn((Vel(5), Pos(5))).id();
    let matched = |world: &mut World, query: &mut QueryState<Entity>| -> BTreeSet<Entity> {
        query.iter(world).collect()
    };

    let mut by_type = QueryBuilder::<Entity>::new(&mut world)
        .exclusive::<(Pos, Vel)>()
        .build();
    assert_eq!(
        matched(&mut world, &mut by_type),
        BTreeSet::from([exact, exact2])
    );
    assert_eq!(by_type.iter(&world).size_hint(), (2, Some(2)));
    // New archetypes are matched as they appear, and only exact ones.
    let later = world.spawn((Pos(6), Vel(6))).id();
    world.spawn((Pos(7), Vel(7), Tag(7)));
    assert_eq!(
        matched(&mut world, &mut by_type),
        BTreeSet::from([exact, exact2, later])
    );

    // By id, with a sparse-set component in the set and filtered data.
    let ids = [
        world.register_component::<Pos>(),
        world.register_component::<Vel>(),
        world.register_component::<Tag>(),
    ];
    let mut with_tag = QueryBuilder::<FilteredEntityRef>::new(&mut world)
        .exclusive_ids(&ids)
        .ref_id(ids[0])
        .build();
    let seen: Vec<(Entity, u32)> = with_tag
        .iter(&world)
        .map(|e| (e.id(), e.get::<Pos>().unwrap().0))
        .collect();
    assert_eq!(seen.len(), 2);
    assert!(seen.contains(&(tagged, 2)));

    // Other terms still apply, and `and` groups carry the set.
    let mut none = QueryBuilder::<Entity>::new(&mut world)
        .and(|b| {
            b.exclusive::<(Pos, Vel)>();
        })
        .without::<Pos>()
        .build();
    assert_eq!(none.iter(&world).count(), 0);
    let mut single = QueryBuilder::<Entity>::new(&mut world)
        .exclusive::<Pos>()
        .build();
    assert_eq!(matched(&mut world, &mut single), BTreeSet::from([fewer]));
    let _ = more;

    // Written through a typed dense query: walks only the exact rows.
    let mut write = QueryBuilder::<&mut Pos>::new(&mut world)
        .exclusive::<(Pos, Vel)>()
        .build();
    for mut p in write.iter_mut(&mut world) {
        p.0 += 100;
    }
    let mut all = world.query::<(Entity, &Pos)>();
    for (e, p) in all.iter(&world) {
        let exact_match = [exact, exact2, later].contains(&e);
        assert_eq!(p.0 >= 100, exact_match, "{e:?}");
    }
}

#[test]
#[should_panic(expected = "an exclusive set cannot be one branch of `or`")]
fn exclusive_inside_or_panics() {
    let mut world = World::new();
    QueryBuilder::<Entity>::new(&mut world)
        .or(|b| {
            b.exclusive::<Pos>();
        })
        .build();
}

#[test]
#[should_panic(expected = "already has an exclusive set")]
fn two_exclusive_sets_panic() {
    let mut world = World::new();
    QueryBuilder::<Entity>::new(&mut world)
        .exclusive::<Pos>()
        .exclusive::<Vel>()
        .build();
}

#[test]
fn a_built_query_reads_and_writes_an_entity_of_many_components() {
    // More table components than a view keeps slots for: the rest are
    // found through the entity, with the same answers.
    let mut world = World::new();
    let ids: Vec<ComponentId> = (0..300)
        .map(|i| register::<u32>(&mut world, &format!("c{i}"), StorageType::Table, false))
        .collect();
    let e = world.spawn(Marker(0)).id();
    let other = world.spawn(Marker(1)).id();
    for (entity, base) in [(e, 0), (other, 1000)] {
        let mut values: Vec<u32> = (0..300).map(|i| base + i).collect();
        let ptrs = values
            .iter_mut()
            // SAFETY: each pointer is a `u32` the insert takes (a copy: the
            // vector's value is not used again).
            .map(|value| unsafe { OwningPtr::new(std::ptr::NonNull::from(value).cast()) });
        // SAFETY: one `u32`, the components' layout, per id, in order.
        unsafe { world.entity_mut(entity).insert_by_ids(&ids, ptrs) };
    }
    let mut builder = QueryBuilder::<ecs::world::FilteredEntityMut>::new(&mut world);
    for &id in &ids[..150] {
        builder.ref_id(id);
    }
    for &id in &ids[150..] {
        builder.mut_id(id);
    }
    let mut query = builder.build();
    for mut entity in query.iter_mut(&mut world) {
        let base = if entity.id() == e { 0 } else { 1000 };
        for (i, &id) in ids.iter().enumerate() {
            let ptr = entity.get_by_id(id).unwrap();
            // SAFETY: the values are `u32`s.
            assert_eq!(unsafe { *ptr.deref::<u32>() }, base + i as u32);
            let writable = entity.get_mut_by_id(id);
            assert_eq!(writable.is_some(), i >= 150, "component {i}");
            if let Some(mut value) = writable {
                // SAFETY: the values are `u32`s.
                *unsafe { value.as_mut().deref_mut::<u32>() } += 1;
            }
        }
    }
    let entity = world.entity(e);
    // SAFETY: the values are `u32`s.
    let read = |i: usize| unsafe { *entity.get_by_id(ids[i]).unwrap().deref::<u32>() };
    assert_eq!(read(0), 0);
    assert_eq!(read(149), 149);
    assert_eq!(read(150), 151);
    assert_eq!(read(299), 300);
    check_invariants(&world);
}
