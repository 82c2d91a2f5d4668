//! The storage invariants, checked: [`World::check_integrity`].

use std::any::type_name;

use crate::{
    archetype::{Archetype, EdgeKind},
    component::Component,
    entity::Entity,
    relationship::{Relationship, RelationshipTarget},
    storage::{TableId, NO_COLUMN},
    world::World,
};

impl World {
    /// Checks the storage invariants: every live entity's location points
    /// at its archetype row and table row and back; every column of a table
    /// has one value per row; every cached archetype edge knows where each
    /// column of its source table sits in its target's table, and every
    /// bundle where each of its components' columns sits in the table it
    /// spawns into; every sparse-set value belongs to a live entity whose
    /// archetype has that component; the two ends of every relationship
    /// registered here (`ChildOf` and `Children`, and each derived
    /// `#[relationship]`) agree, and so do the `Targets` and `Sources` of
    /// every relation kind (each entry
    /// names a live entity listing it back exactly once; a symmetric kind
    /// is symmetric, an exclusive one has at most one target). Returns the
    /// first violation found.
    ///
    /// It walks the whole world (O(entities + values)): a debugging and
    /// testing aid, not something to call every frame.
    pub fn check_integrity(&self) -> Result<(), String> {
        self.check_archetypes()?;
        self.check_entity_count()?;
        self.check_tables()?;
        self.check_edge_columns()?;
        self.check_bundle_spawn_columns()?;
        self.check_sparse_sets()?;
        for info in self.components.iter() {
            if let Some(check) = info.integrity_check() {
                check(self)?;
            }
        }
        crate::relation::run_registered_checks(self)
    }

    /// Every live entity that has a `C`.
    pub(crate) fn entities_with<C: Component>(&self) -> Vec<Entity> {
        let Some(id) = self.components.component_id::<C>() else {
            return Vec::new();
        };
        self.archetypes
            .iter()
            .filter(|archetype| archetype.contains(id))
            .flat_map(|archetype| {
                let table = &self.storages.tables[archetype.table_id()];
                archetype.entities_in(table).map(|e| e.id())
            })
            .collect()
    }

    /// Every `R` points at a live entity whose list holds it exactly once,
    /// and every list entry is a live entity whose `R` points back.
    pub(crate) fn check_relationship<R: Relationship>(&self) -> Result<(), String> {
        let relationship = type_name::<R>();
        for source in self.entities_with::<R>() {
            let Some(target) = self.get::<R>(source).map(R::get) else {
                continue;
            };
            let listed = self
                .get::<R::RelationshipTarget>(target)
                .map_or(0, |list| list.iter().filter(|&e| e == source).count());
            if listed != 1 {
                return Err(format!(
                    "entity {source:?} has {relationship}({target:?}), whose list holds it {listed} times"
                ));
            }
        }
        for target in self.entities_with::<R::RelationshipTarget>() {
            let Some(list) = self.get::<R::RelationshipTarget>(target) else {
                continue;
            };
            for source in list.iter() {
                if self.get::<R>(source).map(R::get) != Some(target) {
                    return Err(format!(
                        "entity {target:?} lists {source:?}, whose {relationship} does not point back"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Each archetype's table ownership and entity count, then each of its
    /// entities, archetype by archetype.
    fn check_archetypes(&self) -> Result<(), String> {
        let mut archetypes_per_table = vec![0usize; self.storages.tables.len()];
        for archetype in self.archetypes.iter() {
            archetypes_per_table[archetype.table_id().index()] += 1;
        }
        for archetype in self.archetypes.iter() {
            let sharing = archetypes_per_table[archetype.table_id().index()];
            self.check_archetype_counts(archetype, sharing)?;
            self.check_archetype_entities(archetype)?;
        }
        Ok(())
    }

    /// An archetype owns its table exactly when no other archetype maps to
    /// it, and its entity count matches the rows or the list it keeps.
    fn check_archetype_counts(&self, archetype: &Archetype, sharing: usize) -> Result<(), String> {
        let table = &self.storages.tables[archetype.table_id()];
        if archetype.owns_table() != (sharing == 1) {
            return Err(format!(
                "archetype {:?} says it owns its table {}, and {sharing} archetypes map to that table",
                archetype.id(),
                archetype.owns_table()
            ));
        }
        if archetype.owns_table() && archetype.len() != table.entity_count() {
            return Err(format!(
                "archetype {:?} owns its table {:?} but has {} entities for its {} rows",
                archetype.id(),
                archetype.table_id(),
                archetype.len(),
                table.entity_count()
            ));
        }
        if !archetype.owns_table() && archetype.len() != archetype.shared_entities().len() {
            return Err(format!(
                "archetype {:?} counts {} entities but lists {}",
                archetype.id(),
                archetype.len(),
                archetype.shared_entities().len()
            ));
        }
        Ok(())
    }

    /// Every entity of an archetype is live, its location points back at
    /// its archetype row and table row, and it has its sparse components.
    fn check_archetype_entities(&self, archetype: &Archetype) -> Result<(), String> {
        let table = &self.storages.tables[archetype.table_id()];
        for (row, archetype_entity) in archetype.entities_in(table).enumerate() {
            let entity = archetype_entity.id();
            let Some(location) = self.entities.get(entity) else {
                return Err(format!(
                    "entity {entity:?} is in archetype {:?} but not live",
                    archetype.id()
                ));
            };
            if location.archetype_id != archetype.id()
                || location.archetype_row.index() != row
                || location.table_id != archetype.table_id()
                || location.table_row != archetype_entity.table_row()
            {
                return Err(format!(
                    "entity {entity:?} is at row {row} of archetype {:?} (table row {:?}) but its location says {location:?}",
                    archetype.id(),
                    archetype_entity.table_row()
                ));
            }
            if table.entities().get(location.table_row.index()) != Some(&entity) {
                return Err(format!(
                    "table {:?} row {:?} does not hold entity {entity:?}",
                    location.table_id, location.table_row
                ));
            }
            for &id in archetype.sparse_set_components() {
                let has = self
                    .storages
                    .sparse_sets
                    .get(id)
                    .is_some_and(|s| s.contains(entity));
                if !has {
                    return Err(format!(
                        "entity {entity:?} lacks its sparse component {:?}",
                        self.components.get_name(id)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The archetypes hold as many entities as the world counts live.
    fn check_entity_count(&self) -> Result<(), String> {
        // After `check_archetypes`, every archetype lists `len()` live
        // entities.
        let live: usize = self.archetypes.iter().map(Archetype::len).sum();
        if live != self.entity_count() {
            return Err(format!(
                "{live} entities in archetypes but entity_count() is {}",
                self.entity_count()
            ));
        }
        Ok(())
    }

    /// A table has as many rows as its archetypes have entities, and every
    /// column one value per row.
    fn check_tables(&self) -> Result<(), String> {
        let mut rows_per_table = vec![0usize; self.storages.tables.len()];
        for archetype in self.archetypes.iter() {
            rows_per_table[archetype.table_id().index()] += archetype.len();
        }
        for (index, table) in self.storages.tables.iter().enumerate() {
            if table.entity_count() != rows_per_table[index] {
                return Err(format!(
                    "table {:?} has {} rows but its archetypes list {}",
                    TableId::new(index),
                    table.entity_count(),
                    rows_per_table[index]
                ));
            }
            for (id, column) in table.component_ids().iter().zip(table.columns()) {
                if column.len() != table.entity_count() {
                    return Err(format!(
                        "column {:?} of table {index} has {} values for {} rows",
                        self.components.get_name(*id),
                        column.len(),
                        table.entity_count()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every cached edge's column positions match its source and target
    /// tables.
    fn check_edge_columns(&self) -> Result<(), String> {
        for archetype in self.archetypes.iter() {
            let from = &self.storages.tables[archetype.table_id()];
            for (edge, target, moves) in archetype.edges().table_move_edges() {
                let to = self.archetypes[target].table_id();
                let consistent = if to == archetype.table_id() {
                    moves.is_empty()
                } else {
                    from.column_positions_match(&self.storages.tables[to], moves)
                        && !(matches!(edge, EdgeKind::Insert(_)) && moves.contains(&NO_COLUMN))
                };
                if !consistent {
                    return Err(format!(
                        "the {edge:?} edge from archetype {:?} to {target:?} caches column positions {moves:?} that do not match their tables",
                        archetype.id()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every bundle's cached spawn columns match the table it spawns into.
    fn check_bundle_spawn_columns(&self) -> Result<(), String> {
        for bundle in self.bundles.iter() {
            if let Some((table_id, columns)) = bundle.spawn_table_and_columns() {
                let table = &self.storages.tables[table_id];
                if !columns
                    .iter()
                    .copied()
                    .eq(bundle.column_positions_in(table))
                {
                    return Err(format!(
                        "bundle `{}` caches spawn column positions {columns:?} that do not match table {table_id:?}",
                        bundle.name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every sparse set has one value per entity, each of a live entity
    /// whose archetype has the component.
    fn check_sparse_sets(&self) -> Result<(), String> {
        for (id, set) in self.storages.sparse_sets.iter() {
            if set.column().len() != set.len() {
                return Err(format!(
                    "sparse set {:?} has {} values for {} entities",
                    self.components.get_name(id),
                    set.column().len(),
                    set.len()
                ));
            }
            for &entity in set.entities() {
                let Some(location) = self.entities.get(entity) else {
                    return Err(format!(
                        "sparse set {:?} holds a value of dead entity {entity:?}",
                        self.components.get_name(id)
                    ));
                };
                if !self.archetypes[location.archetype_id].contains(id) {
                    return Err(format!(
                        "sparse set {:?} holds a value of {entity:?}, whose archetype lacks it",
                        self.components.get_name(id)
                    ));
                }
            }
        }
        Ok(())
    }
}
