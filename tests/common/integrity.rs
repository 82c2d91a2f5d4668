//! Checks that a world's storage is consistent, asserted after each step.

use std::collections::{HashMap, HashSet};

use ecs::prelude::*;

/// Asserts that the world's own integrity check holds.
#[track_caller]
pub fn integrity(world: &World) {
    if let Err(msg) = world.check_integrity() {
        panic!("check_integrity: {msg}");
    }
}

/// Checks the storage invariants of the whole world:
/// - every entity listed by an archetype is live, and its location points
///   back to that archetype, that archetype row, the archetype's table and
///   the table row the archetype records; the table lists it at that row;
/// - every column of every table has exactly `entity_count` values, and a
///   table holds exactly the entities of the archetypes that map to it;
/// - every sparse set has one value per entity, and exactly the entities of
///   the archetypes containing its component;
/// - the archetypes' entity counts sum to `entity_count()`.
pub fn check_invariants(world: &World) {
    let mut total = 0;
    let mut per_table: HashMap<usize, usize> = HashMap::new();
    let mut seen = HashSet::new();
    for archetype in world.archetypes().iter() {
        total += archetype.len();
        *per_table.entry(archetype.table_id().index()).or_default() += archetype.len();
        let table = &world.storages().tables[archetype.table_id()];
        for (row, archetype_entity) in world
            .archetype_entities(archetype.id())
            .expect("the archetype exists")
            .enumerate()
        {
            let e = archetype_entity.id();
            assert!(seen.insert(e), "entity {e:?} is listed by two archetypes");
            assert!(
                world.contains_entity(e),
                "archetype lists dead entity {e:?}"
            );
            let location = world.entity(e).location();
            assert_eq!(location.archetype_id, archetype.id(), "archetype of {e:?}");
            assert_eq!(
                location.archetype_row.index(),
                row,
                "archetype row of {e:?}"
            );
            assert_eq!(location.table_id, archetype.table_id(), "table of {e:?}");
            assert_eq!(
                location.table_row,
                archetype_entity.table_row(),
                "table row of {e:?}"
            );
            assert_eq!(
                table.entities()[location.table_row.index()],
                e,
                "table row of {e:?} holds another entity"
            );
            assert_eq!(world.entity(e).archetype().id(), archetype.id());
        }
    }
    assert_eq!(
        total,
        world.entity_count(),
        "archetype lengths sum to entity_count"
    );
    for (index, table) in world.storages().tables.iter().enumerate() {
        for (column, id) in table.columns().iter().zip(table.component_ids()) {
            assert_eq!(
                column.len(),
                table.entity_count(),
                "column {id:?} of table {index} has the table's length"
            );
        }
        assert_eq!(
            table.entity_count(),
            per_table.get(&index).copied().unwrap_or(0),
            "table {index} holds exactly its archetypes' entities"
        );
    }
    for (id, set) in world.storages().sparse_sets.iter() {
        assert_eq!(
            set.len(),
            set.column().len(),
            "sparse set {id:?} column length"
        );
        let expected: usize = world
            .archetypes()
            .iter()
            .filter(|a| a.contains(id))
            .map(|a| a.len())
            .sum();
        assert_eq!(
            set.len(),
            expected,
            "sparse set {id:?} holds its archetypes' entities"
        );
        for &e in set.entities() {
            assert!(
                world.contains_entity(e),
                "sparse set {id:?} holds dead {e:?}"
            );
            assert!(
                world.entity(e).contains_id(id),
                "sparse set {id:?} holds {e:?} without it"
            );
        }
    }
}
