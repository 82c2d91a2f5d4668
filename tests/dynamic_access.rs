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

// ---- table walks and contiguous columns of built queries ------------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Pace(f32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Distance(f32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "SparseSet")]
struct Boosted(u8);

#[derive(Component)]
struct Flag;

/// Entities over several tables, some sharing a table through a sparse
/// component: each with `Distance(0)`, most with `Pace(i)`.
fn spread(world: &mut World) -> Vec<Entity> {
    (0..60u32)
        .map(|i| {
            let mut e = world.spawn(Distance(0.0));
            if i % 5 != 0 {
                e.insert(Pace(i as f32));
            }
            if i % 3 == 0 {
                e.insert(Flag);
            }
            if i % 4 == 0 {
                e.insert(Boosted(i as u8));
            }
            e.id()
        })
        .collect()
}

#[test]
fn a_built_query_of_table_components_walks_tables_and_yields_its_columns() {
    let mut world = World::new();
    let entities = spread(&mut world);
    let speed = world.register_component::<Pace>();
    let distance = world.register_component::<Distance>();
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .ref_id(speed)
        .mut_id(distance)
        .build();
    // Per entity, the table walk visits each matched entity once.
    let mut seen: Vec<Entity> = query.iter_mut(&mut world).map(|e| e.id()).collect();
    seen.sort();
    let mut expected: Vec<Entity> = entities
        .iter()
        .copied()
        .filter(|&e| world.get::<Pace>(e).is_some())
        .collect();
    expected.sort();
    assert_eq!(seen, expected);

    // Table by table: every second row written, through the pointers.
    world.clear_trackers();
    let mut walked = Vec::new();
    for table in query.contiguous_iter_mut(&mut world).unwrap() {
        let speeds = table.get_by_id(speed).unwrap();
        let mut distances = table.get_mut_by_id(distance).unwrap();
        assert_eq!(speeds.len(), table.len());
        assert_eq!(distances.len(), table.len());
        assert!(speeds.get(table.len()).is_none());
        for (row, &e) in table.entities().iter().enumerate() {
            walked.push(e);
            if row % 2 == 0 {
                // SAFETY: the ids are `Pace`'s and `Distance`'s.
                unsafe {
                    let s = speeds.get(row).unwrap().deref::<Pace>().0;
                    distances.get_mut(row).unwrap().deref_mut::<Distance>().0 = s + 0.5;
                }
            }
        }
    }
    walked.sort();
    assert_eq!(walked, expected);
    check_invariants(&world);
    // Exactly the written rows read as changed.
    let changed: Vec<Entity> = {
        let mut q = world.query_filtered::<Entity, Changed<Distance>>();
        let mut v: Vec<Entity> = q.iter(&world).collect();
        v.sort();
        v
    };
    let written: Vec<Entity> = expected
        .iter()
        .copied()
        .filter(|&e| world.get::<Distance>(e).unwrap().0 != 0.0)
        .collect();
    assert!(!written.is_empty() && written.len() < expected.len());
    assert_eq!(changed, written);
    for &e in &written {
        assert_eq!(
            world.get::<Distance>(e).unwrap().0,
            world.get::<Pace>(e).unwrap().0 + 0.5
        );
    }
}

#[test]
fn a_built_query_with_a_sparse_filter_walks_archetypes() {
    let mut world = World::new();
    let entities = spread(&mut world);
    let distance = world.register_component::<Distance>();
    let boosted = world.register_component::<Boosted>();
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(distance)
        .with_id(boosted)
        .build();
    assert!(query.contiguous_iter_mut(&mut world).is_err());
    let mut seen: Vec<Entity> = query.iter_mut(&mut world).map(|e| e.id()).collect();
    seen.sort();
    let expected: Vec<Entity> = entities
        .iter()
        .copied()
        .filter(|&e| world.get::<Boosted>(e).is_some())
        .collect();
    assert_eq!(seen, expected);
    // Typed data with a run-time sparse filter walks archetypes too.
    let mut typed = QueryBuilder::<&Distance>::new(&mut world)
        .with_id(boosted)
        .build();
    assert_eq!(typed.iter(&world).count(), expected.len());
    let mut typed_without = QueryBuilder::<&Distance>::new(&mut world)
        .without_id(boosted)
        .build();
    assert_eq!(
        typed_without.iter(&world).count(),
        entities.len() - expected.len()
    );
}

#[test]
fn contiguous_columns_are_handed_out_as_the_access_allows() {
    let mut world = World::new();
    spread(&mut world);
    let speed = world.register_component::<Pace>();
    let distance = world.register_component::<Distance>();
    let flag = world.register_component::<Flag>();
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .ref_id(speed)
        .mut_id(distance)
        .build();
    let mut tables = 0;
    for table in query.contiguous_iter_mut(&mut world).unwrap() {
        tables += 1;
        // Not in the access.
        assert!(table.get_by_id(flag).is_none());
        assert!(table.get_mut_by_id(flag).is_none());
        // Read-only: shared as often as asked, never mutably.
        assert!(table.get_mut_by_id(speed).is_none());
        let (a, b) = (
            table.get_by_id(speed).unwrap(),
            table.get_by_id(speed).unwrap(),
        );
        assert_eq!(a.len(), b.len());
        // Written: shared or mutably, once mutably, never both.
        let shared = table.get_by_id(distance).unwrap();
        assert!(table.get_mut_by_id(distance).is_none());
        assert!(table.get_by_id(distance).is_some());
        assert_eq!(shared.len(), table.len());
    }
    assert!(tables > 1);
    for table in query.contiguous_iter_mut(&mut world).unwrap() {
        let mut column = table.get_mut_by_id(distance).unwrap();
        assert!(table.get_by_id(distance).is_none());
        assert!(table.get_mut_by_id(distance).is_none());
        // SAFETY: the id is `Distance`'s.
        unsafe { column.as_slice_mut::<Distance>() }.fill(Distance(2.0));
        assert!((0..column.len()).all(|row| column.is_changed(row)));
    }
    // Read-only iteration of the same query: every written column reads.
    let mut total = 0.0;
    for table in query.contiguous_iter(&world).unwrap() {
        // SAFETY: the id is `Distance`'s.
        total += unsafe { table.get_by_id(distance).unwrap().as_slice::<Distance>() }
            .iter()
            .map(|d| d.0)
            .sum::<f32>();
    }
    let matched = world.query::<(&Pace, &Distance)>().iter(&world).count();
    assert_eq!(total, 2.0 * matched as f32);
}

#[test]
fn contiguous_columns_of_zero_sized_and_over_aligned_run_time_components() {
    let mut world = World::new();
    let wide = register::<Wide>(&mut world, "Wide", StorageType::Table, false);
    let unit = register::<()>(&mut world, "Unit", StorageType::Table, false);
    for i in 0..9u8 {
        let mut e = world.spawn(Marker(u32::from(i)));
        let value = Wide([i, i, i]);
        // SAFETY: the pointers are a `Wide` and a `()`, of those ids.
        unsafe {
            OwningPtr::make(value, |ptr| {
                e.insert_by_id(wide, ptr);
            });
            OwningPtr::make((), |ptr| {
                e.insert_by_id(unit, ptr);
            });
        }
        if i % 2 == 0 {
            e.insert(Flag);
        }
    }
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(wide)
        .ref_id(unit)
        .build();
    let mut sum = 0u32;
    for table in query.contiguous_iter_mut(&mut world).unwrap() {
        let units = table.get_by_id(unit).unwrap();
        assert_eq!(units.item_layout().size(), 0);
        assert!(units.get(0).is_some());
        let mut wides = table.get_mut_by_id(wide).unwrap();
        assert_eq!(wides.item_layout().align(), 128);
        for row in 0..wides.len() {
            let ptr = wides.get_mut(row).unwrap();
            assert_eq!(ptr.as_ptr() as usize % 128, 0);
            // SAFETY: the id is `Wide`'s.
            let value = unsafe { ptr.deref_mut::<Wide>() };
            value.0[0] += 1;
            sum += u32::from(value.0[0]);
        }
    }
    assert_eq!(sum, (1..=9).sum());
    check_invariants(&world);
}

/// A dynamic component whose size (1) is not a multiple of its alignment
/// (4): its rows are a stride of 4 bytes apart.
fn padded_component(world: &mut World) -> ComponentId {
    // SAFETY: no drop function; the values written are `u8`s (Send + Sync).
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout(
            "padded",
            StorageType::Table,
            Layout::from_size_align(1, 4).unwrap(),
            None,
        )
    };
    world.register_component_with_descriptor(descriptor)
}

fn spawn_padded(world: &mut World, id: ComponentId, value: u8) -> Entity {
    let mut entity = world.spawn_empty();
    // SAFETY: a `u8` is a valid value of the 1-byte component `id`.
    OwningPtr::make(value, |ptr| unsafe {
        entity.insert_by_id(id, ptr);
    });
    entity.id()
}

/// Filtered handles reach each row of a padded layout at its stride, not
/// at its size: each entity reads and writes its own value.
#[test]
fn filtered_handles_step_rows_by_the_stride_of_a_padded_layout() {
    use ecs::world::{FilteredEntityMut, FilteredEntityRef};
    let mut world = World::new();
    let id = padded_component(&mut world);
    let entities: Vec<Entity> = (0..3)
        .map(|i| spawn_padded(&mut world, id, 10 + i))
        .collect();
    let value_of = |e: Entity| 10 + entities.iter().position(|&x| x == e).unwrap() as u8;

    let mut read = QueryBuilder::<FilteredEntityRef>::new(&mut world)
        .ref_id(id)
        .build();
    for item in read.iter(&world) {
        // SAFETY: the component's values are `u8`s.
        let got = unsafe { *item.get_by_id(id).unwrap().deref::<u8>() };
        assert_eq!(got, value_of(item.id()), "entity {:?}", item.id());
    }

    let mut write = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(id)
        .build();
    for mut item in write.iter_mut(&mut world) {
        let doubled = 2 * value_of(item.id());
        let mut value = item.get_mut_by_id(id).unwrap();
        // SAFETY: as above.
        unsafe { *value.as_mut().deref_mut::<u8>() = doubled };
    }
    for &e in &entities {
        // SAFETY: as above.
        let got = unsafe { *world.get_by_id(e, id).unwrap().deref::<u8>() };
        assert_eq!(got, 2 * value_of(e), "entity {e:?}");
    }
}

/// `EntityMut::get_mut_by_id_unchecked` holds two components' values
/// mutably at once through one handle; a component the entity lacks is an
/// error.
#[test]
fn get_mut_by_id_unchecked_holds_two_values_at_once() {
    #[derive(Component)]
    struct Other(u32);
    let mut world = World::new();
    let marker = world.register_component::<Marker>();
    let other = world.register_component::<Other>();
    let missing = world.register_component::<Tag>();
    let e = world.spawn((Marker(1), Other(2))).id();
    let mut query = world.query::<EntityMut>();
    let handle = query.get_mut(&mut world, e).unwrap();
    // SAFETY: `marker` and `other` are distinct components; nothing else
    // reaches them while the two values live.
    unsafe {
        let mut a = handle.get_mut_by_id_unchecked(marker).unwrap();
        let mut b = handle.get_mut_by_id_unchecked(other).unwrap();
        *a.as_mut().deref_mut::<Marker>() = Marker(10);
        b.as_mut().deref_mut::<Other>().0 = 20;
        assert!(handle.get_mut_by_id_unchecked(missing).is_err());
    }
    assert_eq!(world.get::<Marker>(e), Some(&Marker(10)));
    assert_eq!(world.get::<Other>(e).map(|o| o.0), Some(20));
}
