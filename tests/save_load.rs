//! Save and load (`ecs::world::save`): round trips in the row and column
//! formats, id preservation and remapping, bad input and panics.
#![cfg(feature = "serde")]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use common::integrity::{check_invariants, integrity};

use ecs::entity::MapEntities;
use ecs::prelude::*;
use ecs::world::save::{LoadOptions, LoadedEntities, SaveList, SaveRegistry};
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Component, Serialize, Deserialize, Clone, Copy, Hash, Debug, PartialEq)]
struct Pos(i32, i32);

#[derive(Component, Serialize, Deserialize, Clone, Copy, Hash, Debug, PartialEq)]
struct Vel(i32, i32);

#[derive(Component, Serialize, Deserialize, Clone, Hash, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Name(String);

#[derive(Component, Serialize, Deserialize, Clone, Copy, Hash, Debug, PartialEq)]
struct Marker;

#[derive(Component, MapEntities, Serialize, Deserialize, Clone, Hash, Debug, PartialEq)]
struct Follows(#[entities] Entity);

#[derive(Resource, Serialize, Deserialize, Clone, Hash, Debug, PartialEq)]
struct Round(u32);

fn registry() -> SaveRegistry<impl SaveList> {
    SaveRegistry::new()
        .component_with_key::<Pos>("pos")
        .component::<Vel>()
        .component_with_key::<Name>("name")
        .component_with_key::<Marker>("marker")
        .mapped_component_with_key::<Follows>("follows")
        .resource_with_key::<Round>("round")
}

fn opt_in_checksum(world: &mut World) {
    world.register_snapshot_hashed::<Pos>();
    world.register_snapshot_hashed::<Vel>();
    world.register_snapshot_hashed::<Name>();
    world.register_snapshot_hashed::<Marker>();
    world.register_snapshot_hashed::<Follows>();
    world.register_resource_snapshot_hashed::<Round>();
}

/// A world with gaps in its ids, several archetypes, a sparse set, a ZST,
/// an entity with no saved component and entity references.
fn sample() -> (World, Vec<Entity>) {
    let mut world = World::new();
    opt_in_checksum(&mut world);
    let mut kept = Vec::new();
    for i in 0..20 {
        let e = world.spawn(Pos(i, -i)).id();
        match i % 4 {
            0 => {
                world.entity_mut(e).insert(Vel(1, i));
            }
            1 => {
                world.entity_mut(e).insert((Name(format!("n{i}")), Marker));
            }
            2 => {
                world.entity_mut(e).remove::<Pos>();
            }
            _ => {}
        }
        kept.push(e);
    }
    // Despawn some, and reuse an index, so generations differ.
    for e in kept.drain(5..8) {
        world.despawn(e);
    }
    kept.push(world.spawn(Marker).id());
    let (a, b) = (kept[0], kept[3]);
    world.entity_mut(a).insert(Follows(b));
    world.entity_mut(b).insert(Follows(a));
    world.insert_resource(Round(9));
    (world, kept)
}

#[derive(Clone, Copy, Debug)]
enum Format {
    Rows,
    Columns,
}

const FORMATS: [Format; 2] = [Format::Rows, Format::Columns];

fn save<L: SaveList>(registry: &SaveRegistry<L>, world: &World, format: Format) -> String {
    match format {
        Format::Rows => serde_json::to_string(&registry.rows(world)),
        Format::Columns => serde_json::to_string(&registry.columns(world)),
    }
    .unwrap()
}

fn load<L: SaveList>(
    registry: &SaveRegistry<L>,
    world: &mut World,
    text: &str,
    format: Format,
    options: LoadOptions,
) -> Result<LoadedEntities, serde_json::Error> {
    let mut input = serde_json::Deserializer::from_str(text);
    match format {
        Format::Rows => registry.load_rows_with(world, &mut input, options),
        Format::Columns => registry.load_columns_with(world, &mut input, options),
    }
}

fn component_names(world: &World, e: Entity) -> Vec<String> {
    let mut names: Vec<String> = world
        .entity(e)
        .archetype()
        .components()
        .map(|id| world.components().get_info(id).unwrap().name().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn round_trip_into_an_empty_world_keeps_ids_values_archetypes_and_checksum() {
    for format in FORMATS {
        let (world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        let mut loaded = World::new();
        opt_in_checksum(&mut loaded);
        let map = load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(loaded.entity_count(), world.entity_count(), "{format:?}");
        for &e in &kept {
            assert_eq!(map[&e], e, "{format:?}: ids are kept");
            assert!(loaded.contains_entity(e));
            assert_eq!(component_names(&loaded, e), component_names(&world, e));
            assert_eq!(loaded.get::<Pos>(e), world.get::<Pos>(e));
            assert_eq!(loaded.get::<Vel>(e), world.get::<Vel>(e));
            assert_eq!(loaded.get::<Name>(e), world.get::<Name>(e));
            assert_eq!(loaded.get::<Marker>(e), world.get::<Marker>(e));
            assert_eq!(loaded.get::<Follows>(e), world.get::<Follows>(e));
        }
        assert_eq!(loaded.resource::<Round>(), &Round(9));
        assert_eq!(loaded.checksum(), world.checksum(), "{format:?}");
        // The sparse set's storage type survives the trip.
        let name = loaded.component_id::<Name>().unwrap();
        let info = loaded.components().get_info(name).unwrap();
        assert_eq!(info.storage_type(), StorageType::SparseSet);
        // Later spawns never reuse a live id.
        let fresh: Vec<Entity> = (0..30).map(|_| loaded.spawn_empty().id()).collect();
        assert!(fresh.iter().all(|e| !kept.contains(e)), "{format:?}");
        assert_eq!(loaded.entity_count(), kept.len() + 30);
    }
}

#[test]
fn loading_into_a_world_with_entities_remaps_ids_and_references() {
    for format in FORMATS {
        let (world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        let mut target = World::new();
        let resident: Vec<Entity> = (0..40).map(|i| target.spawn(Pos(i, i)).id()).collect();
        let map = load(
            &registry,
            &mut target,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(map.len(), kept.len());
        assert_eq!(target.entity_count(), 40 + kept.len());
        for (i, &e) in resident.iter().enumerate() {
            assert_eq!(target.get::<Pos>(e), Some(&Pos(i as i32, i as i32)));
        }
        for &e in &kept {
            let new = map[&e];
            assert!(!resident.contains(&new), "{format:?}: a fresh id");
            assert_eq!(target.get::<Pos>(new), world.get::<Pos>(e));
            assert_eq!(target.get::<Name>(new), world.get::<Name>(e));
        }
        let (a, b) = (kept[0], kept[3]);
        assert_eq!(target.get::<Follows>(map[&a]), Some(&Follows(map[&b])));
        assert_eq!(target.get::<Follows>(map[&b]), Some(&Follows(map[&a])));
    }
}

#[test]
fn a_reference_to_an_entity_not_saved_becomes_a_dead_handle() {
    let registry = SaveRegistry::new().mapped_component_with_key::<Follows>("follows");
    let text = format!(
        r#"{{"resources":{{}},"entities":[[{},{{"follows":{}}}]]}}"#,
        Entity::from_raw(0).to_bits(),
        Entity::from_raw(7).to_bits()
    );
    let mut world = World::new();
    let resident: Vec<Entity> = (0..10).map(|_| world.spawn_empty().id()).collect();
    let map = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        LoadOptions::default(),
    )
    .unwrap();
    let target = world.get::<Follows>(map[&Entity::from_raw(0)]).unwrap().0;
    assert!(!world.contains_entity(target));
    assert!(!resident.contains(&target));
    for _ in 0..20 {
        assert_ne!(world.spawn_empty().id(), target);
    }
}

/// The saved form of `Entity::from_raw(index)`.
fn id(index: u32) -> u64 {
    Entity::from_raw(index).to_bits()
}

fn world_unchanged(world: &World, resident: &[Entity]) {
    assert_eq!(world.entity_count(), resident.len());
    for (i, &e) in resident.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i32, 0)));
    }
    assert!(world.get_resource::<Round>().is_none());
}

fn resident_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let resident = (0..3).map(|i| world.spawn(Pos(i, 0)).id()).collect();
    (world, resident)
}

#[test]
fn an_unknown_key_is_an_error_naming_it_or_skipped_on_request() {
    let (source, _) = sample();
    for format in FORMATS {
        let text = save(&registry(), &source, format);
        let smaller = SaveRegistry::new()
            .component_with_key::<Pos>("pos")
            .resource_with_key::<Round>("round");
        let (mut world, resident) = resident_world();
        let error = load(&smaller, &mut world, &text, format, LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("not registered"), "{format:?}: {error}");
        assert!(error.contains("`name`") || error.contains("Vel"), "{error}");
        world_unchanged(&world, &resident);
        let skip = LoadOptions::default().skip_unknown_keys(true);
        let map = load(&smaller, &mut world, &text, format, skip).unwrap();
        assert_eq!(world.entity_count(), resident.len() + map.len());
        assert!(world.query::<&Vel>().iter(&world).next().is_none());
    }
}

#[test]
fn truncated_input_is_an_error_naming_where_and_loads_nothing() {
    let (source, _) = sample();
    let registry = registry();
    for format in FORMATS {
        let text = save(&registry, &source, format);
        for cut in [text.len() / 3, text.len() / 2, text.len() - 3] {
            let (mut world, resident) = resident_world();
            let error = load(
                &registry,
                &mut world,
                &text[..cut],
                format,
                Default::default(),
            )
            .unwrap_err()
            .to_string();
            let place = match format {
                _ if text.find("\"allocator\"").is_some_and(|at| cut > at) => "allocator",
                Format::Rows => "entity #",
                Format::Columns => "archetype #",
            };
            assert!(error.contains(place), "{format:?} cut at {cut}: {error}");
            world_unchanged(&world, &resident);
        }
    }
}

#[test]
fn a_corrupt_value_is_an_error_naming_entity_and_component() {
    let registry = registry();
    let text = format!(
        r#"{{"resources":{{}},"entities":[[{a},{{"pos":[1,2]}}],[{b},{{"pos":"oops"}}]]}}"#,
        a = Entity::from_raw(0).to_bits(),
        b = Entity::from_raw(1).to_bits()
    );
    let (mut world, resident) = resident_world();
    let error = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("entity #1"), "{error}");
    assert!(error.contains("component `pos`"), "{error}");
    world_unchanged(&world, &resident);

    let text = format!(
        r#"{{"resources":{{}},"archetypes":[[[{},{}],["pos"],[[[1,2]]]]]}}"#,
        id(1),
        id(2)
    );
    let error = load(
        &registry,
        &mut world,
        &text,
        Format::Columns,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("archetype #0"), "{error}");
    assert!(error.contains("1 values for 2 entities"), "{error}");
    world_unchanged(&world, &resident);

    let text = format!(
        r#"{{"resources":{{}},"entities":[[{},{{"pos":[1,2],"pos":[3,4]}}]]}}"#,
        id(1)
    );
    let error = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("`pos` appears twice"), "{error}");

    let text = format!(
        r#"{{"resources":{{}},"entities":[[{a},{{}}],[{a},{{}}]]}}"#,
        a = id(1)
    );
    let error = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("saved twice"), "{error}");

    let text = r#"{"resources":{},"entities":[[0,{}]]}"#;
    let error = load(
        &registry,
        &mut world,
        text,
        Format::Rows,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("not an entity id"), "{error}");
    world_unchanged(&world, &resident);
}

static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Counts its live values; deserializing 13 panics.
#[derive(Component, Serialize, Debug)]
struct Fragile(u32);

impl<'de> Deserialize<'de> for Fragile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = u32::deserialize(deserializer)?;
        assert_ne!(value, 13, "Fragile refuses 13");
        LIVE.fetch_add(1, Ordering::SeqCst);
        Ok(Fragile(value))
    }
}

impl Drop for Fragile {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panicking_deserialize_leaves_the_world_as_it_was() {
    let registry = SaveRegistry::new()
        .component_with_key::<Pos>("pos")
        .component_with_key::<Fragile>("fragile");
    for format in FORMATS {
        let (a, b, c) = (id(1), id(2), id(3));
        let text = match format {
            Format::Rows => format!(
                r#"{{"resources":{{}},"entities":[[{a},{{"fragile":1}}],[{b},{{"fragile":13}}]]}}"#
            ),
            Format::Columns => format!(
                r#"{{"resources":{{}},"archetypes":[[[{a},{b},{c}],["fragile"],[[1,2,13]]]]}}"#
            ),
        };
        let (mut world, resident) = resident_world();
        let result = catch_unwind(AssertUnwindSafe(|| {
            load(&registry, &mut world, &text, format, Default::default())
        }));
        assert!(result.is_err(), "{format:?}: the panic reaches the caller");
        assert_eq!(
            LIVE.load(Ordering::SeqCst),
            0,
            "each value read is dropped once"
        );
        world_unchanged(&world, &resident);
        assert!(world.query::<&Fragile>().iter(&world).next().is_none());
    }
}

/// An empty world whose despawned entities had the saved ids gives the
/// loaded entities fresh ones: no old handle names a loaded entity, and
/// later spawns take none of their ids.
#[test]
fn ids_an_empty_world_retired_are_not_handed_out_again() {
    let (source, saved) = sample();
    let registry = registry();
    let text = save(&registry, &source, Format::Columns);
    let mut world = World::new();
    let old: Vec<Entity> = (0..50).map(|_| world.spawn_empty().id()).collect();
    for &e in &old {
        world.despawn(e);
    }
    let map = load(
        &registry,
        &mut world,
        &text,
        Format::Columns,
        Default::default(),
    )
    .unwrap();
    assert!(!map.ids_kept());
    let loaded: Vec<Entity> = saved.iter().map(|e| map[e]).collect();
    assert!(loaded
        .iter()
        .all(|e| world.contains_entity(*e) && !old.contains(e)));
    assert!(old.iter().all(|e| !world.contains_entity(*e)));
    let fresh: Vec<Entity> = (0..60).map(|_| world.spawn_empty().id()).collect();
    assert!(fresh
        .iter()
        .all(|e| !loaded.contains(e) && !old.contains(e)));
}

#[test]
#[should_panic(expected = "key `pos`")]
fn a_key_registered_twice_panics_naming_it() {
    let _ = SaveRegistry::new()
        .component_with_key::<Pos>("pos")
        .component_with_key::<Vel>("pos");
}

/// Its `MapEntities` panics.
#[derive(Component, Serialize, Deserialize, Debug)]
struct BadLink(Entity);

impl MapEntities for BadLink {
    fn map_entities<E: ecs::entity::EntityMapper>(&mut self, _mapper: &mut E) {
        panic!("BadLink refuses to be mapped");
    }
}

#[test]
fn a_panicking_map_entities_leaves_the_world_with_its_own_entities_only() {
    let registry = SaveRegistry::new()
        .component_with_key::<Pos>("pos")
        .mapped_component_with_key::<BadLink>("link");
    let mut source = World::new();
    let a = source.spawn(Pos(1, 1)).id();
    source.spawn((Pos(2, 2), BadLink(a)));
    for format in FORMATS {
        let text = save(&registry, &source, format);
        let (mut world, resident) = resident_world();
        let result = catch_unwind(AssertUnwindSafe(|| {
            load(&registry, &mut world, &text, format, Default::default())
        }));
        assert!(result.is_err(), "{format:?}: the panic reaches the caller");
        world_unchanged(&world, &resident);
        // The world still works: later spawns get ids of their own.
        let e = world.spawn(Pos(9, 9)).id();
        assert!(!resident.contains(&e));
    }
}

#[test]
fn a_fresh_world_gets_the_saved_allocator_so_later_spawns_get_the_same_ids() {
    for format in FORMATS {
        let (mut source, _) = sample();
        // More freed indices, so the free list has an order to keep.
        let extra: Vec<Entity> = (0..6).map(|i| source.spawn(Pos(i, i)).id()).collect();
        for &e in extra.iter().rev().step_by(2) {
            source.despawn(e);
        }
        let registry = registry();
        let text = save(&registry, &source, format);
        let mut loaded = World::new();
        load(&registry, &mut loaded, &text, format, Default::default()).unwrap();
        let next_source: Vec<Entity> = (0..10).map(|_| source.spawn(Marker).id()).collect();
        let next_loaded: Vec<Entity> = (0..10).map(|_| loaded.spawn(Marker).id()).collect();
        assert_eq!(next_loaded, next_source, "{format:?}");
        assert_eq!(loaded.entity_count(), source.entity_count());
    }
}

#[test]
fn an_allocator_that_does_not_fit_the_entities_is_an_error_and_loads_nothing() {
    let registry = registry();
    let live = Entity::from_raw(0).to_bits();
    let cases = [
        // The live entity's index is past the saved slots.
        (r#"[0,[]]"#, "past the 0 saved slots"),
        // Index 1 is neither free nor live.
        (r#"[2,[]]"#, "neither free"),
        // An index free twice.
        (r#"[3,[[1,1],[1,1]]]"#, "free twice"),
        // A free index with generation 0.
        (r#"[2,[[1,0]]]"#, "generation 0"),
        // A free index past the slots.
        (r#"[1,[[4,1]]]"#, "past the 1 saved slots"),
        // The live index is free too.
        (r#"[1,[[0,2]]]"#, "free or saved twice"),
        // A slot count far past the entries: found without an array that
        // size.
        (r#"[4000000000,[[2,1]]]"#, "index 1 is neither free"),
    ];
    for (allocator, expected) in cases {
        let text = format!(
            r#"{{"resources":{{}},"entities":[[{live},{{"pos":[1,2]}}]],"allocator":{allocator}}}"#
        );
        let mut world = World::new();
        let error = load(
            &registry,
            &mut world,
            &text,
            Format::Rows,
            Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("allocator") && error.contains(expected),
            "{error}"
        );
        assert_eq!(world.entity_count(), 0);
        assert_eq!(world.spawn_empty().id(), Entity::from_raw(0));
    }
}

// ---- archetype-at-once placement ----------------------------------------------------------

/// Asserts the world's own check and the test-side storage invariants.
#[track_caller]
fn consistent(world: &World) {
    integrity(world);
    check_invariants(world);
}

/// Every entity's component names and saved values, by id.
fn contents(world: &World, entities: &[Entity]) -> Vec<String> {
    entities
        .iter()
        .map(|&e| {
            format!(
                "{e:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                component_names(world, e),
                world.get::<Pos>(e),
                world.get::<Vel>(e),
                world.get::<Name>(e),
                world.get::<Marker>(e),
                world.get::<Follows>(e),
            )
        })
        .collect()
}

/// The entities `Added<C>` reports, in a system run once now.
fn added<C: Component>(world: &mut World) -> Vec<Entity> {
    let mut found = world
        .run_system_cached(|q: Query<Entity, Added<C>>| q.iter().collect::<Vec<_>>())
        .unwrap();
    found.sort();
    found
}

#[test]
fn loaded_entities_are_spawned_at_the_load() {
    for format in FORMATS {
        let (mut world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        // Fresh (a registered system would be an entity, and the load would
        // then remap the ids), at a later tick than a new world's.
        let mut loaded = World::new();
        loaded.increment_change_tick();
        loaded.increment_change_tick();
        let at = loaded.change_tick();
        load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        for &e in &kept {
            assert_eq!(loaded.entity(e).spawn_tick(), at, "{format:?}: {e:?}");
        }
        // The ids kept their allocator: the next spawn reuses a freed index
        // at its next generation, spawned now, not at the load.
        loaded.increment_change_tick();
        let fresh = loaded.spawn_empty().id();
        assert!(!kept.contains(&fresh));
        assert_eq!(fresh, world.spawn_empty().id(), "{format:?}");
        assert_eq!(loaded.entity(fresh).spawn_tick(), loaded.change_tick());
    }
}

#[test]
fn a_load_without_hooks_makes_only_the_final_archetypes() {
    for format in FORMATS {
        let (world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        let mut loaded = World::new();
        load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        consistent(&loaded);
        assert_eq!(
            contents(&loaded, &kept),
            contents(&world, &kept),
            "{format:?}"
        );
        // One archetype per component set the entities have, and the empty
        // one: no archetype of a part of a set, as component-by-component
        // inserts would leave.
        let mut sets: Vec<Vec<String>> =
            kept.iter().map(|&e| component_names(&loaded, e)).collect();
        sets.sort();
        sets.dedup();
        let with_entities = loaded.archetypes().iter().filter(|a| !a.is_empty()).count();
        assert_eq!(with_entities, sets.len(), "{format:?}");
        assert_eq!(
            loaded.archetypes().len(),
            sets.len() + usize::from(!sets.contains(&Vec::new())),
            "{format:?}: only the final archetypes (and the empty one)"
        );
    }
}

#[test]
fn a_load_with_an_observer_inserts_component_by_component_to_the_same_world() {
    for format in FORMATS {
        let (world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        // An observer of a component the load does not touch leaves it
        // placing archetypes whole (and gives both worlds the same ids).
        let mut placed = World::new();
        placed.add_observer(|_: On<Add<Mass>>| {});
        let map = load(
            &registry,
            &mut placed,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        // An `on_add` observer of a loaded component makes the load insert
        // component by component, running it for each entity with the
        // component once it is there.
        let mut inserted = World::new();
        inserted.init_resource::<Seen>();
        inserted.add_observer(|add: On<Add<Marker>>, mut seen: ResMut<Seen>| {
            seen.0.push(add.entity);
        });
        let map_inserted = load(
            &registry,
            &mut inserted,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(map, map_inserted, "{format:?}");
        consistent(&placed);
        consistent(&inserted);
        let ids: Vec<Entity> = kept.iter().map(|e| map[e]).collect();
        assert_eq!(
            contents(&placed, &ids),
            contents(&inserted, &ids),
            "{format:?}"
        );
        assert!(
            placed.archetypes().len() < inserted.archetypes().len(),
            "{format:?}"
        );
        let mut with_marker: Vec<Entity> = kept
            .iter()
            .filter(|&e| world.get::<Marker>(*e).is_some())
            .map(|e| map[e])
            .collect();
        with_marker.sort();
        let mut seen = inserted.resource::<Seen>().0.clone();
        seen.sort();
        assert_eq!(seen, with_marker, "{format:?}");
        // Both report every loaded value added once, then nothing.
        for loaded in [&mut placed, &mut inserted] {
            let mut with_pos: Vec<Entity> = kept
                .iter()
                .filter(|&e| world.get::<Pos>(*e).is_some())
                .map(|e| map[e])
                .collect();
            with_pos.sort();
            assert_eq!(added::<Pos>(loaded), with_pos, "{format:?}");
            assert_eq!(added::<Pos>(loaded), Vec::<Entity>::new(), "{format:?}");
        }
    }
}

#[derive(Resource, Default)]
struct Seen(Vec<Entity>);

#[derive(Component, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Default)]
struct Mass(u32);

#[derive(Component, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[require(Mass(7))]
struct Body(u32);

#[test]
fn a_load_of_a_component_with_requirements_inserts_them() {
    let registry = SaveRegistry::new().component_with_key::<Body>("body");
    for format in FORMATS {
        let mut source = World::new();
        let e = source.spawn(Body(1)).id();
        source.entity_mut(e).remove::<Mass>();
        let text = save(&registry, &source, format);
        let mut loaded = World::new();
        load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        consistent(&loaded);
        assert_eq!(loaded.get::<Body>(e), Some(&Body(1)), "{format:?}");
        assert_eq!(loaded.get::<Mass>(e), Some(&Mass(7)), "{format:?}");
    }
}

#[test]
fn a_load_beside_entities_in_the_empty_table_leaves_them_whole() {
    for format in FORMATS {
        let (world, kept) = sample();
        let registry = registry();
        let text = save(&registry, &world, format);
        // Residents with no component, and with only a sparse-set one: both
        // archetypes share the empty table with what the load places.
        let mut loaded = World::new();
        let bare: Vec<Entity> = (0..3).map(|_| loaded.spawn_empty().id()).collect();
        let named: Vec<Entity> = (0..3)
            .map(|i| loaded.spawn(Name(format!("resident {i}"))).id())
            .collect();
        let map = load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        consistent(&loaded);
        for (i, &e) in named.iter().enumerate() {
            assert_eq!(loaded.get::<Name>(e), Some(&Name(format!("resident {i}"))));
            assert_eq!(component_names(&loaded, e).len(), 1);
        }
        for &e in &bare {
            assert!(loaded.contains_entity(e));
            assert!(component_names(&loaded, e).is_empty());
        }
        for &e in &kept {
            let new = map[&e];
            assert!(!bare.contains(&new) && !named.contains(&new));
            assert_eq!(component_names(&loaded, new), component_names(&world, e));
            assert_eq!(loaded.get::<Pos>(new), world.get::<Pos>(e));
            assert_eq!(loaded.get::<Name>(new), world.get::<Name>(e));
            // References now name the new ids.
            if let Some(Follows(target)) = world.get::<Follows>(e) {
                assert_eq!(loaded.get::<Follows>(new), Some(&Follows(map[target])));
            }
        }
        assert_eq!(loaded.entity_count(), 6 + kept.len());
        // The world goes on: despawning and spawning keep it whole.
        loaded.despawn(bare[0]);
        loaded.despawn(map[&kept[1]]);
        loaded.spawn((Pos(0, 0), Vel(0, 0)));
        consistent(&loaded);
    }
}

static TRACKED_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
struct Tracked(String);

impl Drop for Tracked {
    fn drop(&mut self) {
        TRACKED_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn loaded_values_are_dropped_once_with_their_world() {
    let registry = SaveRegistry::new()
        .component_with_key::<Tracked>("tracked")
        .component_with_key::<Pos>("pos");
    for format in FORMATS {
        let mut source = World::new();
        for i in 0..40 {
            let e = source.spawn(Tracked(format!("t{i}"))).id();
            if i % 3 == 0 {
                source.entity_mut(e).insert(Pos(i, i));
            }
        }
        let text = save(&registry, &source, format);
        drop(source);
        TRACKED_DROPS.store(0, Ordering::SeqCst);
        let mut loaded = World::new();
        load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        consistent(&loaded);
        assert_eq!(
            TRACKED_DROPS.load(Ordering::SeqCst),
            0,
            "{format:?}: nothing dropped in a load"
        );
        let mut names: Vec<String> = loaded
            .query::<&Tracked>()
            .iter(&loaded)
            .map(|t| t.0.clone())
            .collect();
        names.sort();
        let mut expected: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        expected.sort();
        assert_eq!(names, expected, "{format:?}");
        drop(loaded);
        assert_eq!(TRACKED_DROPS.load(Ordering::SeqCst), 40, "{format:?}");
    }
}

#[test]
fn loaded_entities_answer_for_saved_ids_only() {
    let (world, kept) = sample();
    let registry = registry();
    let text = save(&registry, &world, Format::Columns);
    let mut target = World::new();
    let resident = target.spawn_empty().id();
    let loaded = load(
        &registry,
        &mut target,
        &text,
        Format::Columns,
        LoadOptions::default(),
    )
    .unwrap();
    assert!(!loaded.ids_kept());
    assert_eq!(loaded.len(), kept.len());
    let pairs: Vec<(Entity, Entity)> = loaded.iter().collect();
    let mut saved: Vec<Entity> = pairs.iter().map(|&(s, _)| s).collect();
    saved.sort();
    let mut expected = kept.clone();
    expected.sort();
    assert_eq!(saved, expected);
    for &(s, n) in &pairs {
        assert_eq!(loaded.get(s), Some(n));
        assert_eq!(loaded[&s], n);
        assert!(target.contains_entity(n) && n != resident);
    }
    let unsaved = Entity::from_raw(999);
    assert_eq!(loaded.get(unsaved), None);
    let message = catch_unwind(AssertUnwindSafe(|| loaded[&unsaved]))
        .unwrap_err()
        .downcast::<String>()
        .unwrap();
    assert!(message.contains(&unsaved.to_string()), "{message}");
    let map = loaded.clone().into_map();
    assert_eq!(map.len(), kept.len());
    assert!(pairs.iter().all(|(s, n)| map[s] == *n));

    let mut fresh = World::new();
    let kept_ids = load(
        &registry,
        &mut fresh,
        &text,
        Format::Columns,
        LoadOptions::default(),
    )
    .unwrap();
    assert!(kept_ids.ids_kept());
    assert!(kept_ids.iter().all(|(s, n)| s == n));
    assert_ne!(kept_ids, loaded);
}

#[test]
fn archetypes_sharing_a_table_are_placed_together() {
    // `Pos` alone and `Pos` with the sparse `Name` share one table; so do
    // no component and `Name` alone (the empty table).
    let registry = registry();
    for format in FORMATS {
        let mut source = World::new();
        let mut kept = Vec::new();
        for i in 0..300 {
            let e = match i % 4 {
                0 => source.spawn(Pos(i, 0)).id(),
                1 => source.spawn((Pos(i, 1), Name(format!("p{i}")))).id(),
                2 => source.spawn(Name(format!("n{i}"))).id(),
                _ => source.spawn_empty().id(),
            };
            kept.push(e);
        }
        let text = save(&registry, &source, format);
        for residents in [0, 5] {
            let mut loaded = World::new();
            for i in 0..residents {
                loaded.spawn((Pos(-i, -i), Name(format!("resident {i}"))));
            }
            let map = load(
                &registry,
                &mut loaded,
                &text,
                format,
                LoadOptions::default(),
            )
            .unwrap();
            consistent(&loaded);
            for &e in &kept {
                let new = map[&e];
                assert_eq!(component_names(&loaded, new), component_names(&source, e));
                assert_eq!(loaded.get::<Pos>(new), source.get::<Pos>(e), "{format:?}");
                assert_eq!(loaded.get::<Name>(new), source.get::<Name>(e), "{format:?}");
            }
        }
    }
}

#[test]
fn an_allocator_in_the_former_format_is_an_error_naming_the_field() {
    // Before `(slots, [(free index, generation)])`, the allocator was
    // `([generation by index], [free index])`.
    let registry = registry();
    let live = Entity::from_raw(0).to_bits();
    let text = format!(
        r#"{{"resources":{{}},"entities":[[{live},{{"pos":[1,2]}}]],"allocator":[[1,1],[1]]}}"#
    );
    let mut world = World::new();
    let error = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        LoadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("allocator"), "{error}");
    assert_eq!(world.entity_count(), 0);
    // Without the field, the entities load with their ids.
    let text = format!(r#"{{"resources":{{}},"entities":[[{live},{{"pos":[1,2]}}]]}}"#);
    let map = load(
        &registry,
        &mut world,
        &text,
        Format::Rows,
        LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(map[&Entity::from_raw(0)], Entity::from_raw(0));
    assert_eq!(world.get::<Pos>(Entity::from_raw(0)), Some(&Pos(1, 2)));
}

#[test]
fn registered_components_the_save_has_no_value_of_take_no_part() {
    // `Name` (a sparse set) and `Vel` are registered but never stored: the
    // loading world has no storage for them yet.
    let registry = registry();
    for format in FORMATS {
        let mut source = World::new();
        let kept: Vec<Entity> = (0..10).map(|i| source.spawn(Pos(i, i)).id()).collect();
        let text = save(&registry, &source, format);
        let mut loaded = World::new();
        let map = load(
            &registry,
            &mut loaded,
            &text,
            format,
            LoadOptions::default(),
        )
        .unwrap();
        consistent(&loaded);
        for &e in &kept {
            assert_eq!(
                loaded.get::<Pos>(map[&e]),
                source.get::<Pos>(e),
                "{format:?}"
            );
            assert_eq!(component_names(&loaded, map[&e]).len(), 1, "{format:?}");
        }
    }
}

static COUNTED_LIVE: AtomicIsize = AtomicIsize::new(0);

/// Counts its live values; deserializing 99 panics.
#[derive(Component, Serialize, Debug)]
struct Counted(u32);

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = u32::deserialize(deserializer)?;
        assert_ne!(value, 99, "Counted refuses 99");
        COUNTED_LIVE.fetch_add(1, Ordering::SeqCst);
        Ok(Counted(value))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        COUNTED_LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Counts its live values, as `Counted`, in a second table column.
#[derive(Component, Serialize, Debug)]
struct AlsoCounted(u32);

impl<'de> Deserialize<'de> for AlsoCounted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = u32::deserialize(deserializer)?;
        COUNTED_LIVE.fetch_add(1, Ordering::SeqCst);
        Ok(AlsoCounted(value))
    }
}

impl Drop for AlsoCounted {
    fn drop(&mut self) {
        COUNTED_LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn a_column_load_that_fails_midway_drops_every_value_read_once() {
    // The column format reads table components straight into tables of
    // their own: whatever stops the load, what was read is dropped once
    // and the world is as it was.
    let registry = SaveRegistry::new()
        .component_with_key::<Counted>("counted")
        .component_with_key::<AlsoCounted>("also")
        .component_with_key::<Name>("name");
    let (a, b, c, d) = (id(1), id(2), id(3), id(4));
    let first = format!(r#"[[{a},{b}],["also","counted","name"],[[1,2],[3,4],["x","y"]]]"#);
    let cases = [
        // A panic in the second archetype's second column, after its
        // first column and the whole first archetype were read.
        (
            format!(r#"[{first},[[{c},{d}],["also","counted"],[[5,6],[7,99]]]]"#),
            "panic",
        ),
        // Too few values in the last column.
        (
            format!(r#"[{first},[[{c},{d}],["also","counted"],[[5,6],[7]]]]"#),
            "1 values for 2 entities",
        ),
        // Too many values.
        (
            format!(r#"[{first},[[{c},{d}],["counted"],[[5,6,7]]]]"#),
            "more than 2 values for 2 entities",
        ),
        // A key without values.
        (
            format!(r#"[{first},[[{c},{d}],["also","counted"],[[5,6]]]]"#),
            "component `counted`: no values",
        ),
        // Values without a key.
        (
            format!(r#"[{first},[[{c},{d}],["counted"],[[5,6],[7,8]]]]"#),
            "more value sequences than the 1 keys",
        ),
        // Truncated.
        (
            format!(r#"[{first},[[{c},{d}],["counted"],[[5,"#),
            "component `counted`",
        ),
    ];
    for (archetypes, expected) in cases {
        let text = format!(r#"{{"resources":{{}},"archetypes":{archetypes}}}"#);
        for resident in [false, true] {
            let mut world = World::new();
            let residents: Vec<Entity> = if resident {
                vec![world.spawn((Counted(0), AlsoCounted(0))).id()]
            } else {
                Vec::new()
            };
            let live = COUNTED_LIVE.load(Ordering::SeqCst);
            let result = catch_unwind(AssertUnwindSafe(|| {
                load(
                    &registry,
                    &mut world,
                    &text,
                    Format::Columns,
                    Default::default(),
                )
            }));
            match result {
                Err(_) => assert_eq!(expected, "panic", "{archetypes}"),
                Ok(Err(error)) => {
                    let error = error.to_string();
                    assert!(error.contains(expected), "{archetypes}: {error}");
                    assert!(error.contains("archetype #1"), "{archetypes}: {error}");
                }
                Ok(Ok(_)) => panic!("{archetypes}: loaded"),
            }
            assert_eq!(
                COUNTED_LIVE.load(Ordering::SeqCst),
                live,
                "{archetypes}: each value read is dropped once"
            );
            consistent(&world);
            assert_eq!(world.entity_count(), residents.len());
            assert_eq!(
                world.query::<&Counted>().iter(&world).count(),
                residents.len()
            );
        }
    }
}

#[test]
fn a_column_load_fills_the_tables_the_world_then_grows() {
    // Loaded tables are the world's own: later spawns, inserts and
    // removes grow and move them as any table.
    let registry = registry();
    let mut source = World::new();
    let saved: Vec<Entity> = (0..50)
        .map(|i| source.spawn((Pos(i, 0), Vel(0, i))).id())
        .collect();
    let text = save(&registry, &source, Format::Columns);
    let mut loaded = World::new();
    load(
        &registry,
        &mut loaded,
        &text,
        Format::Columns,
        LoadOptions::default(),
    )
    .unwrap();
    let more: Vec<Entity> = (50..200)
        .map(|i| loaded.spawn((Pos(i, 0), Vel(0, i))).id())
        .collect();
    for &e in saved.iter().step_by(3) {
        loaded.entity_mut(e).insert(Name(format!("{e:?}")));
        loaded.entity_mut(e).remove::<Vel>();
    }
    consistent(&loaded);
    for (i, &e) in saved.iter().chain(&more).enumerate() {
        let i = i as i32;
        assert_eq!(loaded.get::<Pos>(e), Some(&Pos(i, 0)));
        let moved = i < 50 && i % 3 == 0;
        assert_eq!(loaded.get::<Vel>(e), (!moved).then_some(&Vel(0, i)));
    }
    let changed = loaded
        .query_filtered::<Entity, Added<Pos>>()
        .iter(&loaded)
        .count();
    assert_eq!(changed, 200, "loaded and spawned values are added");
}

/// A component whose hook registration (user code, run when it is first
/// registered) panics.
#[derive(Serialize, Deserialize, Debug)]
struct HooksPanic(u32);

impl Component for HooksPanic {
    const STORAGE_TYPE: ecs::component::StorageType = ecs::component::StorageType::Table;
    type Mutability = ecs::component::Mutable;
    fn register_component_hooks(_: &mut ecs::lifecycle::ComponentHooks) {
        panic!("HooksPanic registers no hooks");
    }
}

#[test]
fn a_panic_registering_a_loaded_component_leaves_no_entity_half_made() {
    let registry = SaveRegistry::new()
        .component_with_key::<Pos>("pos")
        .component_with_key::<HooksPanic>("hooks");
    let one = id(0);
    // Into a world with entities (fresh ids), an empty one without an
    // allocator (kept ids), a fresh one with the allocator (restored).
    let cases = [
        (
            3,
            format!(r#"{{"resources":{{}},"entities":[[{one},{{"hooks":1}}]]}}"#),
        ),
        (
            0,
            format!(r#"{{"resources":{{}},"entities":[[{one},{{"hooks":1}}]]}}"#),
        ),
        (
            0,
            format!(
                r#"{{"resources":{{}},"entities":[[{one},{{"hooks":1}}]],"allocator":[1,[]]}}"#
            ),
        ),
    ];
    for (residents, text) in cases {
        let mut world = World::new();
        for i in 0..residents {
            world.spawn(Pos(i, 0));
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            load(
                &registry,
                &mut world,
                &text,
                Format::Rows,
                Default::default(),
            )
        }));
        assert!(result.is_err(), "{text}: the panic reaches the caller");
        consistent(&world);
        assert_eq!(world.entity_count(), residents as usize, "{text}");
        assert_eq!(
            world.query::<Entity>().iter(&world).count(),
            residents as usize
        );
    }
}

#[test]
fn a_kept_index_past_what_the_save_can_name_is_an_error() {
    let registry = registry();
    let far = Entity::from_raw(4_000_000_000).to_bits();
    let near = id(3);
    let without = format!(r#"{{"resources":{{}},"entities":[[{near},{{}}],[{far},{{}}]]}}"#);
    // With an allocator (ignored, since the world once had an entity), the
    // slot count bounds the indices.
    let with = format!(
        r#"{{"resources":{{}},"entities":[[{near},{{}}],[{},{{}}]],"allocator":[5,[]]}}"#,
        id(7)
    );
    for (text, expected) in [
        (without, "too far past the 2 saved entities"),
        (with, "past the allocator's 5 slots"),
    ] {
        let mut world = World::new();
        let old = world.spawn_empty().id();
        world.despawn(old);
        let error = load(
            &registry,
            &mut world,
            &text,
            Format::Rows,
            Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("entity #1"), "{error}");
        assert!(error.contains(expected), "{error}");
        consistent(&world);
        assert_eq!(world.entity_count(), 0);
    }
}

#[test]
fn a_reference_to_an_unsaved_entity_stays_dead_when_ids_are_kept() {
    let registry = registry();
    let mut source = World::new();
    // The saved ids are of a later generation than any the loading world
    // retires below, so they are kept there.
    let first = source.spawn_empty().id();
    source.despawn(first);
    let a = source.spawn(Pos(0, 0)).id();
    let b = source.spawn(Pos(1, 1)).id();
    source.entity_mut(a).insert(Follows(b));
    source.despawn(b);
    for format in FORMATS {
        let text = save(&registry, &source, format);
        // Empty but not fresh: ids are kept, the saved allocator is not.
        let mut world = World::new();
        let old = world.spawn_empty().id();
        world.despawn(old);
        let loaded = load(&registry, &mut world, &text, format, Default::default()).unwrap();
        assert!(loaded.ids_kept(), "{format:?}");
        let target = world.get::<Follows>(a).unwrap().0;
        let spawned: Vec<Entity> = (0..4).map(|_| world.spawn(Pos(9, 9)).id()).collect();
        assert!(
            !spawned.contains(&target),
            "{format:?}: {target:?} names a live entity"
        );
        assert!(!world.contains_entity(target), "{format:?}");
        consistent(&world);
        // Into a fresh world the saved allocator comes back: the reference
        // is left as saved, and the allocator never hands out that id.
        let mut fresh = World::new();
        load(&registry, &mut fresh, &text, format, Default::default()).unwrap();
        assert_eq!(fresh.get::<Follows>(a), Some(&Follows(b)), "{format:?}");
        let spawned: Vec<Entity> = (0..4).map(|_| fresh.spawn(Pos(9, 9)).id()).collect();
        assert!(!spawned.contains(&b), "{format:?}");
    }
}

#[test]
fn an_observer_despawning_a_loaded_entity_drops_its_later_values() {
    let registry = registry();
    let mut source = World::new();
    let kept: Vec<Entity> = (0..6)
        .map(|i| source.spawn((Pos(i, i), Vel(i, i))).id())
        .collect();
    source.insert_resource(Round(3));
    for format in FORMATS {
        let text = save(&registry, &source, format);
        let mut world = World::new();
        world.add_observer(|add: On<Add<Pos>>, mut commands: Commands| {
            if add.entity.index().is_multiple_of(2) {
                commands.entity(add.entity).despawn();
            }
        });
        let loaded = load(&registry, &mut world, &text, format, Default::default()).unwrap();
        consistent(&world);
        assert_eq!(world.get_resource::<Round>(), Some(&Round(3)), "{format:?}");
        for &e in &kept {
            let new = loaded.get(e).unwrap();
            let alive = new.index() % 2 == 1;
            assert_eq!(world.contains_entity(new), alive, "{format:?}");
            if alive {
                assert_eq!(world.get::<Vel>(new), source.get::<Vel>(e), "{format:?}");
            }
        }
    }
}

static ADDED_POS: AtomicUsize = AtomicUsize::new(0);
static ADDED_NAME: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_system_run_by_a_command_queued_before_the_load_sees_every_loaded_value_added() {
    use std::sync::{Arc, Mutex};
    let registry = registry();
    let mut source = World::new();
    for i in 0..3 {
        source.spawn((Pos(i, i), Name(format!("n{i}"))));
    }
    for format in FORMATS {
        let text = save(&registry, &source, format);
        let mut world = World::new();
        let mut schedule = Schedule::default();
        schedule.add_systems(|pos: Query<(), Added<Pos>>, name: Query<(), Added<Name>>| {
            ADDED_POS.store(pos.iter().count(), Ordering::SeqCst);
            ADDED_NAME.store(name.iter().count(), Ordering::SeqCst);
        });
        schedule.run(&mut world);
        let schedule = Arc::new(Mutex::new(schedule));
        let queued = schedule.clone();
        world.commands().queue(move |w: &mut World| {
            queued.lock().unwrap().run(w);
        });
        load(&registry, &mut world, &text, format, Default::default()).unwrap();
        schedule.lock().unwrap().run(&mut world);
        let counts = (
            ADDED_POS.load(Ordering::SeqCst),
            ADDED_NAME.load(Ordering::SeqCst),
        );
        assert_eq!(counts, (3, 3), "{format:?}: table and sparse values alike");
    }
}

/// An observer of a loaded component that panics stops no other column or
/// resource: the load completes, then the panic goes on.
#[test]
fn a_panicking_observer_of_a_loaded_component_lets_the_load_complete() {
    let registry = registry();
    let mut source = World::new();
    let kept: Vec<Entity> = (0..3)
        .map(|i| source.spawn((Pos(i, i), Vel(i, i))).id())
        .collect();
    source.insert_resource(Round(5));
    for format in FORMATS {
        let text = save(&registry, &source, format);
        let mut world = World::new();
        world.add_observer(|_: On<Add<Pos>>| panic!("observer of Pos"));
        let result = catch_unwind(AssertUnwindSafe(|| {
            load(&registry, &mut world, &text, format, Default::default())
        }));
        assert!(result.is_err(), "{format:?}");
        consistent(&world);
        assert_eq!(world.get_resource::<Round>(), Some(&Round(5)), "{format:?}");
        let mut query = world.query::<(&Pos, &Vel)>();
        let mut loaded: Vec<(i32, i32)> = query.iter(&world).map(|(p, v)| (p.0, v.0)).collect();
        loaded.sort_unstable();
        assert_eq!(loaded.len(), kept.len(), "{format:?}");
        assert!(loaded.iter().all(|(p, v)| p == v), "{format:?}");
    }
}

/// A load into an empty world that once held entities keeps the saved ids
/// only where none is of a generation the world already retired at its
/// index: a handle despawned before the load never names a loaded entity,
/// nor one spawned after it.
#[test]
fn a_load_never_revives_a_stale_handle() {
    for format in [Format::Rows, Format::Columns] {
        let registry = registry();
        let mut source = World::new();
        let saved = source.spawn(Pos(5, 5)).id();
        let text = save(&registry, &source, format);

        let mut world = World::new();
        let stale = world.spawn(Pos(1, 1)).id();
        world.despawn(stale);
        let stale2 = world.spawn(Pos(2, 2)).id();
        world.despawn(stale2);
        assert_eq!(stale.index(), saved.index());
        let loaded = load(&registry, &mut world, &text, format, LoadOptions::default()).unwrap();
        assert!(!loaded.ids_kept(), "{format:?}");
        assert_eq!(world.get::<Pos>(stale), None);
        assert_eq!(world.get::<Pos>(loaded[&saved]), Some(&Pos(5, 5)));
        world.despawn(loaded[&saved]);
        let next = world.spawn(Pos(3, 3)).id();
        assert!(next != stale && next != stale2, "{format:?}");
        integrity(&world);

        // Where the world retired only older generations, the ids stay.
        let mut source = World::new();
        let first = source.spawn_empty().id();
        source.despawn(first);
        let saved = source.spawn(Pos(6, 6)).id();
        let text = save(&registry, &source, format);
        let mut world = World::new();
        let retired = world.spawn_empty().id();
        world.despawn(retired);
        let loaded = load(&registry, &mut world, &text, format, LoadOptions::default()).unwrap();
        assert!(loaded.ids_kept(), "{format:?}");
        assert_eq!(world.get::<Pos>(saved), Some(&Pos(6, 6)));
        assert_eq!(world.get::<Pos>(retired), None);
        integrity(&world);
    }
}
