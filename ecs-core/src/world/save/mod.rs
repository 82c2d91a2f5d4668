//! Saving a world to any serde format and loading it back (the `serde`
//! feature).
//!
//! A [`SaveRegistry`] names what is saved: components and resources, each
//! under a stable string key. It writes a world in one of two shapes, and
//! reads them back:
//!
//! ```text
//!  rows     (readable)   resources: { key: value, .. }
//!                        entities:  [ (id, { key: value, .. }), .. ]
//!                        allocator: (slots, [(free index, generation), ..])
//!
//!  columns  (fast)       resources:  { key: value, .. }
//!                        archetypes: [ ([id, ..], [key, ..], ([value, ..], ..)), .. ]
//!                        allocator:  (slots, [(free index, generation), ..])
//! ```
//!
//! An id is [`Entity::to_bits`]. Every entity is saved, also one with no
//! saved component, so that a load gives back the same set of entities.
//!
//! # Loading
//! A load parses the whole input into values of their own first; a format
//! error, an unknown key or a panicking `Deserialize` drops those and
//! leaves the world as it was. Only then are the entities made and the
//! values inserted, as [`World::insert_batch`] inserts them (hooks and
//! observers of the inserted components run).
//!
//! Into a world with no entities, every entity keeps its saved id (index
//! and generation), unless one of them is of a generation this world has
//! already handed out and retired at that index (a stale handle would then
//! name it): then each gets a fresh id. Into a fresh world (one that never had an entity), the
//! allocator comes back as saved too: the entities spawned after the load
//! get the ids they would have got in the saved world, so a deterministic
//! program carries on exactly, and references inside components are left
//! as they are (the `allocator` field may be left out of a hand-written
//! input; then only the saved ids are kept, and no index may be more than
//! 2^20 past the number of saved entities). Into any other world, each
//! saved entity gets a fresh one. Either way the load returns
//! [`LoadedEntities`], each saved id with the entity it became, and unless
//! the allocator came back, the components registered with
//! [`SaveRegistry::mapped_component`] have their entity references
//! remapped through it; a reference to an entity that was not saved
//! becomes a dead handle that never names a live entity (as
//! [`SceneEntityMapper`] does).
//!
//! When a hook or observer of a loaded component despawns a loaded entity,
//! the values the load had not yet inserted on it are dropped.
//!
//! # Keys
//! The default key is [`std::any::type_name`], which names the type with
//! its module path. It is not promised to stay the same across compiler
//! versions or a move of the type: give files kept long a key of their own
//! with the `_with_key` forms.

mod column;
mod place;
mod row;

use std::{
    any::{Any, TypeId},
    borrow::Cow,
    marker::PhantomData,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    sync::OnceLock,
};

use serde::{
    de::{
        DeserializeOwned, DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
    },
    ser::{SerializeMap, SerializeSeq, SerializeTuple},
    Serialize, Serializer,
};

pub use column::SavedColumns;
pub use row::SavedRows;

use super::World;
use crate::{
    archetype::Archetype,
    change_detection::ComponentTicks,
    component::{Component, ComponentId, StorageType},
    entity::{
        Entity, EntityHashMap, EntityHashSet, EntityLocation, EntityMapper, MapEntities,
        SceneEntityMapper,
    },
    resource::Resource,
    utils::DropPanics,
};
use staging::{ColumnDest, Staged, StagedComponent, StagedResource, Staging, Target};

/// What a world save holds: components and resources, each under a key,
/// built by chaining registrations.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::world::save::SaveRegistry;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
/// struct Health(u32);
/// #[derive(Resource, Serialize, Deserialize)]
/// struct Round(u32);
///
/// let registry = SaveRegistry::new()
///     .component_with_key::<Health>("health")
///     .resource_with_key::<Round>("round");
///
/// let mut world = World::new();
/// let e = world.spawn(Health(7)).id();
/// world.insert_resource(Round(3));
/// let text = serde_json::to_string(&registry.rows(&world)).unwrap();
///
/// let mut loaded = World::new();
/// let mut input = serde_json::Deserializer::from_str(&text);
/// let map = registry.load_rows(&mut loaded, &mut input).unwrap();
/// assert_eq!(map[&e], e, "an empty world keeps the saved ids");
/// assert_eq!(loaded.get::<Health>(e), Some(&Health(7)));
/// assert_eq!(loaded.resource::<Round>().0, 3);
/// ```
#[derive(Debug, Clone)]
pub struct SaveRegistry<L = ()> {
    list: L,
}

impl SaveRegistry {
    /// A registry that saves nothing yet.
    ///
    /// ```
    /// # use ecs::world::save::SaveRegistry;
    /// let registry = SaveRegistry::new();
    /// # let _ = registry;
    /// ```
    pub fn new() -> Self {
        SaveRegistry { list: () }
    }
}

impl Default for SaveRegistry {
    fn default() -> Self {
        Self::new()
    }
}

/// A component in a [`SaveRegistry`]: its key, and how its entity
/// references are remapped, if they are.
pub struct SavedComponent<T> {
    key: Cow<'static, str>,
    map: Option<fn(&mut T, &mut dyn EntityMapper)>,
}

/// A resource in a [`SaveRegistry`], with its key.
pub struct SavedResource<R> {
    key: Cow<'static, str>,
    _type: PhantomData<fn() -> R>,
}

impl<T> Clone for SavedComponent<T> {
    fn clone(&self) -> Self {
        SavedComponent {
            key: self.key.clone(),
            map: self.map,
        }
    }
}

impl<R> Clone for SavedResource<R> {
    fn clone(&self) -> Self {
        SavedResource {
            key: self.key.clone(),
            _type: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for SavedComponent<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.key, std::any::type_name::<T>())
    }
}

impl<R> std::fmt::Debug for SavedResource<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.key, std::any::type_name::<R>())
    }
}

fn map_value<T: MapEntities>(value: &mut T, mut mapper: &mut dyn EntityMapper) {
    value.map_entities(&mut mapper);
}

impl<L: SaveList> SaveRegistry<L> {
    #[track_caller]
    fn check_new<T: 'static>(&self, key: &str) {
        if let Some(clash) = self.list.clash(key, TypeId::of::<T>()) {
            panic!(
                "SaveRegistry: `{}` under key `{key}` clashes with {clash} already registered",
                std::any::type_name::<T>()
            );
        }
    }

    /// Saves the component `T` under its type name (see the module docs on
    /// keys).
    ///
    /// # Panics
    /// If `T` or its key is already registered.
    #[track_caller]
    pub fn component<T: Component + Serialize + DeserializeOwned>(
        self,
    ) -> SaveRegistry<(SavedComponent<T>, L)> {
        self.component_with_key::<T>(std::any::type_name::<T>())
    }

    /// Saves the component `T` under `key`.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Component, serde::Serialize, serde::Deserialize)]
    /// struct Position(f32, f32);
    ///
    /// let registry = SaveRegistry::new().component_with_key::<Position>("pos");
    /// let mut world = World::new();
    /// world.spawn(Position(1.0, 2.0));
    /// let text = serde_json::to_string(&registry.rows(&world)).unwrap();
    /// assert!(text.contains(r#""pos":[1.0,2.0]"#), "{text}");
    /// ```
    ///
    /// # Panics
    /// If `T` or `key` is already registered.
    #[track_caller]
    pub fn component_with_key<T: Component + Serialize + DeserializeOwned>(
        self,
        key: impl Into<Cow<'static, str>>,
    ) -> SaveRegistry<(SavedComponent<T>, L)> {
        let key = key.into();
        self.check_new::<T>(&key);
        let entry = SavedComponent { key, map: None };
        SaveRegistry {
            list: (entry, self.list),
        }
    }

    /// Saves the component `T`, whose entity references are remapped on
    /// load through [`MapEntities`], under its type name.
    ///
    /// # Panics
    /// If `T` or its key is already registered.
    #[track_caller]
    pub fn mapped_component<T: Component + MapEntities + Serialize + DeserializeOwned>(
        self,
    ) -> SaveRegistry<(SavedComponent<T>, L)> {
        self.mapped_component_with_key::<T>(std::any::type_name::<T>())
    }

    /// [`SaveRegistry::mapped_component`] under `key`.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::entity::MapEntities;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Component, MapEntities, serde::Serialize, serde::Deserialize)]
    /// struct Follows(#[entities] Entity);
    ///
    /// let registry = SaveRegistry::new().mapped_component_with_key::<Follows>("follows");
    /// let mut world = World::new();
    /// let leader = world.spawn_empty().id();
    /// let follower = world.spawn(Follows(leader)).id();
    /// let text = serde_json::to_string(&registry.rows(&world)).unwrap();
    ///
    /// let mut other = World::new();
    /// other.spawn_empty();
    /// let mut input = serde_json::Deserializer::from_str(&text);
    /// let map = registry.load_rows(&mut other, &mut input).unwrap();
    /// assert_eq!(other.get::<Follows>(map[&follower]).unwrap().0, map[&leader]);
    /// ```
    ///
    /// # Panics
    /// If `T` or `key` is already registered.
    #[track_caller]
    pub fn mapped_component_with_key<T: Component + MapEntities + Serialize + DeserializeOwned>(
        self,
        key: impl Into<Cow<'static, str>>,
    ) -> SaveRegistry<(SavedComponent<T>, L)> {
        let key = key.into();
        self.check_new::<T>(&key);
        let entry = SavedComponent {
            key,
            map: Some(map_value::<T>),
        };
        SaveRegistry {
            list: (entry, self.list),
        }
    }

    /// Saves the resource `R`, when present, under its type name.
    ///
    /// # Panics
    /// If `R` or its key is already registered.
    #[track_caller]
    pub fn resource<R: Resource + Serialize + DeserializeOwned>(
        self,
    ) -> SaveRegistry<(SavedResource<R>, L)> {
        self.resource_with_key::<R>(std::any::type_name::<R>())
    }

    /// Saves the resource `R`, when present, under `key`. A load inserts
    /// it, replacing the value the world has.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Resource, serde::Serialize, serde::Deserialize)]
    /// struct Seed(u64);
    ///
    /// let registry = SaveRegistry::new().resource_with_key::<Seed>("seed");
    /// let mut world = World::new();
    /// world.insert_resource(Seed(42));
    /// let text = serde_json::to_string(&registry.columns(&world)).unwrap();
    /// let mut other = World::new();
    /// let mut input = serde_json::Deserializer::from_str(&text);
    /// registry.load_columns(&mut other, &mut input).unwrap();
    /// assert_eq!(other.resource::<Seed>().0, 42);
    /// ```
    ///
    /// # Panics
    /// If `R` or `key` is already registered.
    #[track_caller]
    pub fn resource_with_key<R: Resource + Serialize + DeserializeOwned>(
        self,
        key: impl Into<Cow<'static, str>>,
    ) -> SaveRegistry<(SavedResource<R>, L)> {
        let key = key.into();
        self.check_new::<R>(&key);
        let entry = SavedResource {
            key,
            _type: PhantomData,
        };
        SaveRegistry {
            list: (entry, self.list),
        }
    }

    /// The world in the row format, as a value to hand to any serde
    /// serializer.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Component, serde::Serialize, serde::Deserialize)]
    /// struct Score(u32);
    ///
    /// let registry = SaveRegistry::new().component_with_key::<Score>("score");
    /// let mut world = World::new();
    /// let e = world.spawn(Score(5)).id();
    /// let text = serde_json::to_string(&registry.rows(&world)).unwrap();
    /// assert_eq!(
    ///     text,
    ///     format!(
    ///         r#"{{"resources":{{}},"entities":[[{},{{"score":5}}]],"allocator":[1,[]]}}"#,
    ///         e.to_bits()
    ///     )
    /// );
    /// ```
    pub fn rows<'w>(&'w self, world: &'w World) -> SavedRows<'w, L> {
        SavedRows::new(&self.list, world)
    }

    /// The world in the column format, as a value to hand to any serde
    /// serializer.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Component, serde::Serialize, serde::Deserialize)]
    /// struct Score(u32);
    ///
    /// let registry = SaveRegistry::new().component_with_key::<Score>("score");
    /// let mut world = World::new();
    /// let a = world.spawn(Score(5)).id();
    /// let b = world.spawn(Score(6)).id();
    /// let text = serde_json::to_string(&registry.columns(&world)).unwrap();
    /// assert_eq!(
    ///     text,
    ///     format!(
    ///         r#"{{"resources":{{}},"archetypes":[[[{},{}],["score"],[[5,6]]]],"allocator":[2,[]]}}"#,
    ///         a.to_bits(),
    ///         b.to_bits()
    ///     )
    /// );
    /// ```
    pub fn columns<'w>(&'w self, world: &'w World) -> SavedColumns<'w, L> {
        SavedColumns::new(&self.list, world)
    }

    /// Loads a save in the row format into `world` and returns what became
    /// of each saved entity (see the module docs). A key that is not
    /// registered is an error.
    ///
    /// # Errors
    /// The deserializer's error, naming the entity (its position in the
    /// input) and the component key where the input went wrong. Then the
    /// world is unchanged.
    ///
    /// # Panics
    /// If a `Deserialize` panics (the world is unchanged), or a hook or
    /// observer of an inserted component does (the load completes first).
    pub fn load_rows<'de, D: serde::Deserializer<'de>>(
        &self,
        world: &mut World,
        deserializer: D,
    ) -> Result<LoadedEntities, D::Error> {
        self.load_rows_with(world, deserializer, LoadOptions::default())
    }

    /// [`SaveRegistry::load_rows`] with options.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::{LoadOptions, SaveRegistry};
    /// #[derive(Component, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    /// struct Score(u32);
    ///
    /// let saved = Entity::from_raw(0);
    /// let text = format!(
    ///     r#"{{"resources":{{}},"entities":[[{},{{"score":5,"gone":[1,2]}}]]}}"#,
    ///     saved.to_bits()
    /// );
    /// let registry = SaveRegistry::new().component_with_key::<Score>("score");
    /// let mut world = World::new();
    /// let error = registry
    ///     .load_rows(&mut world, &mut serde_json::Deserializer::from_str(&text))
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("`gone`"), "{error}");
    /// let options = LoadOptions::default().skip_unknown_keys(true);
    /// let map = registry
    ///     .load_rows_with(&mut world, &mut serde_json::Deserializer::from_str(&text), options)
    ///     .unwrap();
    /// assert_eq!(world.get::<Score>(map[&saved]), Some(&Score(5)));
    /// ```
    ///
    /// # Errors
    /// As [`SaveRegistry::load_rows`].
    pub fn load_rows_with<'de, D: serde::Deserializer<'de>>(
        &self,
        world: &mut World,
        deserializer: D,
        options: LoadOptions,
    ) -> Result<LoadedEntities, D::Error> {
        // Commands queued before the load run first, as the load's commit
        // would run them: the values are stamped with the tick after them.
        world.flush();
        let mut staging = Staging::new(&self.list, options, world.change_tick());
        row::RowsSeed {
            list: &self.list,
            staging: &mut staging,
        }
        .deserialize(deserializer)?;
        commit(world, staging)
    }

    /// Loads a save in the column format into `world` and returns what
    /// became of each saved entity (see the module docs). A key that is
    /// not registered is an error.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::SaveRegistry;
    /// #[derive(Component, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    /// struct Score(u32);
    ///
    /// let registry = SaveRegistry::new().component::<Score>();
    /// let mut world = World::new();
    /// let e = world.spawn(Score(1)).id();
    /// let text = serde_json::to_string(&registry.columns(&world)).unwrap();
    /// let map = registry
    ///     .load_columns(&mut world, &mut serde_json::Deserializer::from_str(&text))
    ///     .unwrap();
    /// assert_ne!(map[&e], e, "a world with entities gives fresh ids");
    /// assert_eq!(world.get::<Score>(map[&e]), Some(&Score(1)));
    /// ```
    ///
    /// # Errors
    /// The deserializer's error, naming the archetype (its position in the
    /// input) and the component key where the input went wrong. Then the
    /// world is unchanged.
    ///
    /// # Panics
    /// As [`SaveRegistry::load_rows`].
    pub fn load_columns<'de, D: serde::Deserializer<'de>>(
        &self,
        world: &mut World,
        deserializer: D,
    ) -> Result<LoadedEntities, D::Error> {
        self.load_columns_with(world, deserializer, LoadOptions::default())
    }

    /// [`SaveRegistry::load_columns`] with options.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// # use ecs::world::save::{LoadOptions, SaveRegistry};
    /// let text = r#"{"resources":{"old":1},"archetypes":[]}"#;
    /// let registry = SaveRegistry::new();
    /// let mut world = World::new();
    /// let options = LoadOptions::default().skip_unknown_keys(true);
    /// let input = &mut serde_json::Deserializer::from_str(text);
    /// assert!(registry.load_columns_with(&mut world, input, options).is_ok());
    /// ```
    ///
    /// # Errors
    /// As [`SaveRegistry::load_columns`].
    pub fn load_columns_with<'de, D: serde::Deserializer<'de>>(
        &self,
        world: &mut World,
        deserializer: D,
        options: LoadOptions,
    ) -> Result<LoadedEntities, D::Error> {
        // Commands queued before the load run first, as the load's commit
        // would run them: the values read straight into staged tables are
        // stamped with the tick after them.
        world.flush();
        let mut staging = Staging::new(&self.list, options, world.change_tick());
        column::ColumnsSeed {
            list: &self.list,
            staging: &mut staging,
            world: &mut *world,
        }
        .deserialize(deserializer)?;
        commit(world, staging)
    }
}

/// What a load did with the saved entities: each saved id and the entity
/// it became, in the order they were loaded.
///
/// Into a world with no entities every saved id is kept
/// ([`LoadedEntities::ids_kept`]) if none is of a generation the world
/// retired at its index; otherwise each saved entity got a fresh id. The map saved id → new id ([`LoadedEntities::map`], also what
/// `loaded[&saved]` and [`LoadedEntities::get`] read) is built on its
/// first use, so a load whose caller never asks costs no map.
///
/// ```
/// # use ecs::prelude::*;
/// # use ecs::world::save::SaveRegistry;
/// #[derive(Component, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Score(u32);
///
/// let registry = SaveRegistry::new().component::<Score>();
/// let mut source = World::new();
/// let e = source.spawn(Score(3)).id();
/// let text = serde_json::to_string(&registry.columns(&source)).unwrap();
///
/// let mut world = World::new();
/// world.spawn_empty();
/// let loaded = registry
///     .load_columns(&mut world, &mut serde_json::Deserializer::from_str(&text))
///     .unwrap();
/// assert!(!loaded.ids_kept());
/// assert_eq!(loaded.len(), 1);
/// let new = loaded[&e];
/// assert_eq!(loaded.get(e), Some(new));
/// assert_eq!(loaded.iter().collect::<Vec<_>>(), vec![(e, new)]);
/// assert_eq!(world.get::<Score>(new), Some(&Score(3)));
/// ```
#[derive(Clone)]
pub struct LoadedEntities {
    /// The saved ids, in load order.
    saved: Vec<Entity>,
    /// The new id of each, `None` when every saved id was kept.
    new: Option<Vec<Entity>>,
    /// Saved id → new id, built on first use.
    map: OnceLock<EntityHashMap<Entity>>,
}

impl LoadedEntities {
    /// The number of entities loaded.
    pub fn len(&self) -> usize {
        self.saved.len()
    }

    /// Whether the load had no entity.
    pub fn is_empty(&self) -> bool {
        self.saved.is_empty()
    }

    /// Whether every entity kept its saved id (a load into a world with no
    /// entities, none of whose retired ids it names).
    pub fn ids_kept(&self) -> bool {
        self.new.is_none()
    }

    /// Each saved id and the entity it became, in load order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Entity, Entity)> + '_ {
        let new = self.new.as_deref().unwrap_or(&self.saved);
        self.saved.iter().copied().zip(new.iter().copied())
    }

    /// The entity the saved id `saved` became, `None` if it was not saved.
    pub fn get(&self, saved: Entity) -> Option<Entity> {
        self.map().get(&saved).copied()
    }

    /// The map saved id → new id, built on the first call.
    pub fn map(&self) -> &EntityHashMap<Entity> {
        self.map.get_or_init(|| {
            let mut map = EntityHashMap::default();
            map.reserve(self.saved.len());
            for (saved, new) in self.iter() {
                // SAFETY: a load refuses a save naming an entity twice, so
                // the saved ids are distinct and no key is in the map yet.
                unsafe { map.insert_unique_unchecked(saved, new) };
            }
            map
        })
    }

    /// The map saved id → new id, as [`LoadedEntities::map`] gives it.
    pub fn into_map(self) -> EntityHashMap<Entity> {
        self.map();
        self.map.into_inner().unwrap_or_default()
    }
}

impl std::ops::Index<&Entity> for LoadedEntities {
    type Output = Entity;

    /// # Panics
    /// If `saved` was not one of the loaded entities, naming it.
    #[track_caller]
    fn index(&self, saved: &Entity) -> &Entity {
        match self.map().get(saved) {
            Some(new) => new,
            None => panic!("entity {saved} was not in the loaded save"),
        }
    }
}

impl PartialEq for LoadedEntities {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for LoadedEntities {}

impl std::fmt::Debug for LoadedEntities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl From<LoadedEntities> for EntityHashMap<Entity> {
    fn from(loaded: LoadedEntities) -> Self {
        loaded.into_map()
    }
}

/// How a load treats what it does not know.
///
/// ```
/// # use ecs::world::save::LoadOptions;
/// let options = LoadOptions::default().skip_unknown_keys(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    skip_unknown_keys: bool,
}

impl LoadOptions {
    /// Whether a component or resource key that the registry does not know
    /// is skipped (its value read and dropped) rather than an error. Off by
    /// default. Skipping needs a self-describing format (JSON, RON, ...):
    /// a compact binary one cannot skip a value of unknown type.
    pub fn skip_unknown_keys(mut self, skip: bool) -> Self {
        self.skip_unknown_keys = skip;
        self
    }
}

/// Makes the staged entities, remaps their references and inserts the
/// staged values.
fn commit<E: serde::de::Error>(world: &mut World, staging: Staging) -> Result<LoadedEntities, E> {
    world.flush();
    debug_assert_eq!(world.change_tick(), staging.tick, "the load's tick");
    let Staging {
        entities: saved,
        mut columns,
        mut tables,
        allocator,
        ..
    } = staging;
    let count = u32::try_from(saved.len()).map_err(|_| E::custom("too many entities"))?;
    let tick = world.change_tick();
    let saved_slots = allocator.as_ref().map(|&(slots, _)| slots);
    let restored = allocator.is_some() && world.entities.is_fresh();
    // The allocator refuses an index named twice; the error then names the
    // entity saved twice, if that is what went wrong.
    let fresh_ids: Option<Vec<Entity>> =
        if let Some((slots, free)) = allocator.filter(|_| world.entities.is_fresh()) {
            world
                .entities
                .restore_saved_allocator(slots, &free, &saved, tick)
                .map_err(|message| {
                    saved_twice(&saved)
                        .unwrap_or_else(|| E::custom(format_args!("allocator: {message}")))
                })?;
            None
        } else if world.entities.is_empty() && world.entities.generations_allow(&saved) {
            // Kept only where no stale handle of this world could name a
            // loaded entity. Each index below the largest kept one gets a
            // slot: a corrupt index must not make room for billions.
            if let Some(error) = index_out_of_range(&saved, saved_slots) {
                return Err(error);
            }
            world.entities.reserve_at(&saved).map_err(|e| {
                saved_twice(&saved)
                    .unwrap_or_else(|| E::custom(format_args!("entity id {e:?} is in use")))
            })?;
            None
        } else {
            if let Some(error) = saved_twice(&saved) {
                return Err(error);
            }
            Some(world.entities.reserve_entities(count).collect())
        };
    let kept = fresh_ids.is_none();
    let ids: &[Entity] = fresh_ids.as_deref().unwrap_or(&saved);
    // References are remapped unless the saved allocator came back: kept
    // ids then name what they named when saved, and a reference to an
    // entity that was not saved is dead in the restored allocator too.
    // Otherwise such a reference becomes a dead handle (and a saved one
    // names its new entity).
    let remap = !restored
        && (columns.iter().any(|c| c.maps_entities())
            || tables
                .iter()
                .any(|t| t.entries.iter().any(|&e| columns[e].has_mapper())));
    // A staged table's rows name the saved ids, and its values are not
    // remapped: fresh ids, or references to remap, take the way of the
    // other values.
    if (!kept || remap) && !tables.is_empty() {
        staging::destage(&mut columns, std::mem::take(&mut tables));
    }
    // Live, but not anywhere until placed below (a reserved index's
    // location is already the invalid one): nothing reads the world in
    // between (the mapping sees only the mapper).
    world.entities.flush(tick, |_, location| {
        debug_assert_eq!(location.archetype_id, EntityLocation::INVALID.archetype_id);
    });
    if remap {
        let mut scratch = EntityHashMap::<Entity>::default();
        scratch.extend(saved.iter().copied().zip(ids.iter().copied()));
        let mapped = catch_unwind(AssertUnwindSafe(|| {
            SceneEntityMapper::world_scope(&mut scratch, world, |_, mapper| {
                for column in &mut columns {
                    column.map_entities(mapper);
                }
            });
        }));
        if let Err(payload) = mapped {
            // The new entities have no component yet: despawning them runs
            // no user code.
            place::locate_in_empty(world, ids);
            for &entity in ids {
                world.despawn(entity);
            }
            resume_unwind(payload);
        }
    }
    // Archetype by archetype when nothing could tell that apart from
    // inserting component by component; the resources (and, otherwise,
    // the components) are committed in the registry's order.
    // Registering the components and working out what they require run
    // user code: if it panics, the new entities, which are nowhere yet,
    // are given up (they have no component, so despawning them runs none).
    let plan = catch_unwind(AssertUnwindSafe(|| {
        place::plan(world, &columns, &tables, ids)
    }));
    match plan {
        Ok(Some(plan)) => place::apply(world, plan, &mut columns, &mut tables, ids),
        Ok(None) => {
            place::locate_in_empty(world, ids);
            staging::destage(&mut columns, tables);
        }
        Err(payload) => {
            place::locate_in_empty(world, ids);
            for &entity in ids {
                world.despawn(entity);
            }
            resume_unwind(payload);
        }
    }
    // A hook's or observer's panic stops no other column: the load is
    // whole, then the panic goes on.
    let mut panics = DropPanics::default();
    for column in columns {
        panics.catch(|| column.commit(world, ids));
    }
    panics.finish();
    Ok(LoadedEntities {
        saved,
        new: fresh_ids,
        map: OnceLock::new(),
    })
}

/// The furthest a kept index may be past the saved entities' count, in a
/// save without an allocator (which would give the slot count).
const INDEX_SLACK: usize = 1 << 20;

/// The error naming the first saved entity whose index is beyond what the
/// save can name: the allocator's slot count, or without one the count of
/// saved entities plus [`INDEX_SLACK`].
fn index_out_of_range<E: serde::de::Error>(saved: &[Entity], slots: Option<u32>) -> Option<E> {
    let limit = slots.map_or(saved.len().saturating_add(INDEX_SLACK), |slots| {
        slots as usize
    });
    let position = saved
        .iter()
        .position(|entity| entity.index() as usize >= limit)?;
    let entity = saved[position];
    Some(E::custom(match slots {
        Some(slots) => format!(
            "entity #{position}: id {entity:?} has index {}, past the allocator's {slots} slots",
            entity.index()
        ),
        None => format!(
            "entity #{position}: id {entity:?} has index {}, too far past the {} saved entities \
             for a save without an allocator (at most {INDEX_SLACK} past them)",
            entity.index(),
            saved.len()
        ),
    }))
}

/// The error naming the first entity saved twice, if one is.
fn saved_twice<E: serde::de::Error>(saved: &[Entity]) -> Option<E> {
    let mut seen = EntityHashSet::default();
    seen.reserve(saved.len());
    let position = saved.iter().position(|&entity| !seen.insert(entity))?;
    Some(E::custom(format_args!(
        "entity #{position}: id {:?} is saved twice",
        saved[position]
    )))
}

/// The list of entries of a [`SaveRegistry`], built by its registration
/// methods: `()` for none, `(entry, rest)` for more. Its methods are the
/// registry's internals.
pub trait SaveList: Send + Sync + 'static {
    #[doc(hidden)]
    const LEN: usize;

    #[doc(hidden)]
    fn clash(&self, key: &str, type_id: TypeId) -> Option<String>;

    #[doc(hidden)]
    fn stage(&self, columns: &mut Vec<Box<dyn Staged>>);

    #[doc(hidden)]
    fn count_components(&self, world: &World, archetype: &Archetype) -> usize;

    #[doc(hidden)]
    fn serialize_entity<M: SerializeMap>(
        &self,
        world: &World,
        archetype: &Archetype,
        entity: Entity,
        map: &mut M,
    ) -> Result<(), M::Error>;

    /// The keys of the components `archetype` has, in the order of
    /// [`SaveList::serialize_columns`].
    #[doc(hidden)]
    fn serialize_keys<S: SerializeSeq>(
        &self,
        world: &World,
        archetype: &Archetype,
        seq: &mut S,
    ) -> Result<(), S::Error>;

    /// The values of each component `archetype` has, one sequence per
    /// component.
    #[doc(hidden)]
    fn serialize_columns<S: SerializeTuple>(
        &self,
        world: &World,
        archetype: &Archetype,
        tuple: &mut S,
    ) -> Result<(), S::Error>;

    /// The entry of the component saved under `key` (its position among
    /// the staged entries), its id (registering it) and its storage.
    #[doc(hidden)]
    fn component_entry(
        &self,
        key: &str,
        world: &mut World,
    ) -> Option<(usize, ComponentId, StorageType)>;

    /// Reads the next element of `seq`, the values of the component entry
    /// at position `entry`, to `dest`; `Ok(None)` when `seq` has no more.
    #[doc(hidden)]
    fn load_column<'de, A: SeqAccess<'de>>(
        &self,
        entry: usize,
        seq: &mut A,
        staging: &mut Staging,
        dest: ColumnDest,
    ) -> Result<Option<()>, A::Error>;

    #[doc(hidden)]
    fn count_resources(&self, world: &World) -> usize;

    #[doc(hidden)]
    fn serialize_resources<M: SerializeMap>(
        &self,
        world: &World,
        map: &mut M,
    ) -> Result<(), M::Error>;

    /// Reads the value under `key` into the staging; `Ok(false)` when no
    /// entry of the kind `target` asks for has that key.
    #[doc(hidden)]
    fn load_value<'de, A: MapAccess<'de>>(
        &self,
        key: &str,
        access: &mut A,
        staging: &mut Staging,
        target: Target,
    ) -> Result<bool, A::Error>;
}

impl SaveList for () {
    const LEN: usize = 0;

    fn clash(&self, _key: &str, _type_id: TypeId) -> Option<String> {
        None
    }

    fn stage(&self, _columns: &mut Vec<Box<dyn Staged>>) {}

    fn count_components(&self, _world: &World, _archetype: &Archetype) -> usize {
        0
    }

    fn serialize_entity<M: SerializeMap>(
        &self,
        _world: &World,
        _archetype: &Archetype,
        _entity: Entity,
        _map: &mut M,
    ) -> Result<(), M::Error> {
        Ok(())
    }

    fn serialize_keys<S: SerializeSeq>(
        &self,
        _world: &World,
        _archetype: &Archetype,
        _seq: &mut S,
    ) -> Result<(), S::Error> {
        Ok(())
    }

    fn serialize_columns<S: SerializeTuple>(
        &self,
        _world: &World,
        _archetype: &Archetype,
        _tuple: &mut S,
    ) -> Result<(), S::Error> {
        Ok(())
    }

    fn component_entry(
        &self,
        _key: &str,
        _world: &mut World,
    ) -> Option<(usize, ComponentId, StorageType)> {
        None
    }

    fn load_column<'de, A: SeqAccess<'de>>(
        &self,
        entry: usize,
        _seq: &mut A,
        _staging: &mut Staging,
        _dest: ColumnDest,
    ) -> Result<Option<()>, A::Error> {
        unreachable!("entry {entry} is not a component entry")
    }

    fn count_resources(&self, _world: &World) -> usize {
        0
    }

    fn serialize_resources<M: SerializeMap>(
        &self,
        _world: &World,
        _map: &mut M,
    ) -> Result<(), M::Error> {
        Ok(())
    }

    fn load_value<'de, A: MapAccess<'de>>(
        &self,
        _key: &str,
        _access: &mut A,
        _staging: &mut Staging,
        _target: Target,
    ) -> Result<bool, A::Error> {
        Ok(false)
    }
}

/// Whether an archetype holds `T`, looked up without registering it.
fn saved_in<T: Component>(world: &World, archetype: &Archetype) -> bool {
    world
        .component_id::<T>()
        .is_some_and(|id| archetype.contains(id))
}

/// The values of `T` of an archetype that owns its table, in entity
/// order; `None` when they are not one slice.
fn table_slice<'w, T: Component>(world: &'w World, archetype: &Archetype) -> Option<&'w [T]> {
    if T::STORAGE_TYPE != StorageType::Table || !archetype.owns_table() {
        return None;
    }
    let id = world.component_id::<T>()?;
    let table = world.storages.tables.get(archetype.table_id())?;
    let column = table.get_column(id)?;
    debug_assert_eq!(column.len(), table.entity_count());
    // SAFETY: the column holds the values of `T`'s component id, so of
    // type `T`, initialised and aligned for each of the table's rows; the
    // slice borrows the world, which cannot change while it lives.
    Some(unsafe { std::slice::from_raw_parts(column.data_ptr().cast::<T>(), table.entity_count()) })
}

impl<T: Component + Serialize + DeserializeOwned, L: SaveList> SaveList for (SavedComponent<T>, L) {
    const LEN: usize = L::LEN + 1;

    fn clash(&self, key: &str, type_id: TypeId) -> Option<String> {
        if self.0.key == key || TypeId::of::<T>() == type_id {
            return Some(format!("{:?}", self.0));
        }
        self.1.clash(key, type_id)
    }

    fn stage(&self, columns: &mut Vec<Box<dyn Staged>>) {
        self.1.stage(columns);
        columns.push(Box::new(StagedComponent::<T>::new(self.0.map)));
    }

    fn count_components(&self, world: &World, archetype: &Archetype) -> usize {
        usize::from(saved_in::<T>(world, archetype)) + self.1.count_components(world, archetype)
    }

    fn serialize_entity<M: SerializeMap>(
        &self,
        world: &World,
        archetype: &Archetype,
        entity: Entity,
        map: &mut M,
    ) -> Result<(), M::Error> {
        self.1.serialize_entity(world, archetype, entity, map)?;
        if saved_in::<T>(world, archetype) {
            let value = world.get::<T>(entity).expect("the archetype holds it");
            map.serialize_entry(&*self.0.key, value)?;
        }
        Ok(())
    }

    fn serialize_keys<S: SerializeSeq>(
        &self,
        world: &World,
        archetype: &Archetype,
        seq: &mut S,
    ) -> Result<(), S::Error> {
        self.1.serialize_keys(world, archetype, seq)?;
        if saved_in::<T>(world, archetype) {
            seq.serialize_element(&*self.0.key)?;
        }
        Ok(())
    }

    fn serialize_columns<S: SerializeTuple>(
        &self,
        world: &World,
        archetype: &Archetype,
        tuple: &mut S,
    ) -> Result<(), S::Error> {
        self.1.serialize_columns(world, archetype, tuple)?;
        if saved_in::<T>(world, archetype) {
            tuple.serialize_element(&column::ColumnValues::<T>::new(world, archetype))?;
        }
        Ok(())
    }

    fn component_entry(
        &self,
        key: &str,
        world: &mut World,
    ) -> Option<(usize, ComponentId, StorageType)> {
        if self.0.key != key {
            return self.1.component_entry(key, world);
        }
        Some((L::LEN, world.register_component::<T>(), T::STORAGE_TYPE))
    }

    fn load_column<'de, A: SeqAccess<'de>>(
        &self,
        entry: usize,
        seq: &mut A,
        staging: &mut Staging,
        dest: ColumnDest,
    ) -> Result<Option<()>, A::Error> {
        if entry != L::LEN {
            return self.1.load_column(entry, seq, staging, dest);
        }
        match dest {
            ColumnDest::Table { table, column, len } => {
                let ticks = ComponentTicks::new(staging.tick);
                let table = &mut staging.tables[table].table;
                seq.next_element_seed(column::TableColumnSeed::<T>::new(table, column, len, ticks))
            }
            ColumnDest::Staged { start, len } => {
                let column = staging.column_mut::<StagedComponent<T>>(entry);
                seq.next_element_seed(column::ColumnSeed { column, start, len })
            }
        }
    }

    fn count_resources(&self, world: &World) -> usize {
        self.1.count_resources(world)
    }

    fn serialize_resources<M: SerializeMap>(
        &self,
        world: &World,
        map: &mut M,
    ) -> Result<(), M::Error> {
        self.1.serialize_resources(world, map)
    }

    fn load_value<'de, A: MapAccess<'de>>(
        &self,
        key: &str,
        access: &mut A,
        staging: &mut Staging,
        target: Target,
    ) -> Result<bool, A::Error> {
        if self.0.key != key || matches!(target, Target::Resource) {
            return self.1.load_value(key, access, staging, target);
        }
        let index = L::LEN;
        staging.check_once(index, key)?;
        let column = staging.column_mut::<StagedComponent<T>>(index);
        match target {
            Target::Entity(row) => {
                let value = access.next_value::<T>()?;
                column.push(row, value);
            }
            Target::Resource => unreachable!("handled above"),
        }
        Ok(true)
    }
}

impl<R: Resource + Serialize + DeserializeOwned, L: SaveList> SaveList for (SavedResource<R>, L) {
    const LEN: usize = L::LEN + 1;

    fn clash(&self, key: &str, type_id: TypeId) -> Option<String> {
        if self.0.key == key || TypeId::of::<R>() == type_id {
            return Some(format!("{:?}", self.0));
        }
        self.1.clash(key, type_id)
    }

    fn stage(&self, columns: &mut Vec<Box<dyn Staged>>) {
        self.1.stage(columns);
        columns.push(Box::new(StagedResource::<R>(None)));
    }

    fn count_components(&self, world: &World, archetype: &Archetype) -> usize {
        self.1.count_components(world, archetype)
    }

    fn serialize_entity<M: SerializeMap>(
        &self,
        world: &World,
        archetype: &Archetype,
        entity: Entity,
        map: &mut M,
    ) -> Result<(), M::Error> {
        self.1.serialize_entity(world, archetype, entity, map)
    }

    fn serialize_keys<S: SerializeSeq>(
        &self,
        world: &World,
        archetype: &Archetype,
        seq: &mut S,
    ) -> Result<(), S::Error> {
        self.1.serialize_keys(world, archetype, seq)
    }

    fn serialize_columns<S: SerializeTuple>(
        &self,
        world: &World,
        archetype: &Archetype,
        tuple: &mut S,
    ) -> Result<(), S::Error> {
        self.1.serialize_columns(world, archetype, tuple)
    }

    fn component_entry(
        &self,
        key: &str,
        world: &mut World,
    ) -> Option<(usize, ComponentId, StorageType)> {
        self.1.component_entry(key, world)
    }

    fn load_column<'de, A: SeqAccess<'de>>(
        &self,
        entry: usize,
        seq: &mut A,
        staging: &mut Staging,
        dest: ColumnDest,
    ) -> Result<Option<()>, A::Error> {
        debug_assert_ne!(entry, L::LEN, "a resource entry has no column");
        self.1.load_column(entry, seq, staging, dest)
    }

    fn count_resources(&self, world: &World) -> usize {
        usize::from(world.contains_resource::<R>()) + self.1.count_resources(world)
    }

    fn serialize_resources<M: SerializeMap>(
        &self,
        world: &World,
        map: &mut M,
    ) -> Result<(), M::Error> {
        self.1.serialize_resources(world, map)?;
        if let Some(value) = world.get_resource::<R>() {
            map.serialize_entry(&*self.0.key, value)?;
        }
        Ok(())
    }

    fn load_value<'de, A: MapAccess<'de>>(
        &self,
        key: &str,
        access: &mut A,
        staging: &mut Staging,
        target: Target,
    ) -> Result<bool, A::Error> {
        if self.0.key != key || !matches!(target, Target::Resource) {
            return self.1.load_value(key, access, staging, target);
        }
        let index = L::LEN;
        staging.check_once(index, key)?;
        let value = access.next_value::<R>()?;
        staging.column_mut::<StagedResource<R>>(index).0 = Some(value);
        Ok(true)
    }
}

/// Reads a map of key → value (one entity's components, or the
/// resources) into the staging.
struct KeyedValues<'a, L> {
    list: &'a L,
    staging: &'a mut Staging,
    target: Target,
}

impl<'de, L: SaveList> DeserializeSeed<'de> for KeyedValues<'_, L> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, L: SaveList> Visitor<'de> for KeyedValues<'_, L> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a map of key to value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.staging.next_scope();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            load_keyed(self.list, &key, &mut map, self.staging, self.target)?;
        }
        Ok(())
    }
}

/// Reads the value under `key`, skipping or refusing a key not registered.
fn load_keyed<'de, L: SaveList, A: MapAccess<'de>>(
    list: &L,
    key: &str,
    map: &mut A,
    staging: &mut Staging,
    target: Target,
) -> Result<(), A::Error> {
    let kind = if matches!(target, Target::Resource) {
        "resource"
    } else {
        "component"
    };
    let found = list
        .load_value(key, map, staging, target)
        .map_err(|e| A::Error::custom(format_args!("{kind} `{key}`: {e}")))?;
    if found {
        Ok(())
    } else if staging.skip_unknown_keys {
        map.next_value::<IgnoredAny>().map(drop)
    } else {
        Err(A::Error::custom(format_args!(
            "{kind} key `{key}` is not registered for loading"
        )))
    }
}

/// Reads a saved entity id.
fn entity_from_bits<E: serde::de::Error>(bits: u64) -> Result<Entity, E> {
    Entity::try_from_bits(bits).ok_or_else(|| E::custom(format_args!("{bits} is not an entity id")))
}

/// The `visit_seq` and `visit_map` of a top-level visitor with fields
/// `list` and `staging` and a method `second` giving the seed of the second
/// part: the resources, then the second part, then the
/// allocator (which may be left out), read as a struct (self-describing
/// formats) or a sequence (compact ones).
macro_rules! visit_top_level {
    ($second_name:literal) => {
        fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            let expected = concat!("resources, then ", $second_name);
            let resources = super::KeyedValues {
                list: self.list,
                staging: &mut *self.staging,
                target: Target::Resource,
            };
            seq.next_element_seed(resources)?
                .ok_or_else(|| A::Error::invalid_length(0, &expected))?;
            seq.next_element_seed(self.second())?
                .ok_or_else(|| A::Error::invalid_length(1, &expected))?;
            // The allocator comes last and may be left out.
            self.staging.allocator = seq
                .next_element()
                .map_err(|e| A::Error::custom(format_args!("allocator: {e}")))?;
            Ok(())
        }

        fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
            const FIELDS: &[&str] = &["resources", $second_name, "allocator"];
            let (mut resources, mut second) = (false, false);
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "resources" && !resources {
                    resources = true;
                    map.next_value_seed(super::KeyedValues {
                        list: self.list,
                        staging: &mut *self.staging,
                        target: Target::Resource,
                    })?;
                } else if key == $second_name && !second {
                    second = true;
                    map.next_value_seed(self.second())?;
                } else if key == "allocator" && self.staging.allocator.is_none() {
                    self.staging.allocator = Some(
                        map.next_value()
                            .map_err(|e| A::Error::custom(format_args!("allocator: {e}")))?,
                    );
                } else if FIELDS.contains(&&*key) {
                    return Err(A::Error::custom(format_args!(
                        "field `{key}` appears twice"
                    )));
                } else {
                    return Err(A::Error::unknown_field(&key, FIELDS));
                }
            }
            if !resources {
                return Err(A::Error::missing_field("resources"));
            }
            if !second {
                return Err(A::Error::missing_field($second_name));
            }
            Ok(())
        }
    };
}
use visit_top_level;

/// Serializes the resources map.
struct ResourceValues<'w, L> {
    list: &'w L,
    world: &'w World,
}

impl<L: SaveList> Serialize for ResourceValues<'_, L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.list.count_resources(self.world)))?;
        self.list.serialize_resources(self.world, &mut map)?;
        map.end()
    }
}

mod staging {
    use super::*;
    use crate::{
        change_detection::{ComponentTicks, Tick},
        component::ComponentId,
        storage::{Table, TableId},
        utils::DropPanics,
    };

    /// Where the values being read go.
    #[derive(Clone, Copy)]
    pub enum Target {
        /// One value, of the staged entity at this position.
        Entity(u32),
        /// A resource.
        Resource,
    }

    /// Where the values of one component of an archetype in the column
    /// format go.
    #[derive(Clone, Copy)]
    pub enum ColumnDest {
        /// Straight into the column at position `column` of the staged
        /// table `table`, `len` values.
        Table {
            table: usize,
            column: usize,
            len: u32,
        },
        /// Into the entry's staged values, for `len` staged entities from
        /// `start`.
        Staged { start: u32, len: u32 },
    }

    /// Table components of the column format, read straight into a table
    /// of their own (apart from the world) laid out as the world's table
    /// for them is: an empty world table takes its memory as it is.
    pub struct StagedTable {
        pub(super) table: Table,
        /// The registry entry of each column, by column position.
        pub(super) entries: Vec<usize>,
        /// The staged positions of its rows as runs `(start, len)`, in row
        /// order (ascending).
        pub(super) runs: Vec<(u32, u32)>,
    }

    /// Everything a load read, held apart from the world until it is whole.
    pub struct Staging {
        pub(super) entities: Vec<Entity>,
        pub(super) columns: Vec<Box<dyn Staged>>,
        /// The staged tables of the column format, one per set of table
        /// components.
        pub(super) tables: Vec<StagedTable>,
        /// The tick the values are added at.
        pub(super) tick: Tick,
        /// The saved allocator: the number of index slots, and the free
        /// list with each index's generation.
        pub(super) allocator: Option<(u32, Vec<(u32, u32)>)>,
        /// For each entry, the scope (entity, archetype or resource map)
        /// it was last read in, to refuse a key twice in one.
        seen: Vec<u32>,
        scope: u32,
        pub(super) skip_unknown_keys: bool,
    }

    impl Staging {
        pub(super) fn new<L: SaveList>(list: &L, options: LoadOptions, tick: Tick) -> Self {
            let mut columns = Vec::with_capacity(L::LEN);
            list.stage(&mut columns);
            Staging {
                entities: Vec::new(),
                columns,
                tables: Vec::new(),
                tick,
                allocator: None,
                seen: vec![0; L::LEN],
                scope: 0,
                skip_unknown_keys: options.skip_unknown_keys,
            }
        }

        pub(super) fn next_scope(&mut self) {
            self.scope += 1;
        }

        pub(super) fn check_once<E: serde::de::Error>(
            &mut self,
            index: usize,
            key: &str,
        ) -> Result<(), E> {
            if std::mem::replace(&mut self.seen[index], self.scope) == self.scope {
                return Err(E::custom(format_args!("key `{key}` appears twice")));
            }
            Ok(())
        }

        pub(super) fn column_mut<C: Staged>(&mut self, index: usize) -> &mut C {
            self.columns[index]
                .as_any()
                .downcast_mut::<C>()
                .expect("each entry stages its own type at its position")
        }
    }

    /// The values of one entry, read and not yet in the world.
    pub trait Staged: Any {
        fn as_any(&mut self) -> &mut dyn Any;
        fn maps_entities(&self) -> bool;
        /// Whether the entry remaps entity references (with or without
        /// values staged).
        fn has_mapper(&self) -> bool;
        fn map_entities(&mut self, mapper: &mut dyn EntityMapper);
        /// The component's id (registering it), `None` for a resource.
        fn component_id(&self, world: &mut World) -> Option<ComponentId>;
        /// The staged positions that have a value, as runs `(start, len)`
        /// in the order read.
        fn runs(&self) -> &[(u32, u32)];
        /// The number of values.
        fn value_count(&self) -> usize;
        /// Moves every value into the row [`super::place`] made for its
        /// entity, leaving none here: onto the end of its table's column,
        /// or into the sparse set.
        ///
        /// # Safety
        /// `id` is this entry's component, and every staged position with a
        /// value was placed as `ids[position]` in the table of its segment
        /// (one with the component's column if it is a table component),
        /// its rows pushed and reserved; each column of each such table
        /// gets its values in row order.
        unsafe fn write_placed(&mut self, world: &mut World, id: ComponentId, placed: Placed<'_>);
        /// Inserts the values; `ids` are the new entities by staged position.
        fn commit(self: Box<Self>, world: &mut World, ids: &[Entity]);
        /// Makes room for `additional` more staged values.
        fn reserve_values(&mut self, additional: usize);
        /// Moves the values of `rows` of `table`'s column at position
        /// `column` onto the staged values, for the staged positions from
        /// `start` on.
        ///
        /// # Safety
        /// The column holds this entry's component; `rows` are initialised
        /// rows of it, which the caller forgets afterwards (they are moved,
        /// not copied); room for them was reserved.
        unsafe fn take_rows(
            &mut self,
            table: &Table,
            column: usize,
            rows: std::ops::Range<usize>,
            start: u32,
        );
    }

    /// Moves every value of the staged tables onto their entries' staged
    /// values, in staged position order, for a load that inserts component
    /// by component (or remaps entities) after all.
    pub(in crate::world::save) fn destage(
        columns: &mut [Box<dyn Staged>],
        mut tables: Vec<StagedTable>,
    ) {
        // Every run of every table, by staged position: (start, len,
        // table, first row).
        let mut runs: Vec<(u32, u32, usize, usize)> = Vec::new();
        for (index, staged) in tables.iter().enumerate() {
            let mut row = 0;
            for &(start, len) in &staged.runs {
                runs.push((start, len, index, row));
                row += len as usize;
            }
            debug_assert_eq!(row, staged.table.entity_count());
        }
        runs.sort_unstable_by_key(|run| run.0);
        // Room first: from here on until the tables forget their values
        // nothing can panic.
        let mut counts = vec![0usize; columns.len()];
        for staged in &tables {
            for &entry in &staged.entries {
                counts[entry] += staged.table.entity_count();
            }
        }
        for (column, count) in columns.iter_mut().zip(counts) {
            column.reserve_values(count);
        }
        for &(start, len, index, row) in &runs {
            let staged = &tables[index];
            for (column, &entry) in staged.entries.iter().enumerate() {
                // SAFETY: the column holds the entry's component (it was
                // read for it); the rows are initialised (a staged table is
                // whole once read); each row is taken once (the runs are
                // disjoint) and forgotten below; room was reserved above.
                unsafe {
                    columns[entry].take_rows(&staged.table, column, row..row + len as usize, start);
                }
            }
        }
        for staged in &mut tables {
            let moved = vec![true; staged.table.entity_count()];
            let mut panics = DropPanics::default();
            staged.table.clear_keeping(|_| Some(&moved), &mut panics);
            panics.finish();
        }
    }

    /// Where [`super::place`] put the staged entities.
    #[derive(Clone, Copy)]
    pub struct Placed<'a> {
        /// The entity by staged position.
        pub ids: &'a [Entity],
        /// The staged positions as runs `(start, end, table)` in order,
        /// each placed in one table.
        pub segments: &'a [(u32, u32, TableId)],
        /// The tick the values are added at.
        pub tick: Tick,
    }

    pub struct StagedComponent<T> {
        /// The staged positions with a value, as runs `(start, len)` in
        /// the order read (ascending, as entities are read in order).
        runs: Vec<(u32, u32)>,
        values: Vec<T>,
        map: Option<fn(&mut T, &mut dyn EntityMapper)>,
    }

    impl<T> StagedComponent<T> {
        pub(super) fn new(map: Option<fn(&mut T, &mut dyn EntityMapper)>) -> Self {
            StagedComponent {
                runs: Vec::new(),
                values: Vec::new(),
                map,
            }
        }

        pub(super) fn push(&mut self, row: u32, value: T) {
            self.extend_rows(row, 1);
            self.values.push(value);
        }

        /// Appends the values read by a column seed, for the staged rows
        /// `start..start + len`.
        pub(super) fn extend_rows(&mut self, start: u32, len: u32) {
            match self.runs.last_mut() {
                Some(run) if run.0 + run.1 == start => run.1 += len,
                _ => self.runs.push((start, len)),
            }
        }

        pub(super) fn values_mut(&mut self) -> &mut Vec<T> {
            &mut self.values
        }
    }

    /// The staged position of every value, in order, from its runs.
    fn positions(runs: &[(u32, u32)]) -> impl Iterator<Item = u32> + '_ {
        runs.iter().flat_map(|&(start, len)| start..start + len)
    }

    impl<T: Component> Staged for StagedComponent<T> {
        fn as_any(&mut self) -> &mut dyn Any {
            self
        }

        fn maps_entities(&self) -> bool {
            self.map.is_some() && !self.values.is_empty()
        }

        fn has_mapper(&self) -> bool {
            self.map.is_some()
        }

        fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
            if let Some(map) = self.map {
                for value in &mut self.values {
                    map(value, mapper);
                }
            }
        }

        fn component_id(&self, world: &mut World) -> Option<ComponentId> {
            Some(world.register_component::<T>())
        }

        fn runs(&self) -> &[(u32, u32)] {
            &self.runs
        }

        fn value_count(&self) -> usize {
            self.values.len()
        }

        unsafe fn write_placed(&mut self, world: &mut World, id: ComponentId, placed: Placed<'_>) {
            if self.values.is_empty() {
                return;
            }
            let runs = std::mem::take(&mut self.runs);
            let mut values = std::mem::take(&mut self.values);
            let storage = world
                .components
                .get_info(id)
                .map(|info| info.storage_type());
            if storage == Some(StorageType::SparseSet) {
                let set = world
                    .storages
                    .sparse_sets
                    .get_mut(id)
                    .expect("an archetype with the component made its sparse set");
                for (row, value) in positions(&runs).zip(values) {
                    // SAFETY: `T` is the set's component (`id` is `T`'s,
                    // caller); the entity was just placed, so it has no
                    // value here.
                    unsafe { set.insert_new_typed(placed.ids[row as usize], value, placed.tick) };
                }
                return;
            }
            let ticks = ComponentTicks::new(placed.tick);
            let (src, staged) = (values.as_ptr(), values.len());
            // SAFETY: the values are moved out bitwise below, each once;
            // the vector only frees its buffer afterwards.
            unsafe { values.set_len(0) };
            let mut taken = 0;
            let mut segments = placed.segments.iter().peekable();
            for &(start, len) in &runs {
                let (mut at, end) = (start, start + len);
                while at < end {
                    while segments.next_if(|segment| segment.1 <= at).is_some() {}
                    let &&(_, segment_end, table_id) =
                        segments.peek().expect("every position is in a segment");
                    let stop = end.min(segment_end);
                    let count = (stop - at) as usize;
                    let column = world.storages.tables[table_id]
                        .get_column_mut(id)
                        .expect("a table placed for the component has its column");
                    // SAFETY: `T` is the column's component (caller); the
                    // values `taken..taken + count` are initialised, not yet
                    // moved, and outside the column; the segment's rows were
                    // reserved and pushed before any value, and the column
                    // gets its values in row order (caller).
                    unsafe { column.push_moved_run(src.add(taken), count, ticks) };
                    taken += count;
                    at = stop;
                }
            }
            debug_assert_eq!(taken, staged, "every value moved");
        }

        fn reserve_values(&mut self, additional: usize) {
            self.values.reserve(additional);
        }

        unsafe fn take_rows(
            &mut self,
            table: &Table,
            column: usize,
            rows: std::ops::Range<usize>,
            start: u32,
        ) {
            debug_assert!(self.values.capacity() - self.values.len() >= rows.len());
            let len = rows.len() as u32;
            // SAFETY: the column holds `T`s (caller); `column` is one of
            // the table's columns.
            let src = unsafe { table.column_at_unchecked(column) }
                .data_ptr()
                .cast::<T>();
            for row in rows {
                // SAFETY: an initialised row, moved out once (caller); the
                // push has room (caller), so it cannot panic.
                self.values.push(unsafe { src.add(row).read() });
            }
            self.extend_rows(start, len);
        }

        fn commit(self: Box<Self>, world: &mut World, ids: &[Entity]) {
            let StagedComponent { runs, values, .. } = *self;
            if values.is_empty() {
                return;
            }
            // An observer of an earlier insert may have despawned an
            // entity: its later values are dropped, not an error.
            let _ =
                world.try_insert_batch(positions(&runs).map(|row| ids[row as usize]).zip(values));
        }
    }

    pub struct StagedResource<R>(pub(super) Option<R>);

    impl<R: Resource> Staged for StagedResource<R> {
        fn as_any(&mut self) -> &mut dyn Any {
            self
        }

        fn maps_entities(&self) -> bool {
            false
        }

        fn has_mapper(&self) -> bool {
            false
        }

        fn map_entities(&mut self, _mapper: &mut dyn EntityMapper) {}

        fn component_id(&self, _world: &mut World) -> Option<ComponentId> {
            None
        }

        fn runs(&self) -> &[(u32, u32)] {
            &[]
        }

        fn value_count(&self) -> usize {
            0
        }

        unsafe fn write_placed(&mut self, _: &mut World, _: ComponentId, _: Placed<'_>) {}

        fn commit(self: Box<Self>, world: &mut World, _ids: &[Entity]) {
            if let Some(value) = self.0 {
                world.insert_resource(value);
            }
        }

        fn reserve_values(&mut self, _additional: usize) {}

        unsafe fn take_rows(&mut self, _: &Table, _: usize, _: std::ops::Range<usize>, _: u32) {
            unreachable!("a resource has no table column")
        }
    }
}
