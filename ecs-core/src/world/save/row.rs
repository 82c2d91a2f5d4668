//! The row format: entity by entity, each its id and a map key → value.

use std::fmt;

use serde::{
    de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor},
    ser::{SerializeSeq, SerializeStruct, SerializeTuple},
    Serialize, Serializer,
};

use super::{
    entity_from_bits, staging::Staging, staging::Target, KeyedValues, ResourceValues, SaveList,
};
use crate::{archetype::Archetype, entity::Entity, world::World};

/// A world in the row format, made by
/// [`SaveRegistry::rows`](super::SaveRegistry::rows): hand it to any serde
/// serializer.
///
/// ```
/// # use ecs::prelude::*;
/// # use ecs::world::save::SaveRegistry;
/// let registry = SaveRegistry::new();
/// let world = World::new();
/// let rows = registry.rows(&world);
/// assert_eq!(serde_json::to_string(&rows).unwrap(), r#"{"resources":{},"entities":[],"allocator":[0,[]]}"#);
/// ```
pub struct SavedRows<'w, L> {
    list: &'w L,
    world: &'w World,
}

impl<'w, L: SaveList> SavedRows<'w, L> {
    pub(super) fn new(list: &'w L, world: &'w World) -> Self {
        SavedRows { list, world }
    }
}

impl<L> fmt::Debug for SavedRows<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SavedRows")
            .field("entities", &self.world.entity_count())
            .finish()
    }
}

impl<L: SaveList> Serialize for SavedRows<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut top = serializer.serialize_struct("World", 3)?;
        let resources = ResourceValues {
            list: self.list,
            world: self.world,
        };
        top.serialize_field("resources", &resources)?;
        top.serialize_field("entities", &Entities(self))?;
        top.serialize_field("allocator", &self.world.entities.saved_allocator())?;
        top.end()
    }
}

struct Entities<'a, 'w, L>(&'a SavedRows<'w, L>);

impl<L: SaveList> Serialize for Entities<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let SavedRows { list, world } = *self.0;
        let count = world.archetypes().iter().map(Archetype::len).sum();
        let mut seq = serializer.serialize_seq(Some(count))?;
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty()) {
            let rows = world
                .archetype_entities(archetype.id())
                .expect("a listed archetype");
            for row in rows {
                seq.serialize_element(&Row {
                    list,
                    world,
                    archetype,
                    entity: row.id(),
                })?;
            }
        }
        seq.end()
    }
}

/// One entity: its id, then its saved components.
struct Row<'w, L> {
    list: &'w L,
    world: &'w World,
    archetype: &'w Archetype,
    entity: Entity,
}

impl<L: SaveList> Serialize for Row<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(2)?;
        tuple.serialize_element(&self.entity.to_bits())?;
        tuple.serialize_element(&Components(self))?;
        tuple.end()
    }
}

struct Components<'a, 'w, L>(&'a Row<'w, L>);

impl<L: SaveList> Serialize for Components<'_, '_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let row = self.0;
        let len = row.list.count_components(row.world, row.archetype);
        let mut map = serializer.serialize_map(Some(len))?;
        row.list
            .serialize_entity(row.world, row.archetype, row.entity, &mut map)?;
        map.end()
    }
}

/// Reads the row format into a staging.
pub(super) struct RowsSeed<'a, L> {
    pub(super) list: &'a L,
    pub(super) staging: &'a mut Staging,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for RowsSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_struct("World", &["resources", "entities", "allocator"], self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for RowsSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a world in the row format: resources, entities, then the allocator")
    }

    super::visit_top_level!("entities");
}

impl<L> RowsSeed<'_, L> {
    fn second(&mut self) -> EntitiesSeed<'_, L> {
        EntitiesSeed {
            list: self.list,
            staging: &mut *self.staging,
        }
    }
}

/// The sequence of entities.
struct EntitiesSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for EntitiesSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for EntitiesSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of entities")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // A hint is only a hint: capped, so a corrupt length reserves at
        // most 8 MiB before the entities are read.
        if let Some(hint) = seq.size_hint() {
            self.staging.entities.reserve(hint.min(1 << 20));
        }
        loop {
            let position = self.staging.entities.len();
            let seed = RowSeed {
                list: self.list,
                staging: self.staging,
            };
            match seq.next_element_seed(seed) {
                Ok(Some(())) => {}
                Ok(None) => return Ok(()),
                Err(e) => return Err(A::Error::custom(format_args!("entity #{position}: {e}"))),
            }
        }
    }
}

/// One entity: its id, then the map of its components.
struct RowSeed<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for RowSeed<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(2, self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for RowSeed<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity: its id, then a map of its components")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let bits = seq
            .next_element::<u64>()?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let entity = entity_from_bits(bits)?;
        let row = u32::try_from(self.staging.entities.len())
            .map_err(|_| A::Error::custom("too many entities"))?;
        self.staging.entities.push(entity);
        let components = KeyedValues {
            list: self.list,
            staging: self.staging,
            target: Target::Entity(row),
        };
        let read = seq.next_element_seed(components);
        match read {
            Ok(Some(())) => Ok(()),
            Ok(None) => Err(A::Error::custom(format_args!(
                "id {entity:?}: no component map"
            ))),
            Err(e) => Err(A::Error::custom(format_args!("id {entity:?}: {e}"))),
        }
    }
}
