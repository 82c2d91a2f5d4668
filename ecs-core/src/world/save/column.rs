//! The column format: archetype by archetype, its entity ids, then one
//! sequence of values per saved component.

use std::{fmt, marker::PhantomData};

use serde::{
    de::{
        DeserializeOwned, DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
    },
    ser::{SerializeSeq, SerializeStruct, SerializeTuple},
    Serialize, Serializer,
};

use super::{
    entity_from_bits,
    staging::{ColumnDest, StagedComponent, StagedTable, Staging, Target},
    table_slice, ResourceValues, SaveList,
};
use crate::{
    archetype::Archetype,
    change_detection::ComponentTicks,
    component::{Component, ComponentId, StorageType},
    entity::Entity,
    storage::Table,
    world::World,
};

/// A world in the column format, made by
/// [`SaveRegistry::columns`](super::SaveRegistry::columns): hand it to any
/// serde serializer.
///
/// ```
/// # use ecs::prelude::*;
/// # use ecs::world::save::SaveRegistry;
/// let registry = SaveRegistry::new();
/// let world = World::new();
/// let columns = registry.columns(&world);
/// assert_eq!(serde_json::to_string(&columns).unwrap(), r#"{"resources":{},"archetypes":[],"allocator":[0,[]]}"#);
/// ```
pub struct SavedColumns<'w, L> {
    list: &'w L,
    world: &'w World,
}

impl<'w, L: SaveList> SavedColumns<'w, L> {
    pub(super) fn new(list: &'w L, world: &'w World) -> Self {
        SavedColumns { list, world }
    }
}

impl<L> fmt::Debug for SavedColumns<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SavedColumns")
            .field("entities", &self.world.entity_count())
            .finish()
    }
}

impl<L: SaveList> Serialize for SavedColumns<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut top = serializer.serialize_struct("World", 3)?;
        let resources = ResourceValues {
            list: self.list,
            world: self.world,
        };
        top.serialize_field("resources", &resources)?;
        top.serialize_field("archetypes", &Archetypes(self))?;
        top.serialize_field("allocator", &self.world.entities.saved_allocator())?;
        top.end()
    }
}

struct Archetypes<'a, 'w, L>(&'a SavedColumns<'w, L>);

impl<L: SaveList> Serialize for Archetypes<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let SavedColumns { list, world } = *self.0;
        let count = world.archetypes().iter().filter(|a| !a.is_empty()).count();
        let mut seq = serializer.serialize_seq(Some(count))?;
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty()) {
            seq.serialize_element(&OneArchetype {
                list,
                world,
                archetype,
            })?;
        }
        seq.end()
    }
}

/// One archetype: its entity ids, the keys of its components, then one
/// sequence of values per key.
struct OneArchetype<'w, L> {
    list: &'w L,
    world: &'w World,
    archetype: &'w Archetype,
}

impl<L: SaveList> Serialize for OneArchetype<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(3)?;
        tuple.serialize_element(&Ids(self))?;
        tuple.serialize_element(&Keys(self))?;
        tuple.serialize_element(&Columns(self))?;
        tuple.end()
    }
}

struct Ids<'a, 'w, L>(&'a OneArchetype<'w, L>);

impl<L> Serialize for Ids<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rows = self
            .0
            .world
            .archetype_entities(self.0.archetype.id())
            .expect("a listed archetype");
        serializer.collect_seq(rows.map(|row| row.id().to_bits()))
    }
}

struct Keys<'a, 'w, L>(&'a OneArchetype<'w, L>);

impl<L: SaveList> Serialize for Keys<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let OneArchetype {
            list,
            world,
            archetype,
        } = *self.0;
        let mut seq = serializer.serialize_seq(Some(list.count_components(world, archetype)))?;
        list.serialize_keys(world, archetype, &mut seq)?;
        seq.end()
    }
}

struct Columns<'a, 'w, L>(&'a OneArchetype<'w, L>);

impl<L: SaveList> Serialize for Columns<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let OneArchetype {
            list,
            world,
            archetype,
        } = *self.0;
        let mut tuple = serializer.serialize_tuple(list.count_components(world, archetype))?;
        list.serialize_columns(world, archetype, &mut tuple)?;
        tuple.end()
    }
}

/// The values of `T` of one archetype, in entity order.
pub(super) struct ColumnValues<'w, T> {
    world: &'w World,
    archetype: &'w Archetype,
    _type: PhantomData<fn() -> T>,
}

impl<'w, T> ColumnValues<'w, T> {
    pub(super) fn new(world: &'w World, archetype: &'w Archetype) -> Self {
        ColumnValues {
            world,
            archetype,
            _type: PhantomData,
        }
    }
}

impl<T: Component + Serialize> Serialize for ColumnValues<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(values) = table_slice::<T>(self.world, self.archetype) {
            return values.serialize(serializer);
        }
        let rows = self
            .world
            .archetype_entities(self.archetype.id())
            .expect("a listed archetype");
        let mut seq = serializer.serialize_seq(Some(self.archetype.len()))?;
        for row in rows {
            let value = self
                .world
                .get::<T>(row.id())
                .expect("the archetype holds it");
            seq.serialize_element(value)?;
        }
        seq.end()
    }
}

/// Reads the column format into a staging. The world only registers the
/// components read (as loading them would).
pub(super) struct ColumnsSeed<'a, L> {
    pub(super) list: &'a L,
    pub(super) staging: &'a mut Staging,
    pub(super) world: &'a mut World,
}

impl<L> ColumnsSeed<'_, L> {
    fn second(&mut self) -> ArchetypesSeed<'_, L> {
        ArchetypesSeed {
            list: self.list,
            staging: &mut *self.staging,
            world: &mut *self.world,
        }
    }
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ColumnsSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_struct("World", &["resources", "archetypes", "allocator"], self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ColumnsSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a world in the column format: resources, archetypes, then the allocator")
    }

    super::visit_top_level!("archetypes");
}

/// The sequence of archetypes.
struct ArchetypesSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
    world: &'a mut World,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ArchetypesSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ArchetypesSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of archetypes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for position in 0usize.. {
            let seed = ArchetypeSeed {
                list: self.list,
                staging: &mut *self.staging,
                world: &mut *self.world,
            };
            match seq.next_element_seed(seed) {
                Ok(Some(())) => {}
                Ok(None) => break,
                Err(e) => return Err(A::Error::custom(format_args!("archetype #{position}: {e}"))),
            }
        }
        Ok(())
    }
}

/// One archetype: its entity ids, its keys, then its columns.
struct ArchetypeSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
    world: &'a mut World,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ArchetypeSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(3, self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ArchetypeSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an archetype: its entity ids, its component keys, then their values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let start = self.staging.entities.len();
        seq.next_element_seed(IdsSeed(&mut self.staging.entities))
            .map_err(|e| A::Error::custom(format_args!("entity ids: {e}")))?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let too_many = || A::Error::custom("too many entities");
        let end = u32::try_from(self.staging.entities.len()).map_err(|_| too_many())?;
        let (start, len) = (start as u32, end - start as u32);
        let keys = seq
            .next_element_seed(KeysSeed {
                list: self.list,
                staging: &mut *self.staging,
                world: &mut *self.world,
            })?
            .ok_or_else(|| A::Error::custom("no component keys"))?;
        let dests = stage_table(self.staging, self.world, &keys, start, len);
        seq.next_element_seed(ArchetypeColumns {
            list: self.list,
            staging: self.staging,
            keys: &keys,
            dests: &dests,
        })?
        .ok_or_else(|| A::Error::custom("no column values"))
    }
}

/// An archetype's entity ids, appended to the staged entities as read.
struct IdsSeed<'a>(&'a mut Vec<Entity>);

impl<'de> DeserializeSeed<'de> for IdsSeed<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for IdsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of entity ids")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // A hint is only a hint: capped, so a corrupt length reserves at
        // most 8 MiB before the ids are read.
        self.0.reserve(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(bits) = seq.next_element::<u64>()? {
            self.0.push(entity_from_bits(bits)?);
        }
        Ok(())
    }
}

/// A key of an archetype: the registry entry, component and storage it
/// names, or `None` for an unknown key being skipped.
struct Key<'de> {
    name: std::borrow::Cow<'de, str>,
    entry: Option<(usize, ComponentId, StorageType)>,
}

/// An archetype's component keys, each checked against the registry.
struct KeysSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
    world: &'a mut World,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for KeysSeed<'_, L> {
    type Value = Vec<Key<'de>>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Vec<Key<'de>>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for KeysSeed<'_, L> {
    type Value = Vec<Key<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of component keys")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Key<'de>>, A::Error> {
        self.staging.next_scope();
        let mut keys = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(name) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
            let entry = self.list.component_entry(&name, self.world);
            match entry {
                Some((index, ..)) => self.staging.check_once(index, &name)?,
                None if self.staging.skip_unknown_keys => {}
                None => {
                    return Err(A::Error::custom(format_args!(
                        "component key `{name}` is not registered for loading"
                    )))
                }
            }
            keys.push(Key { name, entry });
        }
        Ok(keys)
    }
}

/// Where each key's values go: the table components of the archetype
/// into the staged table of their set (made if it is the first), each
/// other component into its staged values. The archetype's entities get
/// their rows in that table.
fn stage_table(
    staging: &mut Staging,
    world: &mut World,
    keys: &[Key<'_>],
    start: u32,
    len: u32,
) -> Vec<Option<ColumnDest>> {
    let mut set: Vec<(ComponentId, usize)> = keys
        .iter()
        .filter_map(|key| key.entry)
        .filter(|&(_, _, storage)| storage == StorageType::Table)
        .map(|(entry, id, _)| (id, entry))
        .collect();
    set.sort_unstable();
    let table = if set.is_empty() {
        None
    } else {
        let ids: Vec<ComponentId> = set.iter().map(|&(id, _)| id).collect();
        let index = match staging
            .tables
            .iter()
            .position(|staged| staged.table.component_ids() == ids.as_slice())
        {
            Some(index) => index,
            None => {
                staging.tables.push(StagedTable {
                    table: Table::new(&ids, &world.components, 0),
                    entries: set.iter().map(|&(_, entry)| entry).collect(),
                    runs: Vec::new(),
                });
                staging.tables.len() - 1
            }
        };
        let staged = &mut staging.tables[index];
        let rows = &staging.entities[start as usize..(start + len) as usize];
        staged.table.push_entities(rows);
        match staged.runs.last_mut() {
            _ if len == 0 => {}
            Some(run) if run.0 + run.1 == start => run.1 += len,
            _ => staged.runs.push((start, len)),
        }
        Some(index)
    };
    keys.iter()
        .map(|key| {
            let (_, id, storage) = key.entry?;
            Some(match (storage, table) {
                (StorageType::Table, Some(table)) => ColumnDest::Table {
                    table,
                    column: staging.tables[table]
                        .table
                        .column_index(id)
                        .expect("the staged table of the set has the column"),
                    len,
                },
                _ => ColumnDest::Staged { start, len },
            })
        })
        .collect()
}

/// The values of an archetype: one sequence per key, in the keys' order.
struct ArchetypeColumns<'a, 'de, L> {
    list: &'a L,
    staging: &'a mut Staging,
    keys: &'a [Key<'de>],
    dests: &'a [Option<ColumnDest>],
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ArchetypeColumns<'_, '_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(self.keys.len(), self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ArchetypeColumns<'_, '_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} sequences of values, one per key", self.keys.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for (key, dest) in self.keys.iter().zip(self.dests) {
            let name = &key.name;
            let read = match (key.entry, *dest) {
                (Some((entry, ..)), Some(dest)) => {
                    self.list.load_column(entry, &mut seq, self.staging, dest)
                }
                _ => seq.next_element::<IgnoredAny>().map(|read| read.map(drop)),
            };
            read.map_err(|e| A::Error::custom(format_args!("component `{name}`: {e}")))?
                .ok_or_else(|| A::Error::custom(format_args!("component `{name}`: no values")))?;
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::custom(format_args!(
                "more value sequences than the {} keys",
                self.keys.len()
            )));
        }
        Ok(())
    }
}

/// The values of one table component of one archetype, read straight
/// into the column at position `column` of a staged table whose rows for
/// them were already pushed.
pub(super) struct TableColumnSeed<'a, T> {
    table: &'a mut Table,
    column: usize,
    len: u32,
    ticks: ComponentTicks,
    _type: PhantomData<fn() -> T>,
}

impl<'a, T> TableColumnSeed<'a, T> {
    pub(super) fn new(
        table: &'a mut Table,
        column: usize,
        len: u32,
        ticks: ComponentTicks,
    ) -> Self {
        TableColumnSeed {
            table,
            column,
            len,
            ticks,
            _type: PhantomData,
        }
    }
}

impl<'de, T: Component + DeserializeOwned> DeserializeSeed<'de> for TableColumnSeed<'_, T> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Component + DeserializeOwned> Visitor<'de> for TableColumnSeed<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a sequence of {} values", self.len)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let len = self.len as usize;
        let rows = self.table.entity_count();
        assert!(
            self.column < self.table.component_ids().len(),
            "a column of the table"
        );
        // SAFETY: checked just above.
        let column = unsafe { self.table.column_at_mut(self.column) };
        debug_assert_eq!(column.len() + len, rows, "the rows were pushed first");
        let mut read = 0;
        while read < len {
            let Some(value) = seq.next_element::<T>()? else {
                break;
            };
            // SAFETY: the column is `T`'s (the staged table was made for
            // the key's component and `column` is its position); it has
            // fewer values than the table has rows (`read < len`), and a
            // table's columns hold as many rows as it has entities.
            unsafe { column.push_typed_within_capacity(value, self.ticks) };
            read += 1;
        }
        all_read::<T, A>(&mut seq, read, len)?;
        Ok(())
    }
}

/// The values of one component of one archetype, one per entity.
pub(super) struct ColumnSeed<'a, T> {
    pub(super) column: &'a mut StagedComponent<T>,
    pub(super) start: u32,
    pub(super) len: u32,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for ColumnSeed<'_, T> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for ColumnSeed<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a sequence of {} values", self.len)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let len = self.len as usize;
        let values = self.column.values_mut();
        values.reserve(len);
        let before = values.len();
        let slots = values.as_mut_ptr();
        let mut filled = Filled {
            values,
            len: before,
        };
        let mut read = 0;
        while read < len {
            let Some(value) = seq.next_element::<T>()? else {
                break;
            };
            // SAFETY: `before + read < before + len`, within the capacity
            // reserved above (nothing reallocates the vector until `filled`
            // is dropped); the slot is written before the length covers it,
            // so a later error or panic drops exactly the values read.
            unsafe { slots.add(before + read).write(value) };
            read += 1;
            filled.len = before + read;
        }
        drop(filled);
        all_read::<T, A>(&mut seq, read, len)?;
        self.column.extend_rows(self.start, self.len);
        Ok(())
    }
}

/// Checks that a column's sequence held exactly `len` values once `read`
/// of them were read (and no more were asked for).
fn all_read<'de, T: DeserializeOwned, A: SeqAccess<'de>>(
    seq: &mut A,
    read: usize,
    len: usize,
) -> Result<(), A::Error> {
    if read == len && seq.next_element::<T>()?.is_some() {
        return Err(A::Error::custom(format_args!(
            "more than {len} values for {len} entities"
        )));
    }
    if read != len {
        return Err(A::Error::custom(format_args!(
            "{read} values for {len} entities"
        )));
    }
    Ok(())
}

/// Sets a vector's length to the values written into its spare capacity
/// when dropped, on success, error or panic alike: the length stays in a
/// register while the values are read.
struct Filled<'a, T> {
    values: &'a mut Vec<T>,
    len: usize,
}

impl<T> Drop for Filled<'_, T> {
    fn drop(&mut self) {
        // SAFETY: every slot below `len` is initialised (the writer counts
        // each value it writes) and within the capacity.
        unsafe { self.values.set_len(self.len) };
    }
}
