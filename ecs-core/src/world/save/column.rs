//! The column format: archetype by archetype, its entity ids, then one
//! sequence of values per saved component.

use std::{fmt, marker::PhantomData};

use serde::{
    de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor},
    ser::{SerializeSeq, SerializeStruct, SerializeTuple},
    Serialize, Serializer,
};

use super::{
    entity_from_bits, load_keyed,
    staging::{StagedComponent, Staging, Target},
    table_slice, ResourceValues, SaveList,
};
use crate::{archetype::Archetype, component::Component, entity::Entity, world::World};

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

/// One archetype: its entity ids, then a map key → values.
struct OneArchetype<'w, L> {
    list: &'w L,
    world: &'w World,
    archetype: &'w Archetype,
}

impl<L: SaveList> Serialize for OneArchetype<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(2)?;
        tuple.serialize_element(&Ids(self))?;
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

struct Columns<'a, 'w, L>(&'a OneArchetype<'w, L>);

impl<L: SaveList> Serialize for Columns<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let OneArchetype {
            list,
            world,
            archetype,
        } = *self.0;
        let mut map = serializer.serialize_map(Some(list.count_components(world, archetype)))?;
        list.serialize_archetype(world, archetype, &mut map)?;
        map.end()
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

/// Reads the column format into a staging.
pub(super) struct ColumnsSeed<'a, L> {
    pub(super) list: &'a L,
    pub(super) staging: &'a mut Staging,
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

    super::visit_top_level!("archetypes", ArchetypesSeed);
}

/// The sequence of archetypes.
struct ArchetypesSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
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

/// One archetype: its entity ids, then its columns.
struct ArchetypeSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ArchetypeSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(2, self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ArchetypeSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an archetype: its entity ids, then a map of its columns")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let start = self.staging.entities.len();
        seq.next_element_seed(IdsSeed(&mut self.staging.entities))
            .map_err(|e| A::Error::custom(format_args!("entity ids: {e}")))?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let too_many = || A::Error::custom("too many entities");
        let end = u32::try_from(self.staging.entities.len()).map_err(|_| too_many())?;
        let target = Target::Column {
            start: start as u32,
            len: end - start as u32,
        };
        let columns = ArchetypeColumns {
            list: self.list,
            staging: self.staging,
            target,
        };
        seq.next_element_seed(columns)?
            .ok_or_else(|| A::Error::custom("no column map"))
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

/// The map key → values of one archetype.
struct ArchetypeColumns<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
    target: Target,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for ArchetypeColumns<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for ArchetypeColumns<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of component key to values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.staging.next_scope();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            load_keyed(self.list, &key, &mut map, self.staging, self.target)?;
        }
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
        self.column.extend_rows(self.start, self.len);
        Ok(())
    }
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
